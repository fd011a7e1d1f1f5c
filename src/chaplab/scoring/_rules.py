"""Scoring rules on arrays: one row per forecast target, one column per quantile level.

Every function takes the observations ``observed`` (shape ``(n,)``), the forecasts' quantile
values ``values`` (``(n, L)``) and their levels ``levels`` (``(L,)``, ascending, shared by the
rows) and works on whole arrays: no Python loop per target.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from chaplab.errors import ArgumentError

LEVEL_DIGITS = 10
"""Levels are compared after rounding to this many digits: 1 - 0.9 is 0.09999999999999998."""


def pinball_loss(
    observed: np.ndarray | float, predicted: np.ndarray | float, level: np.ndarray | float
) -> np.ndarray:
    """The quantile (pinball) loss ``(1{y < q} - tau) (q - y)``, elementwise with broadcasting."""
    y, q, tau = (np.asarray(a, dtype=np.float64) for a in (observed, predicted, level))
    error = q - y
    return np.where(y < q, (1.0 - tau) * error, -tau * error)


def interval_score(
    observed: np.ndarray | float,
    lower: np.ndarray | float,
    upper: np.ndarray | float,
    alpha: np.ndarray | float,
) -> np.ndarray:
    """The interval score of the central ``1 - alpha`` interval ``[lower, upper]``:
    ``(u - l) + 2/alpha * max(l - y, 0) + 2/alpha * max(y - u, 0)``."""
    y, low, high, a = (np.asarray(x, dtype=np.float64) for x in (observed, lower, upper, alpha))
    score: np.ndarray = (high - low) + 2.0 / a * (
        np.maximum(low - y, 0.0) + np.maximum(y - high, 0.0)
    )
    return score


@dataclass(frozen=True)
class CentralIntervals:
    """Which columns of a level set form the median and the central intervals.

    ``lower[k]`` and ``upper[k]`` are the columns of the interval of level ``1 - alphas[k]``,
    widest first; ``median`` is the column of level 0.5.
    """

    median: int
    lower: np.ndarray
    upper: np.ndarray
    alphas: np.ndarray

    @property
    def count(self) -> int:
        """K, the number of central intervals."""
        return len(self.alphas)


def central_intervals(levels: np.ndarray) -> CentralIntervals:
    """The median and the symmetric pairs (q, 1 - q) of ascending ``levels``; ValueError
    naming the level that breaks the symmetry WIS needs."""
    rounded = np.round(np.asarray(levels, dtype=np.float64), LEVEL_DIGITS)
    mirrored = np.round(1.0 - rounded[::-1], LEVEL_DIGITS)
    half = central_median(rounded)
    if not np.array_equal(rounded, mirrored):
        missing = next(q for q in rounded if np.round(1.0 - q, LEVEL_DIGITS) not in rounded)
        raise ArgumentError(
            f"quantile levels {_levels_text(rounded)} are not symmetric: {missing:g} has no "
            f"partner {1 - missing:g}, and the weighted interval score needs pairs q and 1 - q"
        )
    lower = np.arange(half)
    upper = len(rounded) - 1 - lower
    return CentralIntervals(half, lower, upper, 2.0 * rounded[lower])


@dataclass(frozen=True)
class WeightedIntervalScore:
    """WIS and its three parts, one value per target; ``wis`` is their sum."""

    wis: np.ndarray
    dispersion: np.ndarray
    overprediction: np.ndarray
    underprediction: np.ndarray


def weighted_interval_score(
    observed: np.ndarray, values: np.ndarray, levels: np.ndarray
) -> WeightedIntervalScore:
    """WIS (Bracher et al. 2021) with interval weights alpha/2 and median weight 1/2, split into
    dispersion, over- and under-prediction, each divided by K + 1/2.

    ``levels`` may come in any order (the columns of ``values`` follow them); ``values`` must
    have one row per observation and one column per level: a ValueError names the argument
    that does not fit.
    """
    y, values, levels = ascending_levels(observed, values, levels)
    intervals = central_intervals(levels)
    low = values[:, intervals.lower]
    high = values[:, intervals.upper]
    median = values[:, intervals.median]
    scale = 1.0 / (intervals.count + 0.5)
    dispersion = (high - low) @ (intervals.alphas / 2.0) * scale
    over = np.maximum(low - y[:, None], 0.0).sum(axis=1) + 0.5 * np.maximum(median - y, 0.0)
    under = np.maximum(y[:, None] - high, 0.0).sum(axis=1) + 0.5 * np.maximum(y - median, 0.0)
    over, under = over * scale, under * scale
    return WeightedIntervalScore(dispersion + over + under, dispersion, over, under)


def quantile_bias(observed: np.ndarray, values: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """Bias in [-1, 1] as scoringutils computes it for quantiles: 0 when y is the median;
    below it ``1 - 2 max{tau: q_tau <= y}`` (0 if none), above it ``1 - 2 min{tau: q_tau >= y}``
    (1 if none). Positive: the forecast lies too high."""
    median = values[:, central_median(levels)]
    y = np.asarray(observed, dtype=np.float64)[:, None]
    below = np.where(values <= y, levels, 0.0).max(axis=1)
    above = np.where(values >= y, levels, 1.0).min(axis=1)
    flat = y[:, 0]
    return np.where(flat < median, 1.0 - 2.0 * below, np.where(flat > median, 1.0 - 2.0 * above, 0))


def ascending_levels(
    observed: np.ndarray | Sequence[float],
    values: np.ndarray | Sequence[Sequence[float]],
    levels: np.ndarray | Sequence[float],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Observations ``(n,)``, values ``(n, L)`` and levels ``(L,)`` as float arrays with the levels
    ascending and the value columns in the same order; ValueError naming the argument whose
    shape does not fit the others, or a level that repeats."""
    y = np.asarray(observed, dtype=np.float64)
    quantile_values = np.asarray(values, dtype=np.float64)
    tau = np.asarray(levels, dtype=np.float64)
    if y.ndim != 1:
        raise ArgumentError(f"observed must be a 1-d array of observations, got shape {y.shape}")
    if tau.ndim != 1 or tau.size == 0:
        raise ArgumentError(f"levels must be a non-empty 1-d array of quantile levels, got {tau!r}")
    if quantile_values.shape != (len(y), len(tau)):
        raise ArgumentError(
            f"values must have shape (len(observed), len(levels)) = ({len(y)}, {len(tau)}), "
            f"one row per observation and one column per level, got {quantile_values.shape}"
        )
    order = np.argsort(tau, kind="stable")
    tau = tau[order]
    repeated = tau[1:][np.diff(np.round(tau, LEVEL_DIGITS)) == 0]
    if repeated.size:
        raise ArgumentError(f"levels must differ from each other, but {repeated[0]:g} repeats")
    return y, quantile_values[:, order], tau


