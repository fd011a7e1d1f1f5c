"""Fan charts: forecast quantile bands per org unit against what really happened."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from chaplab.frames import ORG_UNIT, QUANTILE, SPLIT_PERIOD, wide
from chaplab.plotting._bands import FORECAST, Band, derive_bands, drawn_levels, median_level
from chaplab.plotting._checks import (
    check_actuals,
    check_quantile_bands,
    check_quantile_frame,
    first_panels,
    select_org_units,
    select_split,
)
from chaplab.plotting._draw import draw_forecast, finish_panel, legend_handles, time_limits
from chaplab.plotting._layout import finish_figure, make_panels


def fan_chart(
    frame: pd.DataFrame,
    actuals: pd.DataFrame | None = None,
    org_units: str | Iterable[str] | None = None,
    split_period: object | None = None,
    ax: Axes | Sequence[Axes] | None = None,
    quantile_bands: Sequence[Band] | None = None,
    max_panels: int = 12,
    *,
    title: str | None = None,
    ylabel: str | None = "cases",
) -> Figure:
    """One panel per org unit: nested quantile bands, the median, actual cases, split markers.

    ``frame`` is a tidy evaluation or prediction frame (:func:`chaplab.frames.entries_to_frame`);
    ``actuals`` a frame of ``org_unit``, ``period``, ``value`` drawn over its whole history.
    ``split_period=None`` draws every split's horizon, a split period (``"202306"`` or a Period)
    that split alone; an org unit's axis limits do not depend on the split shown.
    ``quantile_bands`` are ``(low, high)`` pairs of levels in [0, 1], e.g. ``[(0.05, 0.95)]``;
    by default each quantile q below 0.5 is paired with 1 - q and the bands are nested from the
    outermost inwards (a level without its partner gets no band). More org units than
    ``max_panels`` are cut, with a note in the title. Returns the Figure and never shows it.
    """
    requested = check_quantile_bands(quantile_bands)
    levels = check_quantile_frame(frame)
    bands = derive_bands(levels, requested)
    median = median_level(levels)
    actuals = check_actuals(actuals, frame)
    chosen = select_org_units(frame, org_units)
    shown = first_panels(chosen, max_panels)
    subset = frame[frame[ORG_UNIT].isin(shown)]
    limit_frames = [subset] if actuals is None else [subset, actuals[actuals[ORG_UNIT].isin(shown)]]
    drawn = select_split(subset, split_period)
    table = wide(drawn[drawn[QUANTILE].isin(drawn_levels(bands, median))])
    forecasts = dict(list(table.groupby(level=ORG_UNIT, observed=True, sort=False)))

    x_limits = time_limits(limit_frames)
    figure, axes, owns_figure = make_panels(len(shown), ax, x_limits)
    for org_unit, panel in zip(shown, axes, strict=True):
        if org_unit in forecasts:
            draw_forecast(panel, forecasts[org_unit].droplevel(ORG_UNIT), bands, median, FORECAST)
        finish_panel(panel, org_unit, drawn, actuals, limit_frames)
    handles = legend_handles(
        bands,
        median,
        FORECAST,
        actuals=actuals is not None,
        splits=SPLIT_PERIOD in drawn.columns,
    )
    finish_figure(
        figure,
        axes,
        handles,
        title=title,
        ylabel=ylabel,
        shown=len(shown),
        total=len(chosen),
        owns_figure=owns_figure,
    )
    return figure
