"""Two evaluations' bands in one panel per org unit, on the periods they share."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from chaplab.errors import ArgumentError
from chaplab.frames import ORG_UNIT, PERIOD, SPLIT_PERIOD
from chaplab.plotting._bands import (
    FORECAST,
    SECOND,
    Band,
    Style,
    derive_bands,
    median_level,
)
from chaplab.plotting._chart import Layer, draw_chart
from chaplab.plotting._checks import check_actuals, check_quantile_bands, check_quantile_frame
from chaplab.plotting._draw import legend_handles, start_mark
from chaplab.plotting._panels import plan_panels


def _shared_rows(frame_a: pd.DataFrame, frame_b: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The rows of each frame whose org unit, period (and split, when both have one) both have."""
    both_split = SPLIT_PERIOD in frame_a.columns and SPLIT_PERIOD in frame_b.columns
    keys = [ORG_UNIT, PERIOD] + ([SPLIT_PERIOD] if both_split else [])
    as_text = {ORG_UNIT: str}
    shared = (
        frame_a[keys]
        .astype(as_text)
        .drop_duplicates()
        .merge(frame_b[keys].astype(as_text).drop_duplicates(), on=keys)
    )
    if shared.empty:
        raise ArgumentError("the two evaluations share no org unit and period: nothing to compare")
    index = pd.MultiIndex.from_frame(shared)
    return tuple(
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
    history: int | None = None,
    top: int | None = None,
) -> Figure:
    """Both evaluations' bands and medians per org unit, on the periods they share.

    The first is drawn as filled blues, the second over it as vermillion outlines (the inner
    bands hatched) with a dashed median, so neither hides the other and their colours never
    mix; bands are derived from the quantile levels both frames have. Other arguments as in
    ``fan_chart`` (one split at a time, the last by default; ``split_period="all"`` for each;
    ``top=N`` for the N org units with the most cases). An org unit's value axis covers
    what its panels draw (the splits and bands shown, the actual cases of their windows), not
    every split: one split far above the others left the drawn one a sliver at the bottom.
    """
    if len(labels) != 2:
        raise ArgumentError(f"labels must name the two evaluations, got {list(labels)}")
    requested = check_quantile_bands(quantile_bands)
    levels_a = check_quantile_frame(frame_a, f"frame_a ({labels[0]})")
    levels_b = check_quantile_frame(frame_b, f"frame_b ({labels[1]})")
    common = np.intersect1d(levels_a, levels_b)
    if len(common) < 2:
        raise ArgumentError(
            f"the evaluations share fewer than two quantile levels ({list(levels_a)} vs "
            f"{list(levels_b)}): no common band can be drawn"
        )
    bands = derive_bands(common, requested, "the quantiles both evaluations have")
    median = median_level(common)
    actuals = check_actuals(actuals, frame_a)
    shared_a, shared_b = _shared_rows(frame_a, frame_b)
    plan = plan_panels(
        [shared_a, shared_b],
        actuals,
        org_units,
        split_period,
        history,
        max_panels,
        where="the periods both evaluations share",
        top=top,
    )
    styles: tuple[Style, Style] = (FORECAST, SECOND)
    handles = [
        handle
        for label, style in zip(labels, styles, strict=True)
        for handle in legend_handles(bands, median, style, prefix=f"{label} ")
    ] + legend_handles([], None, FORECAST, actuals=actuals is not None, mark=start_mark(shared_a))
    layers = [
        Layer(frame, style, f"{label}: ")
        for frame, style, label in zip((shared_a, shared_b), styles, labels, strict=True)
    ]
    return draw_chart(layers, actuals, plan, bands, median, ax, handles, title=title, ylabel=ylabel)