def central_median(levels: np.ndarray) -> int:
    """The column of level 0.5; ValueError when there is none (WIS and bias need it)."""
    middle = np.flatnonzero(np.round(levels, LEVEL_DIGITS) == 0.5)
    if middle.size == 0:
        raise ArgumentError(
            f"quantile levels {_levels_text(levels)} have no median (0.5), which the weighted "
            "interval score and bias need"
        )
    return int(middle[0])


def interval_coverage(
    observed: np.ndarray, values: np.ndarray, levels: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Whether each central interval holds the observation (``l <= y <= u``), shape ``(n, K)``,
    and the intervals' nominal levels ``1 - alpha`` (widest first). Levels without a partner
    (q without 1 - q) form no interval."""
    rounded = np.round(np.asarray(levels, dtype=np.float64), LEVEL_DIGITS)
    position = {float(q): i for i, q in enumerate(rounded)}
    pairs = [
        (i, position[partner])
        for i, q in enumerate(rounded)
        if q < 0.5 and (partner := float(np.round(1.0 - q, LEVEL_DIGITS))) in position
    ]
    lower = np.array([low for low, _ in pairs], dtype=np.intp)
    upper = np.array([high for _, high in pairs], dtype=np.intp)
    y = np.asarray(observed, dtype=np.float64)[:, None]
    covered = (values[:, lower] <= y) & (y <= values[:, upper])
    return covered, np.round(1.0 - 2.0 * rounded[lower], LEVEL_DIGITS)


def quantile_coverage(observed: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Whether the observation lies at or below each quantile (``y <= q_tau``), ``(n, L)``."""
    return np.asarray(observed, dtype=np.float64)[:, None] <= values


@dataclass(frozen=True)
class PitBounds:
    """Where each observation's PIT lies: the interval ``[lower, upper]`` (equal for a point)
    and one representative value (the point, or the interval's midpoint)."""

    lower: np.ndarray
    upper: np.ndarray

    @property
    def value(self) -> np.ndarray:
        midpoint: np.ndarray = (self.lower + self.upper) / 2.0
        return midpoint


def pit_bounds(observed: np.ndarray, values: np.ndarray, levels: np.ndarray) -> PitBounds:
    """The PIT of each observation under the CDF interpolated through (value_q, q).

    Each row's values are sorted first (crossing quantiles are rearranged). An observation
    strictly between two values gets the linear interpolation, one equal to exactly one value
    that level. Equal to several values (a point mass, as with zero counts) it lies anywhere
    from the lowest to the highest of their levels, widened to 0 (1) when the lowest (highest)
    level is among them. Below the lowest value it lies in [0, q_min], above the highest in
    [q_max, 1]: the forecast says nothing finer there.
    """
    ordered = np.sort(values, axis=1)
    y = np.asarray(observed, dtype=np.float64)[:, None]
    count = len(levels)
    below = (ordered < y).sum(axis=1)  # values strictly below y
    at_or_below = (ordered <= y).sum(axis=1)
    edges = np.concatenate([[0.0], levels, [1.0]])  # edges[i + 1] is levels[i]
    ties = at_or_below - below
    # A tie of two or more values: from the lowest tied level (or 0) to the highest (or 1).
    tie_low = np.where(below == 0, 0.0, edges[below + 1])
    tie_high = np.where(at_or_below == count, 1.0, edges[at_or_below])
    # Strictly between values below-1 and below: interpolate; outside them: the open bin.
    inner = np.clip(below, 1, count - 1)
    rows = np.arange(len(ordered))
    left, right = ordered[rows, inner - 1], ordered[rows, inner]
    width = np.where(right > left, right - left, 1.0)
    with np.errstate(over="ignore"):  # an observation far outside the values: +-inf, clipped
        share = np.clip((y[:, 0] - left) / width, 0.0, 1.0)
    between = levels[inner - 1] + share * (levels[inner] - levels[inner - 1])
    lower = np.where(below == 0, 0.0, np.where(below == count, levels[-1], between))
    upper = np.where(below == 0, levels[0], np.where(below == count, 1.0, between))
    single = ties == 1
    lower = np.where(single, edges[below + 1], lower)
    upper = np.where(single, edges[below + 1], upper)
    several = ties > 1
    return PitBounds(np.where(several, tie_low, lower), np.where(several, tie_high, upper))


def pit_bin_masses(bounds: PitBounds, levels: np.ndarray) -> np.ndarray:
    """Each observation's share of each PIT bin, ``(n, L + 1)``: bins run between 0, the
    levels and 1. A PIT interval spreads its unit mass evenly over the interval; a point inside
    a bin counts there in full, a point on a level counts half in each of the bins it divides."""
    edges = np.concatenate([[0.0], levels, [1.0]])
    bins = len(edges) - 1
    low, high = bounds.lower[:, None], bounds.upper[:, None]
    span = high - low
    overlap = np.clip(np.minimum(high, edges[1:]) - np.maximum(low, edges[:-1]), 0.0, None)
    masses: np.ndarray = overlap / np.where(span > 0, span, 1.0)
    points = span[:, 0] <= 0
    if points.any():
        at = bounds.lower[points]
        left = np.clip(np.searchsorted(edges, at, side="left") - 1, 0, bins - 1)
        right = np.clip(np.searchsorted(edges, at, side="right") - 1, 0, bins - 1)
        point_masses = np.zeros((int(points.sum()), bins))
        rows = np.arange(len(at))
        np.add.at(point_masses, (rows, left), 0.5)
        np.add.at(point_masses, (rows, right), 0.5)
        masses[points] = point_masses
    return masses


def _levels_text(levels: np.ndarray) -> str:
    return "[" + ", ".join(f"{q:g}" for q in levels) + "]"
