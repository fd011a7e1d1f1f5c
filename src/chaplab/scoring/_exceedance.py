"""Outbreak probabilities and how well they decided: P(cases > threshold) per forecast target
from quantiles or samples, endemic thresholds from the history before each target, and the
skill of alerting when the probability reaches a cut-off (docs/scoring.md).

A forecast target is one org unit and period (and split period, for an evaluation's entries).
From quantiles, the forecast's CDF is the line through the points (value, level) of its
sorted values, right-continuous where values tie; beyond its lowest or highest value the CDF
is only known to lie in ``[0, q_min]`` or ``[q_max, 1]``, so the probability is known to lie
in ``[1 - q_min, 1]`` below the lowest value and in ``[0, 1 - q_max]`` at or above the highest:
``probability_lower`` and ``probability_upper`` give that interval and ``probability`` its
midpoint (as ``pit_values`` does for the PIT). From samples it is the share of samples above
the threshold.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from chaplab.errors import ArgumentError, ArgumentTypeError
from chaplab.frames import (
    ORG_UNIT,
    ORG_UNIT_NAME,
    PERIOD,
    PROBABILITY,
    PROBABILITY_LOWER,
    PROBABILITY_UPPER,
    QUANTILE,
    SPLIT_PERIOD,
    VALUE,
    forecast_starts,
    format_periods,
    parse_periods,
    period_label,
    require_frame_columns,
)
from chaplab.thresholds import (
    STRATEGIES,
    in_baseline,
    padded_rows,
    threshold_lines,
    year_and_season,
)

SAMPLE = "sample"
THRESHOLD = "threshold"
OBSERVED = "observed"
CRITERION = "Peirce skill score (true skill statistic): hit rate - false alarm rate"
DEFAULT_CUTOFFS = tuple(np.round(np.arange(0.05, 0.951, 0.05), 2))
"""The cut-offs of a decision table unless others are given: 0.05, 0.10, ..., 0.95."""


def exceedance_probability(entries: pd.DataFrame, thresholds: pd.DataFrame | float) -> pd.DataFrame:
    """P(cases > threshold) per forecast target of ``entries``.

    ``entries`` is a tidy frame of quantiles (``org_unit``, [``split_period``,] ``period``,
    ``quantile``, ``value``: an evaluation or prediction frame of ``chaplab.frames``) or of
    samples (a ``sample`` column instead of ``quantile``). ``thresholds`` is one number for every
    target, or a frame with ``org_unit``, ``period`` and ``threshold`` (and ``split_period``,
    to give each split its own); a target without a threshold (no row, or NaN) gets NaN.

    Returns one row per target: its keys (and ``org_unit_name`` when ``entries`` has it),
    ``threshold``, ``probability``, ``probability_lower`` and ``probability_upper`` (see the
    module's docstring for how quantiles give them; equal for samples).
    """
    kind = _kind(entries)
    keys = _keys(entries)
    targets, values, levels = _matrix(entries, keys, kind)
    threshold = _threshold_of(targets, keys, thresholds)
    if kind == QUANTILE:
        lower, upper = _from_quantiles(values, levels, threshold)
    else:
        lower = upper = _from_samples(values, threshold)
    targets[THRESHOLD] = threshold
    targets[PROBABILITY] = (lower + upper) / 2
    targets[PROBABILITY_LOWER] = lower
    targets[PROBABILITY_UPPER] = upper
    return targets


def _kind(entries: pd.DataFrame) -> str:
    advice = (
        "; it needs org_unit, period, value and a quantile or sample column "
        "(chaplab.frames.entries_to_frame)"
    )
    require_frame_columns(entries, (ORG_UNIT, PERIOD, VALUE), "entries", advice)
    has = [name for name in (QUANTILE, SAMPLE) if name in entries.columns]
    if len(has) != 1:
        raise ArgumentError(
            "entries needs exactly one of the columns 'quantile' (a quantile forecast) and "
            f"'sample' (a sample forecast); it has {has or 'neither'}"
        )
    if entries.empty:
        raise ArgumentError("entries is empty: there is no forecast to take a probability of")
    if not np.isfinite(entries[VALUE].to_numpy(np.float64)).all():
        raise ArgumentError("entries: every value must be a finite number")
    return has[0]


def _keys(entries: pd.DataFrame) -> list[str]:
    """The columns that identify a target: org unit, split period (when given) and period."""
    return (
        [ORG_UNIT, SPLIT_PERIOD, PERIOD] if SPLIT_PERIOD in entries.columns else [ORG_UNIT, PERIOD]
    )


def _matrix(
    entries: pd.DataFrame, keys: list[str], kind: str
) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """One row per target (its keys), the values as a ``(targets, levels or samples)`` matrix
    sorted along each row, and the quantile levels (for samples: their labels)."""
    ordered = entries.sort_values([*keys, kind], kind="stable")
    groups = ordered.groupby(keys, observed=True, sort=False)
    sizes = groups.size().to_numpy()
    width = int(sizes[0])
    labels = ordered[kind].to_numpy()
    regular = (
        (sizes == width).all()
        and len(pd.unique(labels[:width])) == width
        and (labels.reshape(-1, width) == labels[:width]).all()
    )
    if not regular:
        what = "quantile levels" if kind == QUANTILE else "sample labels"
        raise ArgumentError(
            f"entries: every forecast target needs the same {what} exactly once, as the first "
            f"target ({', '.join(f'{ordered[key].iloc[0]}' for key in keys)}) has them"
        )
    columns = [*keys, ORG_UNIT_NAME] if ORG_UNIT_NAME in entries.columns else keys
    targets = ordered[columns].iloc[::width].reset_index(drop=True)
    values = np.sort(ordered[VALUE].to_numpy(np.float64).reshape(-1, width), axis=1)
    levels = labels[:width].astype(np.float64) if kind == QUANTILE else labels[:width]
    if kind == QUANTILE and not ((levels > 0) & (levels < 1)).all():
        raise ArgumentError(f"entries: quantile levels must lie in (0, 1), got {list(levels)}")
    return targets, values, levels


def _threshold_of(
    targets: pd.DataFrame, keys: list[str], thresholds: pd.DataFrame | float
) -> np.ndarray:
    """Each target's threshold (NaN where ``thresholds`` has none)."""
    if isinstance(thresholds, (int, float, np.integer, np.floating)) and not isinstance(
        thresholds, bool
    ):
        if not np.isfinite(thresholds):
            raise ArgumentError(f"thresholds must be a finite number, got {thresholds}")
        return np.full(len(targets), float(thresholds))
    if not isinstance(thresholds, pd.DataFrame):
        raise ArgumentTypeError(
            "thresholds must be a number or a DataFrame with org_unit, period and threshold, "
            f"got {type(thresholds).__name__}"
        )
    on = [key for key in keys if key in thresholds.columns]
    advice = (
        "; it needs org_unit, period and threshold (and split_period to give each split its own)"
    )
    require_frame_columns(thresholds, (ORG_UNIT, PERIOD, THRESHOLD), "thresholds", advice)
    right = thresholds[[*on, THRESHOLD]].copy()
    right[ORG_UNIT] = right[ORG_UNIT].astype(str)
    for name in on:
        if name != ORG_UNIT:
            right[name] = _periods(right[name], targets[name].dtype, f"thresholds[{name!r}]")
    if right.duplicated(on).any():
        row = right[right.duplicated(on)].iloc[0]
        raise ArgumentError(
            f"thresholds has more than one threshold for {', '.join(f'{n} {row[n]}' for n in on)}"
        )
    left = targets[on].copy()
    left[ORG_UNIT] = left[ORG_UNIT].astype(str)
    found: np.ndarray = left.merge(right, on=on, how="left")[THRESHOLD].to_numpy(np.float64)
    if np.isnan(found).all():
        raise ArgumentError(
            "thresholds has no threshold for any forecast target; its org units and periods "
            "must be those of the entries"
        )
    return found


def _periods(column: pd.Series, dtype: object, what: str) -> pd.Series:
    """A period column in the entries' period type (strings are parsed)."""
    if not isinstance(column.dtype, pd.PeriodDtype):
        column = pd.Series(parse_periods(column.astype(str)), index=column.index)
    if column.dtype != dtype:
        raise ArgumentError(f"{what} holds {column.dtype} periods, but the entries hold {dtype}")
    return column


def _from_quantiles(
    values: np.ndarray, levels: np.ndarray, threshold: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Bounds of 1 - F(threshold), F the CDF through (value, level) of each row."""
    count = len(levels)
    t = threshold[:, None]
    at_or_below = (values <= t).sum(axis=1)
    rows = np.arange(len(values))
    below = at_or_below == 0
    above = at_or_below == count
    inside = ~below & ~above & ~np.isnan(threshold)
    lower_bound = np.full(len(values), np.nan)
    upper_bound = np.full(len(values), np.nan)
    i = np.clip(at_or_below - 1, 0, count - 1)
    j = np.clip(at_or_below, 0, count - 1)
    low, high = values[rows, i], values[rows, j]
    with np.errstate(invalid="ignore", divide="ignore"):
        cdf = levels[i] + (levels[j] - levels[i]) * (threshold - low) / (high - low)
    lower_bound[inside] = upper_bound[inside] = 1 - cdf[inside]
    known = ~np.isnan(threshold)
    lower_bound[below & known], upper_bound[below & known] = 1 - levels[0], 1.0
    lower_bound[above & known], upper_bound[above & known] = 0.0, 1 - levels[-1]
    return lower_bound, upper_bound


def _from_samples(values: np.ndarray, threshold: np.ndarray) -> np.ndarray:
    share = (values > threshold[:, None]).mean(axis=1)
    return np.where(np.isnan(threshold), np.nan, share)


def endemic_thresholds(
    entries: pd.DataFrame,
    actuals: pd.DataFrame,
    strategy: str = "seasonal",
    *,
    std_multiplier: float = 2.0,
    quantile: float = 0.75,
    baseline_years: int | None = 5,
) -> pd.DataFrame:
    """A threshold per forecast target of ``entries`` from ``actuals`` known before it.

    As the service computes them (``POST /v1/analytics/thresholds``; both with
    :mod:`chaplab.thresholds`): from the actual cases of the same month (or ISO week; week 53
    with week 52) in the years before the period's year,
    ``seasonal`` is their mean + ``std_multiplier`` standard deviations (``ddof=1``, NaN with
    fewer than two values) and ``percentile`` their ``quantile`` over the ``baseline_years``
    years before (all when None; linear between order statistics, NaN without a value). Only
    cases strictly before the forecast's first period count (an evaluation's split period, a
    prediction's first period: ``chaplab.frames.forecast_starts``), so a threshold is what was
    known when the forecast was made, at any horizon. Returns ``org_unit``,
    [``split_period``,] ``period``, ``threshold``: the ``thresholds`` of
    :func:`exceedance_probability`.
    """
    if strategy not in STRATEGIES:
        raise ArgumentError(f"strategy must be one of {', '.join(STRATEGIES)}, got {strategy!r}")
    if not np.isfinite(std_multiplier):
        raise ArgumentError(f"std_multiplier must be a finite number, got {std_multiplier}")
    if not 0 <= quantile <= 1:
        raise ArgumentError(f"quantile must lie in [0, 1], got {quantile}")
    if baseline_years is not None and (
        isinstance(baseline_years, bool)
        or not isinstance(baseline_years, int)
        or baseline_years < 1
    ):
        raise ArgumentError(
            f"baseline_years must be a whole number of at least 1 or None, got {baseline_years!r}"
        )
    _kind(entries)
    keys = _keys(entries)
    targets = entries[keys].drop_duplicates().reset_index(drop=True)
    history = _history(actuals, targets[PERIOD].dtype)
    year, season = _year_and_season(targets[PERIOD])
    frame = targets.assign(
        org_unit=targets[ORG_UNIT].astype(str),
        _target=np.arange(len(targets)),
        _year=year,
        _season=season,
        _first_forecast=forecast_starts(targets),
    )
    joined = frame.merge(history, on=[ORG_UNIT, "_season"], suffixes=("", "_seen"))
    baseline = None if strategy == "seasonal" else baseline_years
    keep = (
        in_baseline(joined["_year_seen"].to_numpy(), joined["_year"].to_numpy(), baseline)
        & (joined["_period_seen"] < joined["_first_forecast"]).to_numpy()
    )
    seen = padded_rows(
        joined["_target"].to_numpy()[keep], joined["_value"].to_numpy()[keep], len(targets)
    )
    parameter = std_multiplier if strategy == "seasonal" else quantile
    out = targets[keys].copy()
    out[THRESHOLD] = threshold_lines(seen, strategy, [parameter])[:, 0]
    return out


def _history(actuals: pd.DataFrame, dtype: object) -> pd.DataFrame:
    """Observed actual cases with their year and season."""
    advice = "; it needs org_unit, period and value (chaplab.frames.actuals_to_frame)"
    require_frame_columns(actuals, (ORG_UNIT, PERIOD, VALUE), "actuals", advice)
    periods = _periods(actuals[PERIOD], dtype, "actuals['period']")
    values = actuals[VALUE].to_numpy(np.float64)
    year, season = _year_and_season(periods)
    history = pd.DataFrame(
        {
            ORG_UNIT: actuals[ORG_UNIT].astype(str).to_numpy(),
            "_period_seen": periods.to_numpy(),
            "_year_seen": year,
            "_season": season,
            "_value": values,
        }
    )
    twice = history.duplicated([ORG_UNIT, "_period_seen"])
    if twice.any():
        row = history[twice].iloc[0]
        raise ArgumentError(
            f"actuals has more than one value for org unit {row[ORG_UNIT]!r}, period "
            f"{period_label(row['_period_seen'])}"
        )
    return history[~np.isnan(values)]


def _year_and_season(periods: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """The year and season position of each period (:func:`chaplab.thresholds.year_and_season`),
    worked out once per distinct period."""
    codes, distinct = pd.factorize(pd.PeriodIndex(periods))
    years, seasons = year_and_season(format_periods(distinct))
    return years[codes], seasons[codes]


@dataclass(frozen=True)
class DecisionSkill:
    """How well alerting at ``probability >= cutoff`` separated outbreaks (actual cases above
    the threshold) from the rest, over an evaluation's targets.

    ``table`` has one row per cut-off: ``cutoff``, ``hits``, ``misses``, ``false_alarms``,
    ``correct_negatives``, ``hit_rate``, ``false_alarm_rate`` and ``peirce_skill``. ``cutoff`` is
    the cut-off with the highest ``criterion`` (the largest such cut-off when several tie: the
    same skill with fewer alerts), ``best`` its row; ``targets`` the targets scored, with their
    ``probability``, ``observed`` case and ``outbreak``."""

    criterion: str
    cutoff: float
    best: pd.Series
    table: pd.DataFrame
    targets: pd.DataFrame


def decision_skill(
    entries: pd.DataFrame,
    actuals: pd.DataFrame,
    thresholds: pd.DataFrame | float,
    cutoffs: Sequence[float] | None = None,
) -> DecisionSkill:
    """Hits, misses, false alarms and correct negatives of alerting when an evaluation's
    outbreak probability reaches each cut-off, and the cut-off that maximises hit rate minus
    false-alarm rate (the Peirce skill score).

    ``entries`` is an evaluation frame (with ``split_period``); ``thresholds`` as for
    :func:`exceedance_probability`, best from :func:`endemic_thresholds` (from the cases before
    each split only). An outbreak is an actual case above the threshold; targets without an
    actual case or a threshold are left out. ``cutoffs`` default to 0.05, 0.10, ..., 0.95.
    """
    if SPLIT_PERIOD not in getattr(entries, "columns", ()):
        raise ArgumentError(
            "entries must be an evaluation frame with a split_period column: decision skill "
            "compares forecasts with what happened"
        )
    grid = _cutoffs(cutoffs)
    scored = exceedance_probability(entries, thresholds)
    history = _history(actuals, scored[PERIOD].dtype)
    observed = (
        scored[[ORG_UNIT, PERIOD]]
        .astype({ORG_UNIT: str})
        .merge(
            history.rename(columns={"_period_seen": PERIOD})[[ORG_UNIT, PERIOD, "_value"]],
            on=[ORG_UNIT, PERIOD],
            how="left",
        )["_value"]
        .to_numpy(np.float64)
    )
    scored[OBSERVED] = observed
    scored = scored[~np.isnan(observed) & ~np.isnan(scored[THRESHOLD].to_numpy())]
    if scored.empty:
        raise ArgumentError(
            "actuals: no forecast target with a threshold has an actual case to compare with"
        )
    scored = scored.assign(outbreak=scored[OBSERVED] > scored[THRESHOLD]).reset_index(drop=True)
    table = decision_table(scored[PROBABILITY].to_numpy(), scored["outbreak"].to_numpy(), grid)
    score = table["peirce_skill"].to_numpy()
    if np.isnan(score).all():
        best_index = len(table) - 1
    else:
        ties = np.isclose(score, np.nanmax(score), rtol=0.0, atol=1e-12)
        best_index = int(np.flatnonzero(ties)[-1])
    return DecisionSkill(
        criterion=CRITERION,
        cutoff=float(table["cutoff"].iloc[best_index]),
        best=table.iloc[best_index],
        table=table,
        targets=scored,
    )


def _cutoffs(cutoffs: Sequence[float] | None) -> np.ndarray:
    grid = np.asarray(DEFAULT_CUTOFFS if cutoffs is None else list(cutoffs), dtype=np.float64)
    if grid.ndim != 1 or not len(grid):
        raise ArgumentError("cutoffs must be a non-empty sequence of probabilities")
    if not ((grid >= 0) & (grid <= 1)).all():
        raise ArgumentError(f"cutoffs must lie in [0, 1], got {grid[(grid < 0) | (grid > 1)][0]}")
    return np.unique(grid)


def decision_table(
    probability: np.ndarray, outbreak: np.ndarray, cutoffs: np.ndarray
) -> pd.DataFrame:
    """The contingency table of alerting at ``probability >= cutoff``, per cut-off, with hit
    rate, false-alarm rate and their difference (the Peirce skill score; NaN when there is no
    outbreak or no quiet target)."""
    alert = probability[None, :] >= cutoffs[:, None]
    event = outbreak.astype(bool)[None, :]
    hits = (alert & event).sum(axis=1)
    misses = (~alert & event).sum(axis=1)
    false_alarms = (alert & ~event).sum(axis=1)
    correct_negatives = (~alert & ~event).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        hit_rate = hits / (hits + misses)
        false_alarm_rate = false_alarms / (false_alarms + correct_negatives)
    return pd.DataFrame(
        {
            "cutoff": cutoffs,
            "hits": hits,
            "misses": misses,
            "false_alarms": false_alarms,
            "correct_negatives": correct_negatives,
            "hit_rate": hit_rate,
            "false_alarm_rate": false_alarm_rate,
            "peirce_skill": hit_rate - false_alarm_rate,
        }
    )
