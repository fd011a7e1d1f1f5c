"""Calibration: empirical coverage of intervals and quantiles, and PIT values and histograms."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from chaplab.errors import ArgumentError
from chaplab.scoring._rules import (
    interval_coverage,
    pit_bin_masses,
    pit_bounds,
    quantile_coverage,
)
from chaplab.scoring._score import COUNT, KEYS
from chaplab.scoring._targets import (
    MODEL,
    SCALE,
    Forecasts,
    Unmatched,
    align,
    with_org_unit_name,
)

KIND = "kind"
INTERVAL = "interval"
QUANTILE_KIND = "quantile"
NOMINAL = "nominal"
EMPIRICAL = "empirical"
PIT = "pit"
PIT_LOWER = "pit_lower"
PIT_UPPER = "pit_upper"
BIN_LOWER = "bin_lower"
BIN_UPPER = "bin_upper"
MASS = "mass"
DENSITY = "density"


def coverage(
    forecasts: Forecasts,
    actuals: pd.DataFrame,
    by: str | Sequence[str] | None = None,
    *,
    model_column: str = MODEL,
    unmatched: Unmatched = "raise",
) -> pd.DataFrame:
    """How often the actual cases fall where the forecasts say they should.

    One row per model, group of ``by`` (e.g. ``"horizon"``) and level, in long form: ``kind``
    ``"interval"`` rows give each central interval's nominal level (0.8 for the 0.1-0.9
    interval) and the share of targets whose actual case lies inside it (ends included);
    ``kind`` ``"quantile"`` rows give each quantile level and the share of actual cases at or
    below that quantile. ``n`` counts the targets. Calibrated forecasts have ``empirical``
    close to ``nominal``.
    """
    targets = align(forecasts, actuals, model_column=model_column, unmatched=unmatched)
    groups = _groups(by)
    parts = []
    for block in targets.blocks:
        keys = targets.keys(block)
        covered, nominal = interval_coverage(block.observed, block.values, block.levels)
        below = quantile_coverage(block.observed, block.values)
        parts.append(_shares(keys, groups, covered, nominal, INTERVAL))
        parts.append(_shares(keys, groups, below, block.levels, QUANTILE_KIND))
    return pd.concat(parts, ignore_index=True)


def _groups(by: str | Sequence[str] | None) -> list[str]:
    """The model column and the grouping columns of ``by`` (which must identify targets)."""
    wanted = [] if by is None else [by] if isinstance(by, str) else list(by)
    allowed = [key for key in KEYS if key not in (MODEL, SCALE, "quantile")]
    unknown = [name for name in wanted if name not in allowed and name != MODEL]
    if unknown:
        raise ArgumentError(f"by: {unknown} cannot group targets; choose from {allowed}")
    return [MODEL] + [name for name in wanted if name != MODEL]


def _shares(
    keys: pd.DataFrame, groups: list[str], hits: np.ndarray, levels: np.ndarray, kind: str
) -> pd.DataFrame:
    """The mean of each column of ``hits`` per group, as long rows of (level, share)."""
    groups = with_org_unit_name(groups, keys.columns)
    table = pd.DataFrame(hits.astype(np.float64), columns=pd.Index(levels, name=NOMINAL))
    grouped = table.groupby([keys[name] for name in groups], observed=True, sort=True)
    shares = grouped.mean().stack().rename(EMPIRICAL).reset_index()
    sizes = grouped.size().rename(COUNT).reset_index()
    shares = shares.merge(sizes, on=groups)
    shares.insert(len(groups), KIND, kind)
    return shares


def pit_values(
    forecasts: Forecasts,
    actuals: pd.DataFrame,
    *,
    model_column: str = MODEL,
    unmatched: Unmatched = "raise",
) -> pd.DataFrame:
    """The probability integral transform of every target's actual case under its forecast.

    The forecast's CDF is the linear interpolation through (value_q, q). ``pit_lower`` and
    ``pit_upper`` bound where the PIT lies: equal when it is known exactly; ``[0, q_min]``
    below the lowest quantile and ``[q_max, 1]`` above the highest, where the forecast says no
    more; the levels of several equal quantiles (a point mass, such as zero cases) when the
    actual case equals them. ``pit`` is the midpoint of the bounds.
    """
    targets = align(forecasts, actuals, model_column=model_column, unmatched=unmatched)
    parts = []
    for block in targets.blocks:
        bounds = pit_bounds(block.observed, block.values, block.levels)
        frame = targets.keys(block)
        frame[PIT] = bounds.value
        frame[PIT_LOWER] = bounds.lower
        frame[PIT_UPPER] = bounds.upper
        parts.append(frame)
    return pd.concat(parts, ignore_index=True)


def pit_histogram(
    forecasts: Forecasts,
    actuals: pd.DataFrame,
    by: str | Sequence[str] | None = None,
    *,
    model_column: str = MODEL,
    unmatched: Unmatched = "raise",
) -> pd.DataFrame:
    """The PIT histogram of every model (and group of ``by``) on bins between 0, the model's
    quantile levels and 1: no finer than the forecasts can tell.

    One row per bin: ``bin_lower``, ``bin_upper``, ``mass`` (the share of targets in the bin;
    a PIT known only to lie in an interval is spread evenly over it, one on a level counts
    half in each neighbouring bin) and ``density`` (mass / bin width; 1 everywhere for
    calibrated forecasts), with ``n`` targets.
    """
    targets = align(forecasts, actuals, model_column=model_column, unmatched=unmatched)
    groups = _groups(by)
    parts = []
    for block in targets.blocks:
        bounds = pit_bounds(block.observed, block.values, block.levels)
        masses = pit_bin_masses(bounds, block.levels)
        edges = np.concatenate([[0.0], block.levels, [1.0]])
        frame = _shares(targets.keys(block), groups, masses, edges[:-1], "pit")
        frame = frame.drop(columns=KIND).rename(columns={NOMINAL: BIN_LOWER, EMPIRICAL: MASS})
        upper = dict(zip(edges[:-1], edges[1:], strict=True))
        frame.insert(frame.columns.get_loc(BIN_LOWER) + 1, BIN_UPPER, frame[BIN_LOWER].map(upper))
        frame.insert(
            frame.columns.get_loc(MASS) + 1,
            DENSITY,
            frame[MASS] / (frame[BIN_UPPER] - frame[BIN_LOWER]),
        )
        parts.append(frame)
    return pd.concat(parts, ignore_index=True)
