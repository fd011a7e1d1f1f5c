"""Drawing a planned chart: each panel's forecasts, actual cases, marks, limits, the legend."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from chaplab.frames import ORG_UNIT, QUANTILE, SPLIT_PERIOD, wide
from chaplab.plotting._bands import Band, Style, drawn_levels
from chaplab.plotting._draw import draw_forecast, finish_panel, forecast_rows
from chaplab.plotting._layout import finish_figure, make_panels
from chaplab.plotting._panels import Plan, org_unit_value_limits


@dataclass(frozen=True)
class Layer:
    """One evaluation's (or prediction's) forecasts, how they are drawn, and the prefix of
    their artists' gids."""

    frame: pd.DataFrame
    style: Style
    name: str = ""


def draw_chart(
    layers: Sequence[Layer],
    actuals: pd.DataFrame | None,
    plan: Plan,
    bands: Sequence[Band],
    median: float | None,
    ax: Axes | Sequence[Axes] | None,
    handles: list[Artist],
    *,
    title: str | None,
    ylabel: str | None,
) -> Figure:
    """The planned panels with every layer's forecasts drawn in order (later layers on top).

    An org unit's value limits cover what its panels draw: the splits and quantile levels shown
    and the actual cases of their windows. Splits and levels not drawn never stretch the axis
    (a split far above the one shown left it a sliver at the bottom of its panel)."""
    org_units = list(dict.fromkeys(panel.org_unit for panel in plan.panels))
    splits = list(dict.fromkeys(panel.split for panel in plan.panels))
    needed = drawn_levels(bands, median)
    shown = [_shown(layer.frame, org_units, splits, needed) for layer in layers]
    tables = [forecast_rows(wide(frame)) for frame in shown]
    windows = [plan.windows[split] for split in splits]
    limits = {
        org_unit: org_unit_value_limits(shown, actuals, windows, org_unit) for org_unit in org_units
    }
    figure, axes, owns_figure = make_panels(plan.panels, ax, plan.frequency, plan.columns)
    for panel, axis in zip(plan.panels, axes, strict=True):
        starts = []
        for layer, table in zip(layers, tables, strict=True):
            rows = table.get((panel.org_unit, panel.split))
            if rows is not None:
                draw_forecast(axis, rows, panel.split, bands, median, layer.style, layer.name)
                starts.append(rows.index.min())
        finish_panel(axis, panel, min(starts, default=None), actuals, limits[panel.org_unit])
    finish_figure(
        figure,
        axes,
        handles,
        title=title,
        ylabel=ylabel,
        notes=plan.notes,
        owns_figure=owns_figure,
    )
    return figure.get_figure(root=True)  # the Figure, also of the caller's axes in a subfigure


def _shown(
    frame: pd.DataFrame,
    org_units: list[str],
    splits: list[pd.Period | None],
    levels: list[float],
) -> pd.DataFrame:
    """The rows the panels draw: their org units, splits and the quantile levels drawn."""
    keep = frame[ORG_UNIT].isin(org_units) & frame[QUANTILE].isin(levels)
    if SPLIT_PERIOD in frame.columns:
        keep &= frame[SPLIT_PERIOD].isin(splits)
    return frame[keep]
