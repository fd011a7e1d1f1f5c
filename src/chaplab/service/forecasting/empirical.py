"""What the baselines share: forecast samples spread evenly over observed values.

chap-core's baselines forecast with the empirical distribution of past observations: the samples
are quantiles of those observations at evenly spaced levels, so the samples' median is the
observations' median and any quantile or CRPS of the forecast is that of the observations.
Their options schema is empty: a baseline is the same model wherever it runs.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from chaplab.schema import ConfigSchema, create_config_schema
from chaplab.service.forecasting.inputs import ForecastTask
from chaplab.vocabulary import WEEK, season_length

WEEKS_PER_SEASON = season_length(WEEK)


def baseline_schema(title: str, description: str) -> ConfigSchema:
    """The empty options schema of a baseline."""
    return create_config_schema(
        title=title, description=description, properties={}, additional_properties=False
    )


def periods_holding_a_year(season_length: int) -> int:
    """The fewest consecutive periods that hold every period of the year: 12 months, or 53 ISO
    weeks (52 weeks that hold a week 53 lack another week of the year, as week 53 is pooled
    with week 52)."""
    return season_length + 1 if season_length == WEEKS_PER_SEASON else season_length


def quantile_samples(values: np.ndarray, n_samples: int) -> np.ndarray:
    """``n_samples`` samples at the levels ``(i + 1/2) / n_samples`` of ``values`` (1-D, finite).

    Deterministic; with an odd count the middle sample is the median of ``values``."""
    levels = (np.arange(n_samples) + 0.5) / n_samples
    samples: np.ndarray = np.quantile(values, levels)
    return samples


def require_observed(values: np.ndarray, model: str, org_unit: str, what: str) -> np.ndarray:
    """The finite ``values``; a ValueError naming the model, the org unit and ``what`` when none."""
    observed: np.ndarray = values[np.isfinite(values)]
    if observed.size == 0:
        raise ValueError(f"{model}: org unit {org_unit!r} has no observed disease cases {what}")
    return observed


def require_observed_history(task: ForecastTask, model: str) -> list[np.ndarray]:
    """Each org unit's observed target values in the history; a ValueError naming the model and
    the first org unit with none."""
    cases = task.history.feature(task.target)
    return [
        require_observed(cases[row], model, org_unit, "in the history")
        for row, org_unit in enumerate(task.history.org_units)
    ]


def samples_per_target(
    task: ForecastTask, draw: Callable[[int, str, int, str], np.ndarray]
) -> np.ndarray:
    """Samples of shape (org units, periods, samples), ``draw(row, org_unit, column, period)``
    giving those of each forecast target (an org unit's row and a future period's column)."""
    history = task.history
    samples = np.empty((history.n_org_units, task.n_periods, task.n_samples))
    for row, org_unit in enumerate(history.org_units):
        for column, period in enumerate(history.periods_after(task.n_periods)):
            samples[row, column] = draw(row, org_unit, column, period)
    return samples
