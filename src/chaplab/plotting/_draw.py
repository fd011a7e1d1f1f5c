"""Drawing one panel: bands, median, actual cases, split markers, and stable limits."""

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

from chaplab.frames import ORG_UNIT, PERIOD, SPLIT_PERIOD, VALUE, quantile_column
from chaplab.plotting._bands import (
    ACTUAL_COLOUR,
    SPLIT_COLOUR,
    Band,
    Palette,
    band_label,
)
from chaplab.plotting._layout import style_panel

ACTUALS_GID = "actuals"
MEDIAN_GID = "median"
BAND_GID = "band"
SPLIT_GID = "split"


def to_x(periods: pd.Index | pd.Series) -> np.ndarray:
    """Periods -> the datetime64 of their start, the x coordinate of every chart."""
    return pd.PeriodIndex(periods).to_timestamp(how="start").to_numpy()


def forecast_groups(table: pd.DataFrame) -> list[tuple[object, pd.DataFrame]]:
    """A wide table of one org unit -> (split period or None, rows by period) per forecast."""
    if SPLIT_PERIOD in table.index.names:
        return list(table.groupby(level=SPLIT_PERIOD, sort=True))
    return [(None, table)]


def draw_forecast(
    ax: Axes,
    table: pd.DataFrame,
    bands: Sequence[Band],
    median: float | None,
    palette: Palette,
    name: str = "",
    alpha: float = 1.0,
) -> None:
    """One fill per band per split (outermost first) and one median line per split.

    ``name`` prefixes the artists' gids (to tell two evaluations apart); ``alpha`` below 1 lets
    an overlaid evaluation show through."""
    for split, rows in forecast_groups(table):
        x = to_x(rows.index.get_level_values(PERIOD))
        suffix = "" if split is None else f" {split}"
        for index, band in enumerate(bands):
            fill_band(
                ax,
                x,
                rows[quantile_column(band[0])].to_numpy(np.float64),
                rows[quantile_column(band[1])].to_numpy(np.float64),
                color=palette.band(index, len(bands)),
                alpha=alpha,
                linewidth=0,
                gid=f"{name}{BAND_GID} {band[0]:g}-{band[1]:g}{suffix}",
            )
        if median is not None:
            ax.plot(
                x,
                rows[quantile_column(median)].to_numpy(),
                color=palette.median,
                linewidth=1.4,
                gid=f"{name}{MEDIAN_GID}{suffix}",
            )


def fill_band(ax: Axes, x: np.ndarray, low: np.ndarray, high: np.ndarray, **style: Any) -> None:
    """The area between ``low`` and ``high`` as one polygon, like ``fill_between`` but without
    its unit handling and autoscaling (the panel's limits are set from the frames); that was a
    third of the time spent building a chart. Values with gaps go through ``fill_between``."""
    if not (np.isfinite(low).all() and np.isfinite(high).all()):
        ax.fill_between(x, low, high, **style)
        return
    along = ax.convert_xunits(x)
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


def draw_split_markers(ax: Axes, splits: Sequence[pd.Period]) -> None:
    """A dashed vertical line at each split period."""
    for split, x in zip(splits, to_x(pd.PeriodIndex(splits)), strict=True):
        ax.axvline(x, color=SPLIT_COLOUR, linestyle="--", linewidth=0.9, gid=f"{SPLIT_GID} {split}")


def finish_panel(
    ax: Axes,
    org_unit: str,
    drawn: pd.DataFrame,
    actuals: pd.DataFrame | None,
    limit_frames: Sequence[pd.DataFrame],
) -> None:
    """Everything of an org unit's panel but the forecasts and the time axis: its actual cases,
    a marker at each split period of ``drawn`` (the forecast rows shown), its value limits over
    ``limit_frames`` (so they do not move with the split shown), and the title and grid."""
    if actuals is not None:
        draw_actuals(ax, actuals[actuals[ORG_UNIT] == org_unit])
    if SPLIT_PERIOD in drawn.columns:
        draw_split_markers(
            ax, sorted(drawn.loc[drawn[ORG_UNIT] == org_unit, SPLIT_PERIOD].unique())
        )
    ax.set_ylim(*panel_value_limits(limit_frames, org_unit))
    style_panel(ax, org_unit)


def value_limits(values: np.ndarray) -> tuple[float, float]:
    """y-limits that hold every value; from 0 when nothing is negative (counts)."""
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return 0.0, 1.0
    low, high = float(finite.min()), float(finite.max())
    bottom = 0.0 if low >= 0 else low - 0.05 * (high - low)
    top = high + 0.05 * (high - bottom) if high > bottom else bottom + 1.0
    return bottom, top


def time_limits(frames: Sequence[pd.DataFrame]) -> tuple[np.datetime64, np.datetime64]:
    """The x-limits holding every period of the given frames (all splits, all org units shown),
    so that showing another split keeps the time axis where it is."""
    x = np.concatenate([to_x(frame[PERIOD]) for frame in frames])
    return x.min(), x.max()


def panel_value_limits(frames: Sequence[pd.DataFrame], org_unit: str) -> tuple[float, float]:
    """The y-limits of one org unit over every given frame (all splits, all quantiles),
    so that showing another split keeps its axis where it is."""
    values = [
        frame.loc[frame[ORG_UNIT] == org_unit, VALUE].to_numpy(np.float64) for frame in frames
    ]
    return value_limits(np.concatenate(values))


def legend_handles(
    bands: Sequence[Band],
    median: float | None,
    palette: Palette,
    *,
    prefix: str = "",
    alpha: float = 1.0,
    actuals: bool = False,
    splits: bool = False,
) -> list[Artist]:
    """Legend entries matching the artists :func:`draw_forecast` and friends draw."""
    handles: list[Artist] = [
        Patch(
            color=palette.band(index, len(bands)),
            alpha=alpha,
            label=f"{prefix}{band_label(band)}",
        )
        for index, band in enumerate(bands)
    ]
    if median is not None:
        handles.append(Line2D([], [], color=palette.median, linewidth=1.4, label=f"{prefix}median"))
    if actuals:
        handles.append(Line2D([], [], color=ACTUAL_COLOUR, linewidth=1.1, label="actual cases"))
    if splits:
        handles.append(
            Line2D([], [], color=SPLIT_COLOUR, linestyle="--", linewidth=0.9, label="split period")
        )
    return handles
