"""Several models' quantile forecasts -> one ensemble forecast, per target and quantile level.

Quantile averaging (Vincentization): the ensemble's quantile at level tau is the (weighted) mean,
or the median, of the members' quantiles at tau. Members are evaluation frames by model name
(server evaluations and local backtests alike) with the same quantile levels. Skill weights for
a split come only from targets observed before that split's first forecast period, so an
ensemble is never weighted by the targets it is scored on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from chaplab.errors import ArgumentError, ArgumentTypeError
from chaplab.frames import (
    ORG_UNIT,
    ORG_UNIT_NAME,
    PERIOD,
    QUANTILE,
    SPLIT_PERIOD,
    VALUE,
    periods_from_ordinals,
    with_horizon,
)
from chaplab.scoring._score import score
from chaplab.scoring._skill import pairwise_skill
from chaplab.scoring._targets import MODEL, Forecasts, _Entries, _entries, org_unit_names_of

Method = Literal["mean", "median"]
Weights = Mapping[str, float] | Literal["skill"] | None
METHODS = ("mean", "median")


def ensemble(
    forecasts: Forecasts,
    weights: Weights = None,
    method: Method = "mean",
    drop: bool = False,
    *,
    actuals: pd.DataFrame | None = None,
    metric: str = "wis",
    model_column: str = MODEL,
) -> pd.DataFrame:
    """One evaluation frame combining ``forecasts`` (model name -> frame, or one frame with a
    ``model_column``) target by target and level by level.

    ``method="mean"`` averages each level's values, with equal weights or ``weights``: a
    mapping of every member to a weight >= 0, or ``"skill"``: per split period, weights
    proportional to 1 / each member's relative skill (``metric``, scored against ``actuals``)
    on the targets whose period lies before the split's first forecast period (equal weights
    for a split with no such history for every member). ``method="median"`` takes the median
    of the members' values and no weights. A target (org unit, split period, period) that a
    member lacks is an error naming it, or, with ``drop=True``, left out of the ensemble.
    """
    if method not in METHODS:
        raise ArgumentError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if method == "median" and weights is not None:
        raise ArgumentError("weights apply to method='mean'; method='median' takes none")
    found = _entries(forecasts, model_column)
    keys = np.stack([found.org_unit, found.split_period, found.period], axis=1)
    targets, target = np.unique(keys, axis=0, return_inverse=True)
    grid = _Grid.build(found.models, found.model, target.ravel(), found.level, found.value)
    keep = grid.complete(drop)
    values = grid.values[keep]  # (targets, levels, members)
    targets = targets[keep]
    if method == "median":
        combined = np.median(values, axis=2)
    else:
        member_weights = _weights(weights, forecasts, found, targets, actuals, metric, model_column)
        combined = np.einsum("tlm,tm->tl", values, member_weights)
    count = len(grid.levels)
    labels = found.org_units[targets[:, 0]]
    frame = pd.DataFrame(
        {
            ORG_UNIT: pd.Categorical(np.repeat(labels, count), categories=sorted(set(labels))),
            SPLIT_PERIOD: periods_from_ordinals(np.repeat(targets[:, 1], count), found.dtype.freq),
            PERIOD: periods_from_ordinals(np.repeat(targets[:, 2], count), found.dtype.freq),
            QUANTILE: np.tile(grid.levels, len(targets)),
            VALUE: combined.ravel(),
        }
    )
    order = np.lexsort(
        [
            frame[QUANTILE],
            frame[PERIOD].array.asi8,
            frame[SPLIT_PERIOD].array.asi8,
            frame[ORG_UNIT].cat.codes,
        ]
    )
    frame = with_horizon(frame.take(order).reset_index(drop=True))
    names = org_unit_names_of(forecasts)
    if names is not None:
        frame.insert(1, ORG_UNIT_NAME, frame[ORG_UNIT].map(names).astype("category"))
    return frame


@dataclass(frozen=True)
class _Grid:
    """Every member's values on one grid: ``values[target, level, member]``."""

    models: list[str]
    levels: np.ndarray
    values: np.ndarray

    @classmethod
    def build(
        cls,
        models: list[str],
        model: np.ndarray,
        target: np.ndarray,
        level: np.ndarray,
        value: np.ndarray,
    ) -> _Grid:
        """The grid of the flat entries; ValueError naming a member whose levels differ from
        the first member's, or a member with two values for one target and level."""
        levels = np.unique(level[model == 0])
        for code, name in enumerate(models):
            own = np.unique(level[model == code])
            if not np.array_equal(own, levels):
                raise ArgumentError(
                    f"forecasts[{name!r}] has quantile levels {_text(own)} but "
                    f"forecasts[{models[0]!r}] has {_text(levels)}: quantile averaging needs "
                    "the same levels in every member"
                )
        targets, target_code = np.unique(target, return_inverse=True)
        level_code = np.searchsorted(levels, level)
        flat = (target_code * len(levels) + level_code) * len(models) + model
        if np.unique(flat).size != flat.size:
            duplicate = models[int(model[pd.Index(flat).duplicated()][0])]
            raise ArgumentError(
                f"forecasts[{duplicate!r}] has more than one value for a target and quantile "
                "level; pass one evaluation frame per model"
            )
        grid = np.full(len(targets) * len(levels) * len(models), np.nan)
        grid[flat] = value
        return cls(models, levels, grid.reshape(len(targets), len(levels), len(models)))

    def complete(self, drop: bool) -> np.ndarray:
        """Which targets every member forecasts at every level; ValueError naming the members
        that lack targets (or a level of one), unless ``drop`` leaves those targets out."""
        present = np.isfinite(self.values)
        partial = present.any(axis=1) & ~present.all(axis=1)
        if partial.any():
            member = int(np.argwhere(partial)[0][1])
            raise ArgumentError(
                f"forecasts[{self.models[member]!r}] lacks some quantile levels of a target "
                "that it forecasts; every target needs every level"
            )
        held = present.all(axis=1)  # (targets, members)
        keep: np.ndarray = held.all(axis=1)
        if not drop and not keep.all():
            lacking = [
                f"{name!r} ({int((~held[:, code]).sum())} of {len(keep)})"
                for code, name in enumerate(self.models)
                if not held[:, code].all()
            ]
            raise ArgumentError(
                f"forecasts: member(s) {', '.join(lacking)} lack targets that other members "
                "forecast; pass drop=True to combine only the targets every member has"
            )
        if not keep.any():
            raise ArgumentError("forecasts: the members share no target to combine")
        return keep


