"""Drawing one panel: bands, median, actual cases, the split or "forecast starts" mark."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.collections import PolyCollection
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from chaplab.frames import ORG_UNIT, PERIOD, SPLIT_PERIOD, VALUE, period_label, quantile_column
from chaplab.plotting._bands import (
    ACTUAL_COLOUR,
    SPLIT_COLOUR,
    Band,
    Style,
    band_label,
)
from chaplab.plotting._layout import style_panel
from chaplab.plotting._panels import FORECAST_START_MARK, SPLIT_MARK, Panel
from chaplab.plotting._time import to_x

ACTUALS_GID = "actuals"
MEDIAN_GID = "median"
BAND_GID = "band"
SPLIT_GID = "split"
FORECAST_START_GID = "forecast start"


def forecast_rows(table: pd.DataFrame) -> dict[tuple[str, pd.Period | None], pd.DataFrame]:
    """A wide table -> its rows by period per (org unit, split period or None)."""
    if SPLIT_PERIOD not in table.index.names:
        return {
            (str(org_unit), None): rows.droplevel(ORG_UNIT)
            for org_unit, rows in table.groupby(level=ORG_UNIT, observed=True, sort=False)
        }
    return {
        (str(org_unit), split): rows.droplevel([ORG_UNIT, SPLIT_PERIOD])
        for (org_unit, split), rows in table.groupby(
            level=[ORG_UNIT, SPLIT_PERIOD], observed=True, sort=False
        )
    }


def draw_forecast(
    ax: Axes,
    rows: pd.DataFrame,
    split: pd.Period | None,
    bands: Sequence[Band],
    median: float | None,
    style: Style,
    name: str = "",
) -> None:
    """One polygon per band (outermost first) and the median line of one forecast, ``rows``
    of a wide table indexed by period. ``name`` prefixes the artists' gids (to tell two
    evaluations apart)."""
    x = to_x(rows.index)
    suffix = "" if split is None else f" {period_label(split)}"
    for index, band in enumerate(bands):
        fill_band(
            ax,
            x,
            rows[quantile_column(band[0])].to_numpy(np.float64),
            rows[quantile_column(band[1])].to_numpy(np.float64),
            **style.band_style(index, len(bands)),
            gid=f"{name}{BAND_GID} {band[0]:g}-{band[1]:g}{suffix}",
        )
    if median is not None:
        ax.plot(
            x,
            rows[quantile_column(median)].to_numpy(),
            **style.median_style(),
            gid=f"{name}{MEDIAN_GID}{suffix}",
        )


def fill_band(ax: Axes, x: np.ndarray, low: np.ndarray, high: np.ndarray, **style: Any) -> None:
    """The area between ``low`` and ``high`` as one polygon, like ``fill_between`` but without
    its unit handling and autoscaling (the panel's limits are set from the frames); that was a
    third of the time spent building a chart. Values with gaps go through ``fill_between``."""
    if not (np.isfinite(low).all() and np.isfinite(high).all()):
        ax.fill_between(x, low, high, **style)
        return
    along = ax.convert_xunits(x)  # type: ignore[no-untyped-call]  # unannotated in matplotlib
    outline = np.column_stack(
        [np.concatenate([along, along[::-1]]), np.concatenate([high, low[::-1]])]
    )
    ax.add_collection(PolyCollection([outline], **style), autolim=False)


def draw_actuals(ax: Axes, actuals: pd.DataFrame) -> None:
    """What really happened, as a contrasting line over the whole history."""
    ax.plot(
        to_x(actuals[PERIOD]),
        actuals[VALUE].to_numpy(),
        color=ACTUAL_COLOUR,
        linewidth=1.1,
        gid=ACTUALS_GID,
    )


MARK_STYLES: dict[str, dict[str, Any]] = {
    SPLIT_MARK: {"color": SPLIT_COLOUR, "linestyle": "--", "linewidth": 0.9},
    FORECAST_START_MARK: {"color": SPLIT_COLOUR, "linestyle": "-", "linewidth": 1.1},
}
"""The vertical line where a panel's forecast starts, named in the legend rather than on the
panel, where a label would cover the actual cases: a backtest's split period (dashed; the model
saw the periods before it) or a forward forecast's first period (solid)."""


def start_mark(frame: pd.DataFrame) -> str:
    """Which mark a frame's panels get: a split period for an evaluation frame, "forecast
    starts" for a prediction frame (no ``split_period`` column)."""
    return SPLIT_MARK if SPLIT_PERIOD in frame.columns else FORECAST_START_MARK


def draw_start_mark(ax: Axes, first: pd.Period, mark: str) -> None:
    """The ``mark`` line at the start of the period ``first``, the first forecast period."""
    gid = f"{SPLIT_GID} {period_label(first)}" if mark == SPLIT_MARK else FORECAST_START_GID
    ax.axvline(to_x(pd.PeriodIndex([first]))[0], **MARK_STYLES[mark], gid=gid)


def finish_panel(
    ax: Axes,
    panel: Panel,
    forecast_start: pd.Period | None,
    actuals: pd.DataFrame | None,
    value_limits: tuple[float, float],
) -> None:
    """Everything of a panel but the forecasts and the time axis: its org unit's actual cases,
    the split marker (or, for a forward forecast, the "forecast starts" mark at
    ``forecast_start``), the value limits, the title and the grid."""
    if actuals is not None:
        draw_actuals(ax, actuals[actuals[ORG_UNIT] == panel.org_unit])
    if panel.split is not None:
        draw_start_mark(ax, panel.split, SPLIT_MARK)
    elif forecast_start is not None:
        draw_start_mark(ax, forecast_start, FORECAST_START_MARK)
    ax.set_ylim(*value_limits)
    style_panel(ax, panel.title)


def legend_handles(
    bands: Sequence[Band],
    median: float | None,
    style: Style,
    *,
    prefix: str = "",
    actuals: bool = False,
    mark: str | None = None,
) -> list[Artist]:
    """Legend entries matching the artists :func:`draw_forecast` and friends draw."""
    handles: list[Artist] = [
        Patch(**style.band_style(index, len(bands)), label=f"{prefix}{band_label(band)}")
        for index, band in enumerate(bands)
    ]
    if median is not None:
        handles.append(Line2D([], [], **style.median_style(), label=f"{prefix}median"))
    if actuals:
        handles.append(Line2D([], [], color=ACTUAL_COLOUR, linewidth=1.1, label="actual cases"))
    if mark is not None:
        handles.append(Line2D([], [], **MARK_STYLES[mark], label=mark))
    return handles
