"""``global_median``: every period forecast with all past observations of the same org unit.

chap-core's baseline of the same name: the samples are quantiles of the org unit's observed
disease cases, so the forecast's median is their median, the same for every period ahead.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from chaplab.service.forecasting.empirical import (
    quantile_samples,
    require_observed,
)
from chaplab.service.forecasting.inputs import ForecastTask

NAME = "global_median"


def forecast_global_median(task: ForecastTask) -> np.ndarray:
    """Samples of shape (org units, periods, samples): each org unit's observed values."""
    history = task.history
    cases = history.feature(task.target)
    samples = np.empty((history.n_org_units, task.n_periods, task.n_samples))
    for row, org_unit in enumerate(history.org_units):
        observed = require_observed(cases[row], NAME, org_unit, "in the history")
        samples[row] = quantile_samples(observed, task.n_samples)
    return samples


def min_training_periods_global_median(options: dict[str, Any], season_length: int) -> int:
    """One observed period is enough."""
    return 1
