"""Forecasts of ordered categories (a hub's pmf output) scored by the ranked probability score.

For K ordered categories with forecast probabilities p_1 ... p_K and the observed category y,
``RPS = sum_k (F_k - 1{y <= k})^2`` with ``F_k = p_1 + ... + p_k`` (Epstein 1969): 0 for all
the probability on the observed category, up to K - 1 for all of it on the farthest one.
Unscaled, as scoringutils and scoringrules compute it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from chaplab.errors import ArgumentError
from chaplab.frames import (
    ORG_UNIT,
    ORG_UNIT_NAME,
    PERIOD,
    SPLIT_PERIOD,
    period_label,
    require_frame_columns,
    with_horizon,
)
from chaplab.scoring._targets import MODEL, Unmatched

CATEGORY = "category"
PROBABILITY = "probability"
RPS = "rps"
SUM_TOLERANCE = 0.01
"""A target's probabilities must add up to 1 within this (hubs round them)."""


def ranked_probability_score(observed: np.ndarray, probabilities: np.ndarray) -> np.ndarray:
    """The RPS of each row of ``probabilities`` (shape ``(n, K)``, categories in their order)
    for the observed category's position ``observed`` (shape ``(n,)``, from 0)."""
    p = np.asarray(probabilities, dtype=np.float64)
    y = np.asarray(observed)
    if p.ndim != 2 or y.shape != (p.shape[0],):
        raise ArgumentError(
            f"probabilities must have shape (n, K) and observed (n,), got {p.shape} and {y.shape}"
        )
    if ((y < 0) | (y >= p.shape[1])).any():
        raise ArgumentError(f"observed: category positions must lie in 0..{p.shape[1] - 1}")
    cumulative = np.cumsum(p, axis=1)
    outcome = (np.arange(p.shape[1])[None, :] >= y[:, None]).astype(np.float64)
    score: np.ndarray = ((cumulative - outcome) ** 2).sum(axis=1)
    return score


def score_pmf(
    forecasts: pd.DataFrame,
    observed: pd.DataFrame,
    *,
    model_column: str = MODEL,
    unmatched: Unmatched = "raise",
) -> pd.DataFrame:
    """One row per model and forecast target with its ranked probability score ``rps``.

    ``forecasts`` has ``model``, ``org_unit``, ``split_period``, ``period``, ``category`` (an
    ordered categorical: the categories' ranking) and ``probability``, as
    :func:`chaplab.hubs.read_forecasts` gives a hub's pmf output; ``observed`` has
    ``org_unit``, ``period`` and the ``category`` that happened
    (:func:`chaplab.hubs.read_target_data`). A target lacking a category, or whose
    probabilities do not add up to 1, is an error naming it; a target without an observation
    too, or with ``unmatched="drop"`` left out. The result works with ``summarise`` and
    ``relative_skill(..., metric="rps")``.
    """
    columns = [model_column, ORG_UNIT, SPLIT_PERIOD, PERIOD, CATEGORY, PROBABILITY]
    require_frame_columns(forecasts, columns, "forecasts", ": pass HubForecasts.pmf")
    require_frame_columns(observed, [ORG_UNIT, PERIOD, CATEGORY], "observed", "")
    categories = _ranking(forecasts[CATEGORY])
    keys = [model_column, ORG_UNIT, SPLIT_PERIOD, PERIOD]
    codes, targets = pd.factorize(pd.MultiIndex.from_frame(forecasts[keys].astype(object)))
    grid = np.full((len(targets), len(categories)), np.nan)
    position = pd.Categorical(forecasts[CATEGORY], categories=categories).codes
    grid[codes, position] = forecasts[PROBABILITY].to_numpy(dtype=np.float64)
    frame = pd.DataFrame(list(targets), columns=keys)
    _check_grid(grid, frame, categories)
    seen = pd.Categorical(observed[CATEGORY].astype(str), categories=categories).codes
    lookup = dict(
        zip(
            zip(observed[ORG_UNIT].astype(str), observed[PERIOD], strict=True),
            seen,
            strict=True,
        )
    )
    found = np.array(
        [lookup.get((str(u), p), -1) for u, p in zip(frame[ORG_UNIT], frame[PERIOD], strict=True)]
    )
    if (found < 0).any():
        first = int(np.flatnonzero(found < 0)[0])
        if unmatched == "raise":
            raise ArgumentError(
                f"observed has no category for org unit {frame[ORG_UNIT][first]!r} in "
                f"{period_label(frame[PERIOD][first])}; pass unmatched='drop' to score the "
                "observed ones only"
            )
        grid, frame, found = grid[found >= 0], frame[found >= 0], found[found >= 0]
    result = frame.reset_index(drop=True).rename(columns={model_column: MODEL})
    result[SPLIT_PERIOD] = pd.PeriodIndex(result[SPLIT_PERIOD])
    result[PERIOD] = pd.PeriodIndex(result[PERIOD])
    result = with_horizon(result)
    if ORG_UNIT_NAME in forecasts.columns:
        names = dict(zip(forecasts[ORG_UNIT].astype(str), forecasts[ORG_UNIT_NAME], strict=True))
        result.insert(2, ORG_UNIT_NAME, [names[str(u)] for u in result[ORG_UNIT]])
    result[RPS] = ranked_probability_score(found, grid)
    return result


def _ranking(column: pd.Series) -> list[str]:
    """The categories in their order; ArgumentError for a column that has none."""
    if not (isinstance(column.dtype, pd.CategoricalDtype) and column.cat.ordered):
        raise ArgumentError(
            "forecasts: 'category' must be an ordered categorical (the categories' ranking), "
            "as HubForecasts.pmf has it"
        )
    return [str(c) for c in column.cat.categories]


def _check_grid(grid: np.ndarray, targets: pd.DataFrame, categories: list[str]) -> None:
    """ArgumentError naming a target lacking a category or not adding up to 1."""
    missing = np.isnan(grid)
    if missing.any():
        row, column = (int(i[0]) for i in np.nonzero(missing))
        raise ArgumentError(
            f"forecasts: the target {_target(targets, row)} has no probability for "
            f"category {categories[column]!r}"
        )
    off = np.abs(grid.sum(axis=1) - 1.0) > SUM_TOLERANCE
    if off.any():
        row = int(np.flatnonzero(off)[0])
        raise ArgumentError(
            f"forecasts: the probabilities of the target {_target(targets, row)} add up to "
            f"{grid[row].sum():g}, not 1"
        )


def _target(targets: pd.DataFrame, row: int) -> str:
    values = targets.iloc[row]
    return ", ".join(f"{name} {value}" for name, value in values.items())
