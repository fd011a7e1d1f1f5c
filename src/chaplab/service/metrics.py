"""Probabilistic forecast metrics computed from samples, vectorised over cells.

``samples`` has shape ``(*cells, n_samples)`` and ``truth`` has shape ``cells``. Cells whose truth
is NaN (not observed) are left out of every mean. Each metric averages over the cell axes given
by ``axis`` (default: all cells) and returns a float, or an array when some axes remain.

- ``crps``: continuous ranked probability score of the empirical sample distribution, computed
  from sorted samples in O(n log n) time and O(n) memory per cell:
  ``mean|x_i - y| - (1 / n^2) * sum_i (2i - n - 1) x_(i)``.
- ``mae``: absolute error of the sample median; ``rmse``: root mean squared error of the sample
  mean (each the point forecast that its loss rewards).
- ``coverage``: share of truths inside the ``[lo, hi]`` quantile interval.
- ``winkler``: interval score of the central interval with ``alpha = 1 - (hi - lo)``: width plus
  ``2 / alpha`` times the distance by which the truth falls outside.
"""

from __future__ import annotations

import numpy as np

from chaplab.quantiles import quantiles_from_sorted as quantiles_from_sorted  # re-exported

Axis = int | tuple[int, ...] | None

INTERVALS: dict[str, tuple[float, float]] = {"10_90": (0.1, 0.9), "25_75": (0.25, 0.75)}
CELL_BLOCK_VALUES = 1 << 17
METRIC_NAMES: tuple[str, ...] = (
    "crps",
    "mae",
    "rmse",
    *(f"coverage_{name}" for name in INTERVALS),
    *(f"winkler_score_{name}" for name in INTERVALS),
)
_CELL_SCORE_NAMES: tuple[str, ...] = tuple(
    "squared_error" if name == "rmse" else name for name in METRIC_NAMES
)


