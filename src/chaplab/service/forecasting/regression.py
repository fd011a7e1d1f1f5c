"""``regression_model``: negative binomial regression of cases on lagged cases and covariates.

For org unit ``i`` and period ``t`` the log mean is

    log mu[i, t] = a[i] + sum_l b_l * log1p(cases[i, t-l]) + sum_j sum_l c_jl * x_j[i, t-l]
                   + seasonal harmonics of t

with ``l = 1..n_lags``, an intercept per org unit and coefficients pooled over org units. It is
fitted by iteratively reweighted least squares on all org units at once: the intercepts are
absorbed by a weighted within-org-unit centring, so each step solves one small ``K x K`` system
whatever the number of org units. The over-dispersion ``phi`` (``Var = mu + phi mu^2``) is
re-estimated by moments at every step. Covariates are standardised with the training means and
spreads.

Covariates ``x_j``: the option ``covariates`` (default ``["rainfall", "mean_temperature"]``, the
template's required covariates) followed by the configured model's
``additional_continuous_covariates`` (the template sets chap-core's
``allow_free_additional_continuous_covariates``), each name once. A dataset without rainfall is
evaluated by a configured model with ``covariates: []`` (or the covariates it has) and its own
covariates as additional ones, e.g. the Brazil dengue data's ``max_temperature``,
``min_temperature`` and ``drought_index``. Every covariate the configured model reads must be a
feature of the dataset: the service refuses a job whose data lacks one (a 422 naming the request
field and the covariate, ``chaplab.service.validation.check_model_fits``). The option's covariates
may not have missing values at submission (as required covariates); additional ones may, and are
filled as below.

Missing values (the climatology rule): periods whose target is missing are left out of the fit; a
missing lagged case or covariate value is replaced by the org unit's climatology (its mean of
that month or ISO week); a month or week the org unit never observed takes the org unit's mean;
an org unit whose covariate is missing throughout takes the covariate's pooled mean over all org
units, which is 0 after standardisation, so the covariate then adds nothing to that org unit's
forecast. A covariate without any observed value in a split's history is refused (ValueError
naming it). No NaN reaches the fit or the forecast.

Forecasting simulates sample paths period by period, feeding sampled cases back as the lagged
cases of later periods, so that uncertainty grows with the horizon. Future covariates: when
``future`` is given its values are used (missing ones filled from climatology); when it is None
each lagged covariate value that lies in the history (lag >= horizon) is the observed one and every
value after the history's end is the covariate's climatology.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from chaplab.schema import (
    ConfigSchema,
    create_config_schema,
    schema_array,
    schema_integer,
    schema_string,
)
from chaplab.service.forecasting.counts import (
    distribution_option,
    draw_counts,
    fill_with_climatology,
    fit_inverse_dispersion,
    row_means,
    seasonal_means,
)
from chaplab.service.forecasting.inputs import ForecastTask
from chaplab.vocabulary import periods_after, season_position

DEFAULT_COVARIATES = ("rainfall", "mean_temperature")
"""The template's required covariates and the default of its ``covariates`` option."""

CONFIG_SCHEMA: ConfigSchema = create_config_schema(
    title="Lagged climate regression",
    description=(
        "Negative binomial regression of cases on lagged cases and lagged covariates "
        "(by default rainfall and mean temperature)"
    ),
    properties={
        "covariates": schema_array(
            schema_string(min_length=1),
            description=(
                "Covariates the model reads before the configured model's additional ones; "
                "leave out those a dataset lacks (e.g. [] for data without rainfall)"
            ),
            default=list(DEFAULT_COVARIATES),
            unique_items=True,
        ),
        "n_lags": schema_integer(
            description="Number of lagged periods of cases and of each climate covariate",
            default=3,
            minimum=1,
            maximum=12,
        ),
        "seasonal_harmonics": schema_integer(
            description="Number of sine/cosine pairs of the time of year added as predictors",
            default=1,
            minimum=0,
            maximum=4,
        ),
        "distribution": distribution_option(),
    },
    additional_properties=False,
)

MAX_ITERATIONS = 50
TOLERANCE = 1e-7
RIDGE = 1e-6
MAX_LOG_MEAN = 30.0


@dataclass(frozen=True)
class FittedRegression:
    """Coefficients of a fitted model: intercept per org unit, pooled slopes, dispersion."""

    intercepts: np.ndarray
    slopes: np.ndarray
    inverse_dispersion: float


