"""Count distributions shared by the models, vectorised over org units, and the seasonal
summaries of :mod:`chaplab.climatology` (written there, shared with local backtests).

Counts are drawn from a negative binomial written as a Poisson-gamma mixture: a gamma factor
with mean 1 and variance ``phi`` (the inverse dispersion) scales the Poisson rate, so that
``Var = mu + phi * mu^2``. ``phi = 0`` is the Poisson distribution.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from chaplab.climatology import fill_with_climatology as fill_with_climatology
from chaplab.climatology import row_means as row_means
from chaplab.climatology import seasonal_means as seasonal_means
from chaplab.schema import schema_enum

NEGATIVE_BINOMIAL = "negative_binomial"
POISSON = "poisson"
MAX_INVERSE_DISPERSION = 50.0


def distribution_option(default: str = NEGATIVE_BINOMIAL) -> dict[str, Any]:
    """The ``distribution`` option every model shares, with the model's ``default``."""
    return schema_enum(
        [NEGATIVE_BINOMIAL, POISSON],
        description=(
            "Count distribution of the samples: negative binomial (over-dispersion learnt from "
            "the history) or Poisson"
        ),
        default=default,
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


def _clipped_ratio(numerator: np.ndarray | float, denominator: np.ndarray | float) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(
            np.asarray(denominator) > 0, numerator / np.maximum(denominator, 1e-300), 0.0
        )
    return np.clip(ratio, 0.0, MAX_INVERSE_DISPERSION)
