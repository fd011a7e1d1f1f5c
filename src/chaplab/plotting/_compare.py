"""Two evaluations' bands overlaid per org unit on the periods they share."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from chaplab.frames import ORG_UNIT, PERIOD, QUANTILE, SPLIT_PERIOD, wide
from chaplab.plotting._bands import (
    FORECAST,
    SECOND,
    Band,
    derive_bands,
    drawn_levels,
    median_level,
)
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

OVERLAY_ALPHA = 0.55


def _shared_rows(
    frame_a: pd.DataFrame, frame_b: pd.DataFrame
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The rows of each frame whose org unit, period (and split, when both have one) both have."""
    both_split = SPLIT_PERIOD in frame_a.columns and SPLIT_PERIOD in frame_b.columns
    keys = [ORG_UNIT, PERIOD] + ([SPLIT_PERIOD] if both_split else [])
    as_text = {ORG_UNIT: str}
    shared = (
        frame_a[keys].astype(as_text).drop_duplicates()
        .merge(frame_b[keys].astype(as_text).drop_duplicates(), on=keys)
    )
    if shared.empty:
        raise ValueError("the two evaluations share no org unit and period: nothing to compare")
    index = pd.MultiIndex.from_frame(shared)
    return tuple(  # type: ignore[return-value]
        frame[pd.MultiIndex.from_frame(frame[keys].astype(as_text)).isin(index)]
        for frame in (frame_a, frame_b)
    )


def compare_chart(
    frame_a: pd.DataFrame,
    frame_b: pd.DataFrame,
    actuals: pd.DataFrame | None = None,
    labels: Sequence[str] = ("A", "B"),
    org_units: str | Iterable[str] | None = None,
    split_period: object | None = None,
    ax: Axes | Sequence[Axes] | None = None,
    quantile_bands: Sequence[Band] | None = None,
    max_panels: int = 12,
    *,
    title: str | None = None,
    ylabel: str | None = "cases",
) -> Figure:
    """Both evaluations' bands and medians per org unit, on the periods they share.

    The first is drawn in blues, the second in oranges over it, half transparent; bands are
    derived from the quantile levels both frames have. Other arguments as in ``fan_chart``.
    """
    if len(labels) != 2:
        raise ValueError(f"labels must name the two evaluations, got {list(labels)}")
    requested = check_quantile_bands(quantile_bands)
    levels_a = check_quantile_frame(frame_a, f"frame_a ({labels[0]})")
    levels_b = check_quantile_frame(frame_b, f"frame_b ({labels[1]})")
    common = np.intersect1d(levels_a, levels_b)
    if len(common) < 2:
        raise ValueError(
            f"the evaluations share fewer than two quantile levels ({list(levels_a)} vs "
            f"{list(levels_b)}): no common band can be drawn"
        )
    bands = derive_bands(common, requested, "the quantiles both evaluations have")
    median = median_level(common)
    actuals = check_actuals(actuals, frame_a)
    shared_a, shared_b = _shared_rows(frame_a, frame_b)
    chosen = select_org_units(shared_a, org_units, "periods both evaluations share")
    shown = first_panels(chosen, max_panels)
    parts = [frame[frame[ORG_UNIT].isin(shown)] for frame in (shared_a, shared_b)]
    limit_frames = parts + ([] if actuals is None else [actuals[actuals[ORG_UNIT].isin(shown)]])
    drawn = [select_split(part, split_period) for part in parts]
    needed = drawn_levels(bands, median)
    tables = [
        dict(list(wide(part[part[QUANTILE].isin(needed)]).groupby(level=ORG_UNIT, observed=True)))
        for part in drawn
    ]

    x_limits = time_limits(limit_frames)
    figure, axes, owns_figure = make_panels(len(shown), ax, x_limits)
    palettes = (FORECAST, SECOND)
    for org_unit, panel in zip(shown, axes, strict=True):
        for label, table, palette in zip(labels, tables, palettes, strict=True):
            if org_unit in table:
                draw_forecast(
                    panel,
                    table[org_unit].droplevel(ORG_UNIT),
                    bands,
                    median,
                    palette,
                    name=f"{label}: ",
                    alpha=OVERLAY_ALPHA,
                )
        finish_panel(panel, org_unit, drawn[0], actuals, limit_frames)
    handles = [
        handle
        for label, palette in zip(labels, palettes, strict=True)
        for handle in legend_handles(
            bands, median, palette, prefix=f"{label} ", alpha=OVERLAY_ALPHA
        )
    ] + legend_handles(
        [], None, FORECAST, actuals=actuals is not None, splits=SPLIT_PERIOD in drawn[0].columns
    )
    finish_figure(
        figure, axes, handles, title=title,
        ylabel=ylabel, shown=len(shown), total=len(chosen),
        owns_figure=owns_figure,
    )
    return figure
