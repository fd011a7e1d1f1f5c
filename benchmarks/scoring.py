"""Figure 9, scoring: ``chaplab.scoring.score`` and ``relative_skill`` (1,000 bootstrap
replicates) of 999,900 entries, 6 models x 1,111 org units x 10 splits x 3 periods x 5 quantiles,
against the plain pandas way of computing the same numbers: a merge with the actual cases, the
weighted interval score's parts per row and a groupby sum per target; then, for relative skill,
the scores pivoted to one column per model, each pair's ratio of means on the targets both have,
per-cluster sums by groupby and a loop over replicates of resampled clusters.

Both paths start from the same tidy frames (one per model) and must agree: mean WIS per model
and relative skill to 1e-9. Target: chaplab at least 3x faster. Medians of 3 runs.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from benchmarks.results import Result, faster, reported
from benchmarks.timing import median_time
from chaplab.frames import ORG_UNIT, PERIOD, QUANTILE, SPLIT_PERIOD, VALUE
from chaplab.scoring import relative_skill, score

MODELS = ("naive", "seasonal_median", "global_median", "persistence", "regression", "ar")
ORG_UNITS = 1_111
SPLITS = 10
PERIODS = 3
LEVELS = np.array([0.1, 0.25, 0.5, 0.75, 0.9])
Z = np.array([-1.2815516, -0.6744898, 0.0, 0.6744898, 1.2815516])
BOOTSTRAP = 1000
BASELINE = "naive"
FACTOR = 3.0
TARGET_KEYS = [ORG_UNIT, SPLIT_PERIOD, PERIOD]
Frames = dict[str, pd.DataFrame]


def inputs() -> tuple[Frames, pd.DataFrame]:
    """Six models' evaluation frames (normal forecasts of different centre and spread, sorted
    as chaplab.frames sorts them) and the actual cases."""
    rng = np.random.default_rng(9)
    start = pd.Period("2015-01", "M")
    units = pd.Index([f"OU{unit:05d}" for unit in range(ORG_UNITS)])
    history = SPLITS + PERIODS + 1
    truth = rng.gamma(4.0, 25.0, (ORG_UNITS, history))
    unit, split, step = (
        grid.ravel()
        for grid in np.meshgrid(
            np.arange(ORG_UNITS), np.arange(SPLITS), np.arange(1, PERIODS + 1), indexing="ij"
        )
    )
    rows = len(unit) * len(LEVELS)
    frames = {}
    for index, model in enumerate(MODELS):
        centre = truth[unit, split + step] * rng.normal(1.0 + 0.03 * index, 0.2, len(unit))
        spread = centre * (0.1 + 0.08 * index)
        values = np.maximum(centre[:, None] + spread[:, None] * Z, 0.0)
        frames[model] = pd.DataFrame(
            {
                ORG_UNIT: pd.Categorical.from_codes(np.repeat(unit, len(LEVELS)), units),
                SPLIT_PERIOD: pd.PeriodIndex.from_ordinals(
                    np.repeat(start.ordinal + split, len(LEVELS)), freq="M"
                ),
                PERIOD: pd.PeriodIndex.from_ordinals(
                    np.repeat(start.ordinal + split + step, len(LEVELS)), freq="M"
                ),
                QUANTILE: np.tile(LEVELS, len(unit)),
                VALUE: values.ravel(),
            },
            index=pd.RangeIndex(rows),
        )
    cells = np.arange(ORG_UNITS * history)
    actuals = pd.DataFrame(
        {
            ORG_UNIT: pd.Categorical.from_codes(cells // history, units),
            PERIOD: pd.PeriodIndex.from_ordinals(start.ordinal + cells % history, freq="M"),
            VALUE: truth.ravel(),
        }
    )
    return frames, actuals


def with_chaplab(frames: Frames, actuals: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    """Mean WIS and relative skill per model."""
    scores = score(frames, actuals)
    skill = relative_skill(scores, baseline=BASELINE, n_bootstrap=BOOTSTRAP)
    means = scores.groupby("model", observed=True)["wis"].mean()
    return means, skill.set_index("model")["relative_skill"]


def with_pandas(frames: Frames, actuals: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    """The same numbers the plain pandas way (see the module's docstring)."""
    long = pd.concat([frame.assign(model=name) for name, frame in frames.items()])
    merged = long.merge(actuals.rename(columns={VALUE: "observed"}), on=[ORG_UNIT, PERIOD])
    q, v, y = merged[QUANTILE], merged[VALUE], merged["observed"]
    scale = 1.0 / ((len(LEVELS) - 1) / 2 + 0.5)
    median = q == 0.5
    merged["dispersion"] = np.sign(q - 0.5) * np.minimum(q, 1 - q) * v * scale
    merged["overprediction"] = (
        np.where(q <= 0.5, (v - y).clip(lower=0), 0) * np.where(median, 0.5, 1.0) * scale
    )
    merged["underprediction"] = (
        np.where(q >= 0.5, (y - v).clip(lower=0), 0) * np.where(median, 0.5, 1.0) * scale
    )
    parts = ["dispersion", "overprediction", "underprediction"]
    scores = merged.groupby(["model", *TARGET_KEYS], observed=True)[parts].sum()
    scores["wis"] = scores[parts].sum(axis=1)
    means = scores.groupby(level="model")["wis"].mean()
    table = scores["wis"].unstack("model")
    return means, _pandas_skill(table)


def _pandas_skill(table: pd.DataFrame) -> pd.Series:
    """Relative skill from a (targets, models) table of WIS, with the same bootstrap."""
    models = list(table.columns)
    pairs = list(itertools.product(models, models))
    shared = pd.DataFrame({f"{a}|{b}": table[a].where(table[b].notna()) for a, b in pairs})
    cluster_sums = shared.groupby(level=[ORG_UNIT, SPLIT_PERIOD], observed=True).sum()
    point = _skill_from_sums(cluster_sums.sum(), models)
    rng = np.random.default_rng(0)
    for _ in range(BOOTSTRAP):  # the intervals, which the comparison leaves unchecked
        picked = rng.integers(0, len(cluster_sums), len(cluster_sums))
        _skill_from_sums(cluster_sums.iloc[picked].sum(), models)
    return point


def _skill_from_sums(sums: pd.Series, models: list[str]) -> pd.Series:
    geometric = pd.Series(
        {
            a: np.exp(np.mean([np.log(sums[f"{a}|{b}"] / sums[f"{b}|{a}"]) for b in models]))
            for a in models
        }
    )
    return geometric / geometric[BASELINE]


def run() -> list[Result]:
    frames, actuals = inputs()
    entries = sum(len(frame) for frame in frames.values())
    ours = with_chaplab(frames, actuals)
    theirs = with_pandas(frames, actuals)
    for mine, plain, what in zip(ours, theirs, ("mean WIS", "relative skill"), strict=True):
        gap = (mine - plain.reindex(mine.index)).abs().max()
        if not gap < 1e-9:
            raise AssertionError(f"{what} differs from the pandas way by {gap}")
    chaplab_time = median_time(lambda: with_chaplab(frames, actuals), 3)
    pandas_time = median_time(lambda: with_pandas(frames, actuals), 3)
    label = f"{entries / 1e6:.1f}M entries, 6 models"
    return [
        faster(
            f"9 score + relative skill vs pandas, {label}",
            chaplab_time,
            pandas_time,
            FACTOR,
            "s",
            "pandas groupby",
            note=f"{BOOTSTRAP} bootstrap replicates; same numbers to 1e-9",
        ),
        reported(f"9 score alone, {label}", median_time(lambda: score(frames, actuals), 3), "s"),
    ]
