"""``naive_model``: every org unit's mean of the target, with count noise.

The point forecast of every future period is the org unit's mean over its observed history; the
samples are Poisson counts around it, as chap-core 2.5.1's ``naive_model`` draws them, so the
same name means the same model on both servers. ``distribution="negative_binomial"`` draws them
with the over-dispersion estimated from the history's spread around that mean instead: on a
strongly seasonal history that spread is large and the median falls towards 0.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from chaplab.schema import ConfigSchema, create_config_schema
from chaplab.service.forecasting.counts import (
    POISSON,
    distribution_option,
    fit_inverse_dispersion,
    row_means,
    sample_counts,
)
from chaplab.service.forecasting.inputs import ForecastTask

CONFIG_SCHEMA: ConfigSchema = create_config_schema(
    title="Naive model",
    description="Mean of the target per org unit with Poisson count noise (as chap-core's)",
    properties={"distribution": distribution_option(default=POISSON)},
    additional_properties=False,
)


def forecast_naive(task: ForecastTask) -> np.ndarray:
    """Samples of shape (org units, periods, samples) around each org unit's historical mean."""
    observed = task.history.feature(task.target)
    mean = row_means(observed)
    phi = fit_inverse_dispersion(observed, mean[:, None], task.options["distribution"])
    future_mean = np.repeat(mean[:, None], task.n_periods, axis=1)
    return sample_counts(future_mean, phi[:, None], task.n_samples, task.rng)


def min_training_periods_naive(options: dict[str, Any], season_length: int) -> int:
    """One observed period is enough to take a mean."""
    return 1