def forecast_regression(task: ForecastTask) -> np.ndarray:
    """Simulated sample paths, shape (org units, periods, samples)."""
    history = task.history
    n_lags = task.options["n_lags"]
    positions = history.season_positions()
    future_positions = np.array(
        [season_position(p) for p in periods_after(history.periods[-1], task.n_periods)],
        dtype=np.intp,
    )
    all_positions = np.concatenate([positions, future_positions])
    cases = history.feature(task.target)
    lagged_cases = np.log1p(_filled(cases, positions, history.season_length))
    climate = _standardised_climate(task, positions, future_positions)
    seasonal = _harmonics(all_positions, history.season_length, task.options["seasonal_harmonics"])

    n_history = history.n_periods
    design = _design(lagged_cases, climate[:, :, :n_history], seasonal[:n_history], n_lags)
    fitted = fit_negative_binomial(cases[:, n_lags:], design, task.options["distribution"])

    case_slopes, other_slopes = fitted.slopes[:n_lags], fitted.slopes[n_lags:]
    paths = np.repeat(lagged_cases[:, -n_lags:, None], task.n_samples, axis=2)  # log1p cases
    samples = np.empty((history.n_org_units, task.n_periods, task.n_samples))
    for step in range(task.n_periods):
        t = n_history + step
        exogenous = _exogenous_row(climate, seasonal, t, n_lags)  # (org units, K - n_lags)
        linear = fitted.intercepts + exogenous @ other_slopes
        log_mean = linear[:, None] + np.einsum("ols,l->os", paths[:, ::-1], case_slopes)
        mean = np.exp(np.minimum(log_mean, MAX_LOG_MEAN))
        drawn = draw_counts(mean, fitted.inverse_dispersion, task.rng)
        samples[:, step] = drawn
        paths = np.concatenate([paths[:, 1:], np.log1p(drawn)[:, None, :]], axis=1)
    return samples


def fit_negative_binomial(
    target: np.ndarray, design: np.ndarray, distribution: str
) -> FittedRegression:
    """IRLS for a log-link count regression with one intercept per row of ``target``.

    ``target``: (org units, rows), NaN = left out; ``design``: (org units, rows, K).
    """
    observed = ~np.isnan(target)
    y = np.where(observed, target, 0.0)
    n_features = design.shape[-1]
    unit_mean = row_means(target)
    intercepts = np.log(np.maximum(unit_mean, 0.5))
    slopes = np.zeros(n_features)
    phi = _pooled_dispersion(
        target, np.broadcast_to(unit_mean[:, None], target.shape), distribution
    )
    eta = _linear_predictor(design, intercepts, slopes)
    for _ in range(MAX_ITERATIONS):
        mean = np.exp(eta)
        weights = np.where(observed, mean / (1.0 + phi * mean), 0.0)
        working = eta + (y - mean) / mean
        new_intercepts, new_slopes = _weighted_within_solve(design, working, weights, intercepts)
        change = max(
            np.max(np.abs(new_slopes - slopes)), np.max(np.abs(new_intercepts - intercepts))
        )
        intercepts, slopes = new_intercepts, new_slopes
        eta = _linear_predictor(design, intercepts, slopes)
        phi = _pooled_dispersion(target, np.exp(eta), distribution)
        if change < TOLERANCE:
            break
    return FittedRegression(intercepts=intercepts, slopes=slopes, inverse_dispersion=phi)


def _pooled_dispersion(target: np.ndarray, mean: np.ndarray, distribution: str) -> float:
    """One inverse dispersion for all org units."""
    return float(
        fit_inverse_dispersion(target.reshape(1, -1), mean.reshape(1, -1), distribution)[0]
    )


def _linear_predictor(design: np.ndarray, intercepts: np.ndarray, slopes: np.ndarray) -> np.ndarray:
    """Log mean of every (org unit, row), capped at ``MAX_LOG_MEAN``."""
    log_mean: np.ndarray = np.minimum(intercepts[:, None] + design @ slopes, MAX_LOG_MEAN)
    return log_mean


