"""``seasonal_median``: each period forecast with all past observations of its month or week.

chap-core's baseline of the same name: for a future period the samples are quantiles of the org
unit's observed disease cases in the same month (or ISO week; week 53 pooled with week 52) of
every year of the history, so the forecast's median is their median. A month or week never
observed is an error naming the org unit.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from chaplab.service.forecasting.empirical import (
    periods_holding_a_year,
    quantile_samples,
    require_observed,
    samples_per_target,
)
from chaplab.service.forecasting.inputs import ForecastTask
from chaplab.vocabulary import season_position

NAME = "seasonal_median"


def forecast_seasonal_median(task: ForecastTask) -> np.ndarray:
    """Samples of shape (org units, periods, samples) from the same month or week in the past."""
    cases = task.history.feature(task.target)
    positions = task.history.season_positions()

    def draw(row: int, org_unit: str, _column: int, period: str) -> np.ndarray:
        position = season_position(period)
        observed = require_observed(
            cases[row, positions == position],
            NAME,
            org_unit,
            f"in period of year {position + 1}, which {period} needs",
        )
        return quantile_samples(observed, task.n_samples)

    return samples_per_target(task, draw)


def min_training_periods_seasonal_median(options: dict[str, Any], season_length: int) -> int:
    """One full year, so that every month or week has been seen once."""
    return periods_holding_a_year(season_length)