def _weights(
    weights: Weights,
    forecasts: Forecasts,
    found: _Entries,
    targets: np.ndarray,
    actuals: pd.DataFrame | None,
    metric: str,
    model_column: str,
) -> np.ndarray:
    """Each target's member weights, ``(targets, members)``, summing to 1 per target."""
    models = found.models
    if weights is None:
        return np.full((len(targets), len(models)), 1.0 / len(models))
    if isinstance(weights, str):
        if weights != "skill":
            raise ArgumentError(f"weights must be a mapping, 'skill' or None, got {weights!r}")
        if actuals is None:
            raise ArgumentError(
                "weights='skill' needs actuals= to score the members' earlier splits"
            )
        return _skill_weights(forecasts, found, targets, actuals, metric, model_column)
    if not isinstance(weights, Mapping):
        raise ArgumentTypeError(
            f"weights must be a mapping of model name to weight, 'skill' or None, got "
            f"{type(weights).__name__}"
        )
    unknown = sorted(set(map(str, weights)) - set(models))
    missing = [name for name in models if name not in weights]
    if unknown or missing:
        raise ArgumentError(
            f"weights must name every member {models} once: "
            + "; ".join(
                part
                for part in (
                    f"unknown {unknown}" if unknown else "",
                    f"missing {missing}" if missing else "",
                )
                if part
            )
        )
    given = np.array([float(weights[name]) for name in models])
    if not np.isfinite(given).all() or (given < 0).any() or given.sum() <= 0:
        raise ArgumentError(f"weights must be finite, >= 0 and not all 0, got {dict(weights)}")
    return np.tile(given / given.sum(), (len(targets), 1))


def _skill_weights(
    forecasts: Forecasts,
    found: _Entries,
    targets: np.ndarray,
    actuals: pd.DataFrame,
    metric: str,
    model_column: str,
) -> np.ndarray:
    """Per split period: weights proportional to 1 / relative skill on the targets observed
    before the split's first forecast period; equal weights where that history does not rate
    every member."""
    models = found.models
    scores = score(forecasts, actuals, model_column=model_column, unmatched="drop")
    scored_period = scores[PERIOD].array.asi8
    split, period = targets[:, 1], targets[:, 2]
    result = np.full((len(targets), len(models)), 1.0 / len(models))
    for split_ordinal in np.unique(split):
        rows = split == split_ordinal
        first_forecast = period[rows].min()
        history = scores[scored_period < first_forecast]
        if history.empty:
            continue
        skill = pairwise_skill(history, metric)
        rated = np.array([skill.get(name, np.nan) for name in models])
        if np.isfinite(rated).all() and (rated > 0).all():
            inverse = 1.0 / rated
            result[rows] = inverse / inverse.sum()
    return result


def _text(levels: np.ndarray) -> str:
    return "[" + ", ".join(f"{q:g}" for q in levels) + "]"