def crps_cells(samples: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """CRPS of every cell (NaN where truth is NaN)."""
    sorted_samples, truth_array = _prepare(samples, truth)
    return _crps_sorted(sorted_samples, truth_array)


def crps(samples: np.ndarray, truth: np.ndarray, axis: Axis = None) -> float | np.ndarray:
    """Mean CRPS over the cells on ``axis``."""
    return _mean_over_cells(crps_cells(samples, truth), axis)


def mae(samples: np.ndarray, truth: np.ndarray, axis: Axis = None) -> float | np.ndarray:
    """Mean absolute error of the sample median."""
    sorted_samples, truth_array = _prepare(samples, truth)
    return _mean_over_cells(_absolute_error_sorted(sorted_samples, truth_array), axis)


def rmse(samples: np.ndarray, truth: np.ndarray, axis: Axis = None) -> float | np.ndarray:
    """Root mean squared error of the sample mean."""
    sample_array, truth_array = _validated(samples, truth)
    squared_error = (sample_array.mean(axis=-1, dtype=np.float64) - truth_array) ** 2
    return _square_root(_mean_over_cells(squared_error, axis))


def coverage(
    samples: np.ndarray, truth: np.ndarray, lo: float, hi: float, axis: Axis = None
) -> float | np.ndarray:
    """Share of truths within the quantile interval ``[lo, hi]``."""
    sorted_samples, truth_array = _prepare(samples, truth)
    lower, upper = _interval(sorted_samples, lo, hi)
    return _mean_over_cells(_covered(lower, upper, truth_array), axis)


def winkler(
    samples: np.ndarray, truth: np.ndarray, lo: float, hi: float, axis: Axis = None
) -> float | np.ndarray:
    """Mean Winkler (interval) score of the quantile interval ``[lo, hi]``."""
    sorted_samples, truth_array = _prepare(samples, truth)
    lower, upper = _interval(sorted_samples, lo, hi)
    return _mean_over_cells(_winkler_cells(lower, upper, truth_array, 1.0 - (hi - lo)), axis)


def aggregate_metrics(
    samples: np.ndarray, truth: np.ndarray, axis: Axis = None, presorted: bool = False
) -> dict[str, float | np.ndarray]:
    """All metrics in ``METRIC_NAMES`` over the cells on ``axis``; sorts the samples once.

    ``presorted=True`` skips the sort for samples already sorted along the last axis.
    """
    sample_array, truth_array = _validated(samples, truth)
    sorted_samples = sample_array if presorted else np.sort(sample_array, axis=-1)
    return summarise_cells(cell_metrics_sorted(sorted_samples, truth_array), axis)


def summarise_cells(
    cell_scores: dict[str, np.ndarray], axis: Axis = None
) -> dict[str, float | np.ndarray]:
    """The metrics in ``METRIC_NAMES`` from :func:`cell_metrics_sorted`'s scores over ``axis``.

    Lets a caller score the cells once and summarise them along several axes.
    """
    result = {name: _mean_over_cells(values, axis) for name, values in cell_scores.items()}
    result["rmse"] = _square_root(result.pop("squared_error"))
    return {name: result[name] for name in METRIC_NAMES}


def finite_metrics(metrics: dict[str, float]) -> dict[str, float | None]:
    """Metrics for JSON: a metric without any observed cell (NaN) becomes null."""
    return {name: (float(value) if np.isfinite(value) else None) for name, value in metrics.items()}


def cell_metrics_sorted(sorted_samples: np.ndarray, truth: np.ndarray) -> dict[str, np.ndarray]:
    """Per-cell scores from sorted samples (``mae``: absolute error, ``squared_error``).

    Cells are scored in blocks of about ``CELL_BLOCK_VALUES`` sample values, so that the
    float64 temporaries stay in the CPU cache and the time grows linearly with the cells.
    """
    truth_array = np.asarray(truth, dtype=np.float64)
    n_samples = sorted_samples.shape[-1]
    flat_samples = sorted_samples.reshape(-1, n_samples)
    flat_truth = truth_array.reshape(-1)
    scores = {name: np.empty(flat_truth.shape) for name in _CELL_SCORE_NAMES}
    block = max(1, CELL_BLOCK_VALUES // n_samples)
    for start in range(0, flat_truth.size, block):
        stop = min(start + block, flat_truth.size)
        block_scores = _block_scores(flat_samples[start:stop], flat_truth[start:stop])
        for name, values in block_scores.items():
            scores[name][start:stop] = values
    return {name: values.reshape(truth_array.shape) for name, values in scores.items()}


def _block_scores(sorted_samples: np.ndarray, truth: np.ndarray) -> dict[str, np.ndarray]:
    samples64 = sorted_samples.astype(np.float64)
    scores = {
        "crps": _crps_sorted(samples64, truth),
        "mae": _absolute_error_sorted(samples64, truth),
        "squared_error": (samples64.mean(axis=-1) - truth) ** 2,
    }
    for name, (lo, hi) in INTERVALS.items():
        lower, upper = _interval(samples64, lo, hi)
        scores[f"coverage_{name}"] = _covered(lower, upper, truth)
        scores[f"winkler_score_{name}"] = _winkler_cells(lower, upper, truth, 1.0 - (hi - lo))
    return scores


def _validated(samples: np.ndarray, truth: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    sample_array = np.asarray(samples)
    truth_array = np.asarray(truth, dtype=np.float64)
    if sample_array.ndim < 1 or sample_array.shape[-1] == 0:
        raise ValueError("samples: need a last axis with at least one sample")
    if sample_array.shape[:-1] != truth_array.shape:
        raise ValueError(
            f"samples of shape {sample_array.shape} do not match truth of shape "
            f"{truth_array.shape}: "
            "expected samples shaped (*truth.shape, n_samples)"
        )
    return sample_array, truth_array


def _prepare(samples: np.ndarray, truth: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    sample_array, truth_array = _validated(samples, truth)
    return np.sort(sample_array, axis=-1), truth_array


def _crps_sorted(sorted_samples: np.ndarray, truth: np.ndarray) -> np.ndarray:
    n_samples = sorted_samples.shape[-1]
    samples64 = sorted_samples.astype(np.float64, copy=False)
    mean_abs_error = np.abs(samples64 - truth[..., None]).mean(axis=-1)
    weights = (2.0 * np.arange(1, n_samples + 1) - n_samples - 1) / n_samples**2
    spread = samples64 @ weights
    crps: np.ndarray = mean_abs_error - spread
    return crps


def _absolute_error_sorted(sorted_samples: np.ndarray, truth: np.ndarray) -> np.ndarray:
    median = quantiles_from_sorted(sorted_samples, [0.5])[..., 0]
    error: np.ndarray = np.abs(median - truth)
    return error


def _square_root(value: float | np.ndarray) -> float | np.ndarray:
    root = np.sqrt(value)
    return float(root) if np.ndim(root) == 0 else root


def _interval(sorted_samples: np.ndarray, lo: float, hi: float) -> tuple[np.ndarray, np.ndarray]:
    if not 0.0 <= lo < hi <= 1.0:
        raise ValueError(f"interval [{lo}, {hi}]: need 0 <= lo < hi <= 1")
    bounds = quantiles_from_sorted(sorted_samples, [lo, hi])
    return bounds[..., 0], bounds[..., 1]


def _covered(lower: np.ndarray, upper: np.ndarray, truth: np.ndarray) -> np.ndarray:
    inside = ((truth >= lower) & (truth <= upper)).astype(np.float64)
    return np.where(np.isnan(truth), np.nan, inside)


def _winkler_cells(
    lower: np.ndarray, upper: np.ndarray, truth: np.ndarray, alpha: float
) -> np.ndarray:
    penalty_below = np.where(truth < lower, lower - truth, 0.0)
    penalty_above = np.where(truth > upper, truth - upper, 0.0)
    score = (upper - lower) + (2.0 / alpha) * (penalty_below + penalty_above)
    return np.where(np.isnan(truth), np.nan, score)


def _mean_over_cells(values: np.ndarray, axis: Axis) -> float | np.ndarray:
    """NaN-ignoring mean; NaN where no cell is observed (without a warning)."""
    observed = ~np.isnan(values)
    total = np.where(observed, values, 0.0).sum(axis=axis)
    count = observed.sum(axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(count > 0, total / np.maximum(count, 1), np.nan)
    return float(mean) if np.ndim(mean) == 0 else mean
