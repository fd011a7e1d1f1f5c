"""``seasonal_naive``: the same period of the previous season(s), with spread learnt from history.

The point forecast of a future period is the mean of the target in the same month (or ISO week)
of the last ``n_seasons`` years of history, ignoring missing values; a position never observed
falls back to the org unit's mean. The over-dispersion of the count samples is estimated from how
far the history falls from the same rule applied in-sample (each period predicted by the seasons
before it).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from chaplab.schema import ConfigSchema, create_config_schema, schema_integer
from chaplab.service.forecasting.counts import (
    distribution_option,
    fit_inverse_dispersion,
    row_means,
    sample_counts,
)
from chaplab.service.forecasting.inputs import ForecastTask
from chaplab.vocabulary import periods_after, season_position

CONFIG_SCHEMA: ConfigSchema = create_config_schema(
    title="Seasonal naive model",
    description="Same period of the previous seasons with count noise",
    properties={
        "n_seasons": schema_integer(
            description="Number of previous seasons (years) averaged for each period",
            default=3,
            minimum=1,
            maximum=20,
        ),
        "distribution": distribution_option(),
    },
    additional_properties=False,
)


def forecast_seasonal_naive(task: ForecastTask) -> np.ndarray:
    """Samples of shape (org units, periods, samples) around the same periods of past seasons."""
    history = task.history
    observed = history.feature(task.target)
    in_sample, latest = seasonal_window_means(
        observed, history.season_positions(), history.season_length, task.options["n_seasons"]
    )
    phi = fit_inverse_dispersion(observed, in_sample, task.options["distribution"])
    future_positions = [
        season_position(p) for p in periods_after(history.periods[-1], task.n_periods)
    ]
    return sample_counts(latest[:, future_positions], phi[:, None], task.n_samples, task.rng)


def seasonal_window_means(
    values: np.ndarray, positions: np.ndarray, season_length: int, n_seasons: int
) -> tuple[np.ndarray, np.ndarray]:
    """Means over the previous ``n_seasons`` observations at each period's season position.

    Returns ``in_sample`` (shape of ``values``: each period from the seasons before it, NaN when
    there are none) and ``latest`` ``(rows, season_length)``: the last ``n_seasons`` of each
    position, the row's mean where a position was never observed.
    """
    rows = values.shape[0]
    in_sample = np.full(values.shape, np.nan)
    latest = np.repeat(row_means(values)[:, None], season_length, axis=1)
    for position in range(season_length):
        columns = np.flatnonzero(positions == position)
        if columns.size == 0:
            continue
        observed = ~np.isnan(values[:, columns])
        sums = np.concatenate(
            [np.zeros((rows, 1)), np.cumsum(np.where(observed, values[:, columns], 0.0), axis=1)],
            axis=1,
        )
        counts = np.concatenate([np.zeros((rows, 1)), np.cumsum(observed, axis=1)], axis=1)
        ends = np.arange(columns.size + 1)
        starts = np.maximum(ends - n_seasons, 0)
        window_sums = sums[:, ends] - sums[:, starts]
        window_counts = counts[:, ends] - counts[:, starts]
        with np.errstate(invalid="ignore", divide="ignore"):
            means = np.where(window_counts > 0, window_sums / window_counts, np.nan)
        in_sample[:, columns] = means[:, :-1]
        latest[:, position] = np.where(window_counts[:, -1] > 0, means[:, -1], latest[:, position])
    return in_sample, latest


def min_training_periods_seasonal(options: dict[str, Any], season_length: int) -> int:
    """One full season, so that every future period has a same-period value."""
    return season_length