def _weighted_within_solve(
    design: np.ndarray, working: np.ndarray, weights: np.ndarray, fallback_intercepts: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Weighted least squares of ``working`` on ``design`` plus an intercept per org unit.

    The within-org-unit (centred) normal equations are formed from uncentred sums minus each
    org unit's mean term, ``sum w (x - m)(x - m)' = sum w x x' - W m m'``, so that every
    iteration makes only a few passes over the (org units x rows x K) design.
    """
    total = weights.sum(axis=1)
    safe_total = np.where(total > 0, total, 1.0)
    design_mean = np.einsum("or,ork->ok", weights, design) / safe_total[:, None]
    working_mean = (weights * working).sum(axis=1) / safe_total
    root_weights = np.sqrt(weights)
    scaled = (design * root_weights[:, :, None]).reshape(-1, design.shape[-1])
    weighted_means = design_mean * total[:, None]
    gram = scaled.T @ scaled - weighted_means.T @ design_mean
    right = scaled.T @ (root_weights * working).reshape(-1) - weighted_means.T @ working_mean
    gram += RIDGE * max(np.trace(gram), 1.0) * np.eye(gram.shape[0])
    slopes = np.linalg.solve(gram, right)
    intercepts = np.where(total > 0, working_mean - design_mean @ slopes, fallback_intercepts)
    return intercepts, slopes


def _design(
    lagged_cases: np.ndarray, climate: np.ndarray, seasonal: np.ndarray, n_lags: int
) -> np.ndarray:
    """Predictors of periods ``n_lags..`` of the history, shape (org units, rows, K).

    Columns: lagged log cases (lag 1 first), each covariate's lags (lag 1 first), harmonics;
    the same order as :func:`_exogenous_row` after the case lags.
    """
    n_periods = lagged_cases.shape[1]
    lags = range(1, n_lags + 1)
    case_lags = np.stack([lagged_cases[:, n_lags - lag : n_periods - lag] for lag in lags], axis=-1)
    climate_lags = np.stack(
        [climate[:, :, n_lags - lag : n_periods - lag] for lag in lags], axis=-1
    )
    n_units, n_rows = case_lags.shape[:2]
    climate_columns = climate_lags.transpose(1, 2, 0, 3).reshape(n_units, n_rows, -1)
    harmonics = np.broadcast_to(seasonal[n_lags:n_periods], (n_units, n_rows, seasonal.shape[1]))
    return np.concatenate([case_lags, climate_columns, harmonics], axis=-1)


def _exogenous_row(climate: np.ndarray, seasonal: np.ndarray, t: int, n_lags: int) -> np.ndarray:
    """Lagged covariates (lag 1 first, covariate by covariate) and harmonics of period ``t``."""
    n_units = climate.shape[1]
    lagged = climate[:, :, t - n_lags : t][:, :, ::-1]  # (covariates, org units, lags)
    lagged = lagged.transpose(1, 0, 2).reshape(n_units, -1)
    return np.concatenate(
        [lagged, np.broadcast_to(seasonal[t], (n_units, seasonal.shape[1]))], axis=1
    )


def _standardised_climate(
    task: ForecastTask, positions: np.ndarray, future_positions: np.ndarray
) -> np.ndarray:
    """Covariates over history and horizon, shape (covariates, org units, periods), standardised."""
    history = task.history
    series = []
    for name in task.covariates:
        values = history.feature(name)
        climatology = seasonal_means(values, positions, history.season_length)
        if task.future is not None and name in task.future.features:
            ahead = task.future.features[name][:, : task.n_periods]
        else:
            ahead = np.full((history.n_org_units, task.n_periods), np.nan)
        extended = np.concatenate([values, ahead], axis=1)
        filled = fill_with_climatology(
            extended, np.concatenate([positions, future_positions]), climatology
        )
        observed = values[~np.isnan(values)]
        spread = observed.std() if observed.size > 1 and observed.std() > 0 else 1.0
        # seasonal_means gives an org unit that never observed the covariate the pooled mean of
        # all org units, so ``filled`` has no NaN (``forecast`` refused a covariate never observed)
        series.append((filled - observed.mean()) / spread)
    return (
        np.stack(series)
        if series
        else np.zeros((0, history.n_org_units, history.n_periods + task.n_periods))
    )


def _filled(values: np.ndarray, positions: np.ndarray, season_length: int) -> np.ndarray:
    return fill_with_climatology(
        values, positions, seasonal_means(values, positions, season_length)
    )


def _harmonics(positions: np.ndarray, season_length: int, count: int) -> np.ndarray:
    """Sine and cosine pairs of the season position, shape (periods, 2 * count)."""
    angle = 2.0 * np.pi * positions[:, None] * np.arange(1, count + 1)[None, :] / season_length
    return np.concatenate([np.sin(angle), np.cos(angle)], axis=1)


def min_training_periods_regression(options: dict[str, Any], season_length: int) -> int:
    """The lags plus one full season of fitted periods."""
    n_lags: int = options["n_lags"]
    return n_lags + season_length
