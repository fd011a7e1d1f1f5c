"""``persistence``: the last observed value, scaled by how cases changed in earlier years.

chap-core's baseline of the same name. For a target ``h`` periods after the org unit's last
observed value ``y``, the samples are ``(y + 1) * r - 1`` (at least 0) for the ratios
``r = (y_t + 1) / (y_{t-h} + 1)`` of the history over every ``t`` in the target's month or
week of the year, taken as quantile samples: the median is ``y`` scaled by the median ratio, and
the spread widens with the horizon. Adding one keeps zero counts usable.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from chaplab.service.forecasting.empirical import (
    periods_holding_a_year,
    quantile_samples,
    require_observed,
    require_observed_history,
    samples_per_target,
)
from chaplab.service.forecasting.inputs import ForecastTask
from chaplab.vocabulary import season_position

NAME = "persistence"


def forecast_persistence(task: ForecastTask) -> np.ndarray:
    """Samples of shape (org units, periods, samples) around each org unit's last value."""
    history = task.history
    cases = history.feature(task.target)
    positions = history.season_positions()
    require_observed_history(task, NAME)
    last_observed = [int(np.flatnonzero(np.isfinite(row))[-1]) for row in cases]

    def draw(row: int, org_unit: str, column: int, period: str) -> np.ndarray:
        last = last_observed[row]
        horizon = history.n_periods - last + column
        ratios = (cases[row, horizon:] + 1) / (cases[row, :-horizon] + 1)
        position = season_position(period)
        observed = require_observed(
            ratios[positions[horizon:] == position],
            NAME,
            org_unit,
            f"{horizon} periods apart ending in period of year {position + 1}, which "
            f"{period} needs to estimate the spread",
        )
        scaled = (cases[row, last] + 1) * quantile_samples(observed, task.n_samples) - 1
        samples: np.ndarray = np.maximum(scaled, 0.0)
        return samples

    return samples_per_target(task, draw)


def min_training_periods_persistence(options: dict[str, Any], season_length: int) -> int:
    """A year and a horizon: a pair of observations per horizon and period of year (for
    horizons up to a year)."""
    return periods_holding_a_year(season_length) + 1
