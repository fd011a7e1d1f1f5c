"""Quantiles of forecast samples: the one interpolation the embedded service and local backtests
(``chaplab.backtest``) use, so that the same samples give the same quantiles on both sides.

numpy only, so that the client side imports it without the service extra.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def quantiles_from_sorted(
    sorted_samples: np.ndarray, levels: Sequence[float] | np.ndarray
) -> np.ndarray:
    """Quantiles at ``levels`` from samples sorted along the last axis.

    Linear interpolation between order statistics, identical to ``np.quantile``'s default
    method. Returns shape ``(*cells, len(levels))``.
    """
    samples = np.asarray(sorted_samples)
    level_array = np.atleast_1d(np.asarray(levels, dtype=np.float64))
    if level_array.ndim != 1:
        raise ValueError("quantile levels must be a flat list of numbers")
    if not np.all((level_array >= 0.0) & (level_array <= 1.0)):
        bad = level_array[~((level_array >= 0.0) & (level_array <= 1.0))]
        raise ValueError(f"quantile level {bad[0]!r} is outside [0, 1]")
    n_samples = samples.shape[-1]
    if n_samples == 0:
        raise ValueError("samples: need at least one sample per cell")
    position = level_array * (n_samples - 1)
    below = np.floor(position).astype(np.intp)
    above = np.minimum(below + 1, n_samples - 1)
    fraction = position - below
    lower_values = samples[..., below].astype(np.float64)
    upper_values = samples[..., above].astype(np.float64)
    interpolated: np.ndarray = lower_values + (upper_values - lower_values) * fraction
    return interpolated
