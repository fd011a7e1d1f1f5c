"""Relative skill of several models: pairwise ratios of mean scores on shared targets.

For models A and B, theta_AB is A's mean score over the targets both have divided by B's mean
over the same targets. A model's skill is the geometric mean of its theta against every model
with which it shares a target, itself included (theta_AA = 1), divided by the baseline's (NaN for
a model that shares no target with another): so when
all models have the same targets it is the plain ratio of its mean score to the baseline's
(scoringutils' pairwise comparison, Cramer et al. 2022).

Everything a bootstrap replicate needs is summed once per cluster (org unit x split period):
``sums[c, a, b]`` is the sum of A's scores over the targets of cluster c that B has too, so a
replicate, a multiset of clusters, is a matrix product of cluster counts with ``sums`` (the
targets' counts cancel in theta). No Python loop runs per target or per replicate.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from chaplab.errors import ArgumentError, ArgumentTypeError
from chaplab.frames import ORG_UNIT, PERIOD, SPLIT_PERIOD, require_frame_columns
from chaplab.scoring._targets import MODEL, SCALE

RELATIVE_SKILL = "relative_skill"
LOWER = "lower"
UPPER = "upper"
MEAN_SCORE = "mean_score"
TARGETS = "n_targets"
RANK = "rank"
BASELINE = "baseline"
METRIC = "metric"
SIGNED_METRICS = ("bias",)
REPLICATES_PER_BATCH = 64


def relative_skill(
    scores: pd.DataFrame,
    baseline: str,
    *,
    metric: str = "wis",
    n_bootstrap: int = 1000,
    level: float = 0.9,
    seed: int = 0,
) -> pd.DataFrame:
    """Each model's skill relative to ``baseline`` (below 1: better), best first.

    ``scores`` is a frame from :func:`score` (one scale); ``metric`` a score where lower is
    better and no value is negative. The ``level`` interval (``lower``, ``upper``) comes from
    ``n_bootstrap`` replicates that resample whole forecast clusters (org unit x split period)
    with replacement, drawn from ``numpy.random.default_rng(seed)``: the same call gives the
    same numbers. Columns: ``rank``, ``model``, ``relative_skill``, ``lower``, ``upper``,
    ``mean_score`` (over all the model's targets), ``n_targets``, ``baseline`` (True for the
    baseline's row) and ``metric``.
    """
    _check_arguments(scores, baseline, metric, n_bootstrap, level)
    table = _ScoreTable.build(scores, metric)
    if baseline not in table.models:
        raise ArgumentError(f"baseline {baseline!r} is not among the scored models {table.models}")
    base = table.models.index(baseline)
    if table.shared[base].sum() <= 1:
        raise ArgumentError(
            f"baseline {baseline!r} shares no forecast target (org unit, split period, period) "
            "with any other model in scores, so no model can be compared with it"
        )
    sums = table.cluster_sums()
    point = _skill(sums.sum(axis=0)[None], table.shared, base)[0]
    draws = _bootstrap(sums, table.shared, base, n_bootstrap, seed)
    tail = (1.0 - level) / 2.0
    with warnings.catch_warnings():  # a model without skill has only NaN draws
        warnings.simplefilter("ignore", RuntimeWarning)
        lower, upper = (np.nanquantile(draws, q, axis=0) for q in (tail, 1.0 - tail))
    result = pd.DataFrame(
        {
            MODEL: table.models,
            RELATIVE_SKILL: point,
            LOWER: lower,
            UPPER: upper,
            MEAN_SCORE: np.nanmean(table.values, axis=0),
            TARGETS: table.present.sum(axis=0),
            BASELINE: [name == baseline for name in table.models],
            METRIC: metric,
        }
    )
    result = result.sort_values([RELATIVE_SKILL, MODEL], kind="stable", ignore_index=True)
    result.insert(0, RANK, np.arange(1, len(result) + 1))
    return result


def _check_arguments(
    scores: pd.DataFrame, baseline: str, metric: str, n_bootstrap: int, level: float
) -> None:
    columns = (MODEL, ORG_UNIT, SPLIT_PERIOD, PERIOD)
    require_frame_columns(scores, columns, "scores", ": pass the frame score() returns")
    if scores.empty:
        raise ArgumentError("scores is empty: there is no scored target to rank models on")
    if metric not in scores.columns or not pd.api.types.is_numeric_dtype(scores[metric]):
        raise ArgumentError(f"metric: scores has no numeric column {metric!r}")
    if metric in SIGNED_METRICS or metric.startswith("interval_coverage"):
        raise ArgumentError(
            f"metric {metric!r} is not a score where lower is better; choose one such as "
            "'wis' or 'ae_median'"
        )
    if (scores[metric] < 0).any():
        raise ArgumentError(
            f"metric {metric!r} has negative values; relative skill needs scores >= 0"
        )
    if SCALE in scores.columns and scores[SCALE].nunique() > 1:
        raise ArgumentError(
            f"scores hold the scales {sorted(scores[SCALE].astype(str).unique())}: select one"
        )
    if isinstance(n_bootstrap, bool) or not isinstance(n_bootstrap, int) or n_bootstrap < 1:
        raise ArgumentError(f"n_bootstrap must be a positive integer, got {n_bootstrap!r}")
    if not 0 < level < 1:
        raise ArgumentError(f"level must be between 0 and 1 (e.g. 0.9), got {level!r}")
    if not isinstance(baseline, str):
        raise ArgumentTypeError(f"baseline must be a model name, got {type(baseline).__name__}")


@dataclass(frozen=True)
class _ScoreTable:
    """Scores as a (targets, models) matrix, NaN where a model lacks a target, and each
    target's cluster."""

    models: list[str]
    values: np.ndarray
    cluster: np.ndarray
    n_clusters: int

    @property
    def present(self) -> np.ndarray:
        present: np.ndarray = np.isfinite(self.values)
        return present

    @property
    def shared(self) -> np.ndarray:
        """Whether models a and b share at least one target, ``(models, models)``."""
        present = self.present.astype(np.float64)
        return (present.T @ present) > 0

    @classmethod
    def build(cls, scores: pd.DataFrame, metric: str) -> _ScoreTable:
        model = scores[MODEL]
        if isinstance(model.dtype, pd.CategoricalDtype):
            model = model.cat.remove_unused_categories()
        model_codes, model_names = pd.factorize(model, sort=False)
        org_unit, split, period = (
            _codes(scores[name]) for name in (ORG_UNIT, SPLIT_PERIOD, PERIOD)
        )
        cluster_key = org_unit * (split.max() + 1) + split
        target_key = cluster_key * (period.max() + 1) + period
        target, target_keys = pd.factorize(target_key)
        n_models = len(model_names)
        flat = target.astype(np.int64) * n_models + model_codes
        if np.bincount(flat, minlength=len(target_keys) * n_models).max() > 1:
            raise ArgumentError(
                "scores has more than one row for a model and target (org unit, split period, "
                "period): pass one scale of one score() call"
            )
        values = np.full(len(target_keys) * n_models, np.nan)
        values[flat] = scores[metric].to_numpy(np.float64)
        cluster, cluster_keys = pd.factorize(target_keys // (period.max() + 1))
        return cls(
            [str(name) for name in model_names],
            values.reshape(len(target_keys), n_models),
            cluster.astype(np.int64),
            len(cluster_keys),
        )

    def cluster_sums(self) -> np.ndarray:
        """``sums[c, a, b]``: sum of model a's scores over cluster c's targets that b has."""
        present = self.present
        filled = np.where(present, self.values, 0.0)
        pairs = filled[:, :, None] * present[:, None, :]
        order = np.argsort(self.cluster, kind="stable")
        starts = np.flatnonzero(np.r_[True, np.diff(self.cluster[order]) != 0])
        return np.add.reduceat(pairs[order], starts, axis=0)


def _codes(column: pd.Series) -> np.ndarray:
    """Small non-negative integers that tell the column's values apart: categorical codes,
    period ordinals from the smallest, or factorize codes."""
    codes: np.ndarray
    if isinstance(column.dtype, pd.CategoricalDtype):
        codes = column.cat.codes.to_numpy().astype(np.int64)
    elif isinstance(column.dtype, pd.PeriodDtype):
        ordinals = np.asarray(column.array.asi8, dtype=np.int64)
        codes = ordinals - ordinals.min()
    else:
        codes = pd.factorize(column)[0].astype(np.int64)
    return codes


def pairwise_skill(scores: pd.DataFrame, metric: str = "wis") -> dict[str, float]:
    """Each model's geometric mean of theta against every model it shares a target with (the
    relative skill before dividing by a baseline's; NaN for a model that shares none)."""
    table = _ScoreTable.build(scores, metric)
    geometric = _geometric(table.cluster_sums().sum(axis=0)[None], table.shared)[0]
    return dict(zip(table.models, geometric.tolist(), strict=True))


def _geometric(sums: np.ndarray, shared: np.ndarray) -> np.ndarray:
    """Each model's geometric mean of theta from summed scores ``(replicates, models, models)``."""
    with np.errstate(all="ignore"):
        theta = sums / np.swapaxes(sums, 1, 2)
        logs = np.where(shared, np.log(theta), np.nan)
        logs[:, np.arange(len(shared)), np.arange(len(shared))] = 0.0
        geometric: np.ndarray = np.exp(np.nanmean(logs, axis=2))
    alone = shared.sum(axis=1) <= 1  # shares targets with no other model: no comparison
    geometric[:, alone] = np.nan
    return geometric


def _skill(sums: np.ndarray, shared: np.ndarray, base: int) -> np.ndarray:
    """Relative skill from summed scores ``(replicates, models, models)``."""
    geometric = _geometric(sums, shared)
    with np.errstate(all="ignore"):
        skill: np.ndarray = geometric / geometric[:, base : base + 1]
    return skill


def _bootstrap(
    sums: np.ndarray, shared: np.ndarray, base: int, n_bootstrap: int, seed: int
) -> np.ndarray:
    """Relative skill in each of ``n_bootstrap`` replicates of resampled clusters."""
    rng = np.random.default_rng(seed)
    n_clusters, n_models, _ = sums.shape
    flat = sums.reshape(n_clusters, n_models * n_models)
    draws = []
    for start in range(0, n_bootstrap, REPLICATES_PER_BATCH):
        batch = min(REPLICATES_PER_BATCH, n_bootstrap - start)
        picked = rng.integers(0, n_clusters, size=(batch, n_clusters), dtype=np.int32)
        offsets = np.arange(batch, dtype=np.int32)[:, None] * n_clusters
        counts = np.bincount((picked + offsets).ravel(), minlength=batch * n_clusters)
        weights = counts.reshape(batch, n_clusters).astype(np.float64)
        draws.append(_skill((weights @ flat).reshape(batch, n_models, n_models), shared, base))
    return np.concatenate(draws)
