"""Fan charts: forecast quantile bands per org unit against what really happened."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from chaplab.plotting._bands import FORECAST, Band, derive_bands, median_level
from chaplab.plotting._chart import Layer, draw_chart
from chaplab.plotting._checks import check_actuals, check_quantile_bands, check_quantile_frame
from chaplab.plotting._draw import legend_handles, start_mark
from chaplab.plotting._panels import plan_panels


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
    history: int | None = None,
    top: int | None = None,
) -> Figure:
    """One panel per org unit: nested quantile bands, the median, actual cases, the split.

    ``frame`` is a tidy evaluation or prediction frame (:func:`chaplab.frames.entries_to_frame`);
    ``actuals`` a frame of ``org_unit``, ``period``, ``value``. Panels are titled with the
    ``org_unit_name`` column when the frame has one (:func:`chaplab.frames.with_org_unit_names`),
    and ``org_units`` takes names or ids.
    An evaluation is shown one split at a time: the last by default, or ``split_period``
    (``"202306"`` or a Period); ``split_period="all"`` draws every split in a panel of its own.
    A prediction (no ``split_period`` column) gets a "forecast starts" line instead of the split
    period's dashed one; the legend names both, so no label covers the data. Each panel spans
    its forecast window and ``history`` periods before it (by default as many as the window
    has, at least three); an org unit's value limits cover what its panels draw.
    ``quantile_bands`` are ``(low, high)`` pairs of levels in [0, 1], e.g. ``[(0.05, 0.95)]``;
    by default each quantile q below 0.5 is paired with 1 - q and the bands are nested from the
    outermost inwards (a level without its partner gets no band). More panels than
    ``max_panels`` are cut, with a note in the title. ``top=N`` draws the N org units (of
    ``org_units``, or of all) with the most actual cases in the periods the panels show, most
    first (without actual cases there: the highest forecast median): a dataset of hundreds of
    places becomes a readable chart. Returns
    the Figure and never shows it; a notebook shows it once, also as a cell's last value.
    """
    requested = check_quantile_bands(quantile_bands)
    levels = check_quantile_frame(frame)
    bands = derive_bands(levels, requested)
    median = median_level(levels)
    actuals = check_actuals(actuals, frame)
    plan = plan_panels([frame], actuals, org_units, split_period, history, max_panels, top=top)
    handles = legend_handles(
        bands,
        median,
        FORECAST,
        actuals=actuals is not None,
        mark=start_mark(frame),
    )
    layers = [Layer(frame, FORECAST)]
    return draw_chart(layers, actuals, plan, bands, median, ax, handles, title=title, ylabel=ylabel)
