"""Seasonal means and the future covariates a forecast gets without future values: the one rule
of the embedded service's models, its model services' backtests and local backtests
(``chaplab.backtest``).

numpy only, so that the client side imports it without the service extra. Arrays are
``(rows, periods)`` (a row per org unit), NaN where nothing was observed; a period's season
position is :func:`chaplab.vocabulary.season_position`.
"""

from __future__ import annotations

import numpy as np


def seasonal_means(values: np.ndarray, positions: np.ndarray, season_length: int) -> np.ndarray:
    """Mean per row and season position, shape ``(rows, season_length)``, NaN-ignoring.

    A position never observed in a row takes the row's mean; a row never observed takes the
    mean of all rows.
    """
    one_hot = (positions[:, None] == np.arange(season_length)[None, :]).astype(np.float64)
    observed = ~np.isnan(values)
    sums = np.where(observed, values, 0.0) @ one_hot
    counts = observed.astype(np.float64) @ one_hot
    row_mean = row_means(values)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = sums / counts
    return np.where(counts > 0, means, row_mean[:, None])


def row_means(values: np.ndarray) -> np.ndarray:
    """NaN-ignoring mean of every row; rows without observations take the overall mean."""
    observed = ~np.isnan(values)
    counts = observed.sum(axis=1)
    sums = np.where(observed, values, 0.0).sum(axis=1)
    overall = sums.sum() / counts.sum() if counts.sum() else 0.0
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, sums / np.maximum(counts, 1), overall)


def fill_with_climatology(
    values: np.ndarray, positions: np.ndarray, climatology: np.ndarray
) -> np.ndarray:
    """``values`` with every NaN replaced by the row's climatology at that season position."""
    return np.where(np.isnan(values), climatology[:, positions], values)


def future_values(
    history: np.ndarray,
    history_positions: np.ndarray,
    season_length: int,
    future_positions: np.ndarray,
    given: np.ndarray | None = None,
) -> np.ndarray:
    """A covariate's values in the periods after ``history`` as a model gets them: ``given``
    (the window's own values, a look-ahead) where there are some, else each row's mean of that
    season position over the history (climatology)."""
    climatology = seasonal_means(history, history_positions, season_length)
    known = given if given is not None else np.full((len(history), len(future_positions)), np.nan)
    return fill_with_climatology(known, future_positions, climatology)
