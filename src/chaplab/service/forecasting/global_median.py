"""``global_median``: every period forecast with all past observations of the same org unit.

chap-core's baseline of the same name: the samples are quantiles of the org unit's observed
disease cases, so the forecast's median is their median, the same for every period ahead.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from chaplab.service.forecasting.empirical import quantile_samples, require_observed_history
from chaplab.service.forecasting.inputs import ForecastTask

NAME = "global_median"


def forecast_global_median(task: ForecastTask) -> np.ndarray:
    """Samples of shape (org units, periods, samples): each org unit's observed values."""
    samples = np.empty((task.history.n_org_units, task.n_periods, task.n_samples))
    for row, observed in enumerate(require_observed_history(task, NAME)):
        samples[row] = quantile_samples(observed, task.n_samples)
    return samples


def min_training_periods_global_median(options: dict[str, Any], season_length: int) -> int:
    """One observed period is enough."""
    return 1
