"""Count distributions and seasonal summaries shared by the models, vectorised over org units.

Counts are drawn from a negative binomial written as a Poisson-gamma mixture: a gamma factor
with mean 1 and variance ``phi`` (the inverse dispersion) scales the Poisson rate, so that
``Var = mu + phi * mu^2``. ``phi = 0`` is the Poisson distribution.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from chaplab.schema import schema_enum

NEGATIVE_BINOMIAL = "negative_binomial"
POISSON = "poisson"
MAX_INVERSE_DISPERSION = 50.0


def distribution_option() -> dict[str, Any]:
    """The ``distribution`` option every model shares."""
    return schema_enum(
        [NEGATIVE_BINOMIAL, POISSON],
        description=(
            "Count distribution of the samples: negative binomial (over-dispersion learnt from "
            "the history) or Poisson"
        ),
        default=NEGATIVE_BINOMIAL,
    )


def fit_inverse_dispersion(observed: np.ndarray, mean: np.ndarray, distribution: str) -> np.ndarray:
    """Moment estimate of ``phi`` per row from ``Var = mu + phi * mu^2``; NaN cells are ignored.

    ``sum((y - mu)^2 - mu) / sum(mu^2)`` over each row's observed cells, clipped to
    ``[0, MAX_INVERSE_DISPERSION]``; rows without observations get the pooled estimate.
    Always 0 for the Poisson distribution.
    """
    rows = observed.shape[0]
    if distribution == POISSON:
        return np.zeros(rows)
    mean = np.broadcast_to(mean, observed.shape)
    usable = ~np.isnan(observed) & ~np.isnan(mean)
    excess = np.where(usable, (np.nan_to_num(observed) - np.nan_to_num(mean)) ** 2 - mean, 0.0)
    scale = np.where(usable, np.nan_to_num(mean) ** 2, 0.0)
    pooled = _clipped_ratio(excess.sum(), scale.sum())
    row_scale = scale.sum(axis=1)
    row_estimate = _clipped_ratio(excess.sum(axis=1), row_scale)
    return np.where(row_scale > 0, row_estimate, pooled)


def sample_counts(
    mean: np.ndarray,
    inverse_dispersion: np.ndarray | float,
    n_samples: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """Draw ``n_samples`` counts per cell; result shape ``(*mean.shape, n_samples)``.

    ``inverse_dispersion`` broadcasts against ``mean``.
    """
    mean_array = np.asarray(mean, dtype=np.float64)
    size = (*mean_array.shape, n_samples)
    phi = np.broadcast_to(np.asarray(inverse_dispersion, dtype=np.float64), mean_array.shape)
    return draw_counts(np.broadcast_to(mean_array[..., None], size), phi[..., None], rng)


def draw_counts(
    mean: np.ndarray, inverse_dispersion: np.ndarray | float, rng: np.random.Generator
) -> np.ndarray:
    """One count per cell of ``mean`` (``inverse_dispersion`` broadcasts against it), as float64."""
    rate = np.maximum(np.asarray(mean, dtype=np.float64), 0.0)
    phi = np.broadcast_to(np.asarray(inverse_dispersion, dtype=np.float64), rate.shape)
    shape = 1.0 / np.maximum(phi, 1e-9)
    gamma_factor = np.where(phi > 0, rng.gamma(shape, 1.0 / shape), 1.0)
    return rng.poisson(rate * gamma_factor).astype(np.float64)


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


def _clipped_ratio(numerator: np.ndarray | float, denominator: np.ndarray | float) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(
            np.asarray(denominator) > 0, numerator / np.maximum(denominator, 1e-300), 0.0
        )
    return np.clip(ratio, 0.0, MAX_INVERSE_DISPERSION)
