"""Model templates: metadata, option schema and the forecast entry point every model shares.

``ModelTemplateSpec.forecast`` checks its inputs (period type, target and covariates present,
options valid under the template's schema, defaults applied) and hands a :class:`ForecastTask`
to the model's function, which returns samples of shape ``(n_org_units, n_periods, n_samples)``.

Covariates, as in chap-core: a configured model reads its template's covariates and then its own
``additional_continuous_covariates``. A template's own covariates are its
``required_covariates``, unless it names a ``covariates_option``: then they are that option's
value (the regression's ``covariates``, whose default is its required covariates), so that one
configuration can leave out a covariate a dataset lacks. :meth:`ModelTemplateSpec.covariates` is
the one place that says which covariates a configured model reads; the service's submission
checks (``chaplab.service.validation``) and the forecast use it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from chaplab.schema import ConfigSchema, apply_config_defaults, validate_config
from chaplab.service.forecasting.empirical import baseline_schema
from chaplab.service.forecasting.inputs import ForecastTask
from chaplab.service.forecasting.panel import Panel
from chaplab.vocabulary import season_length

TARGET = "disease_cases"


@dataclass(frozen=True)
class ModelTemplateSpec:
    """A forecasting model as the service lists it (``userOptions``: its schema's properties)."""

    name: str
    display_name: str
    description: str
    author: str
    supported_period_type: str
    target: str
    required_covariates: list[str]
    config_schema: ConfigSchema
    forecaster: Callable[[ForecastTask], np.ndarray] = field(repr=False)
    min_training_periods: Callable[[dict[str, Any], int], int] = field(repr=False)
    covariates_option: str | None = None
    """The option listing the template's own covariates in place of ``required_covariates``."""
    allow_free_additional_continuous_covariates: bool = False
    """Whether the forecast reads a configured model's additional covariates (chap-core's flag)."""
    min_prediction_periods: int | None = None
    """The fewest periods one forecast of the model may have (None: no bound)."""
    max_prediction_periods: int | None = None
    """The most periods one forecast of the model may have (None: no bound): a model service
    declares both and refuses a horizon outside them."""

    def own_covariates(self, options: dict[str, Any] | None) -> list[str]:
        """The template's covariates under ``options``: ``required_covariates``, or the value of
        its ``covariates_option`` (defaults applied). They may not have missing values when a
        job is submitted."""
        if self.covariates_option is None:
            return list(self.required_covariates)
        return list(self.options_with_defaults(options)[self.covariates_option])

    def covariates(
        self, options: dict[str, Any] | None, additional: Sequence[str] = ()
    ) -> list[str]:
        """Every covariate a configured model with ``options`` and ``additional`` continuous
        covariates reads: the template's own, then the additional ones, each once."""
        return list(dict.fromkeys([*self.own_covariates(options), *additional]))

    def options_with_defaults(self, options: dict[str, Any] | None) -> dict[str, Any]:
        """``options`` checked against the schema, with the defaults filled in."""
        filled = apply_config_defaults(dict(options or {}), self.config_schema)
        validate_config(filled, self.config_schema)
        return filled

    def history_needed(self, options: dict[str, Any] | None, period_type: str) -> int:
        """Fewest periods of history the model is fitted on."""
        return self.min_training_periods(
            self.options_with_defaults(options), season_length(period_type)
        )

    def forecast(
        self,
        history: Panel,
        n_periods: int,
        n_samples: int,
        options: dict[str, Any] | None,
        rng: np.random.Generator,
        future: Panel | None = None,
        additional_covariates: Sequence[str] = (),
    ) -> np.ndarray:
        """Samples of the ``n_periods`` after ``history``, shape (org units, periods, samples);
        ``additional_covariates`` are the configured model's (read when the template allows
        them)."""
        _check_positive("n_periods", n_periods)
        _check_positive("n_samples", n_samples)
        if self.supported_period_type not in ("any", history.period_type):
            raise ValueError(
                f"model {self.name!r} supports {self.supported_period_type} periods, "
                f"the data has {history.period_type} periods"
            )
        filled = self.options_with_defaults(options)
        history.feature(self.target)
        covariates = self.covariates(filled, additional_covariates)
        for covariate in covariates:
            history.feature(covariate)
        needed = self.min_training_periods(filled, history.season_length)
        if history.n_periods < needed:
            raise ValueError(
                f"model {self.name!r} needs at least {needed} periods of history, "
                f"the data has {history.n_periods}"
            )
        if future is not None:
            _check_future(history, future, n_periods)
        task = ForecastTask(
            history=history,
            n_periods=n_periods,
            n_samples=n_samples,
            options=filled,
            rng=rng,
            future=future,
            target=self.target,
            covariates=covariates
            if self.allow_free_additional_continuous_covariates
            else self.own_covariates(filled),
        )
        return self.forecaster(task)


def _check_positive(name: str, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")


def _check_future(history: Panel, future: Panel, n_periods: int) -> None:
    expected = history.periods_after(n_periods)
    if future.periods[:n_periods] != expected or future.org_units != history.org_units:
        raise ValueError(
            "future: expected the same org units as the history and the periods "
            f"{expected[0]}..{expected[-1]} right after it"
        )


def _build_templates() -> dict[str, ModelTemplateSpec]:
    from chaplab.service.forecasting import (
        global_median,
        naive,
        persistence,
        regression,
        seasonal,
        seasonal_median,
    )

    specs = [
        _target_only(
            "naive_model",
            "Naive model",
            "Forecasts every org unit's historical mean of disease cases, with negative "
            "binomial count noise whose spread is learnt from the history.",
            naive.CONFIG_SCHEMA,
            naive.forecast_naive,
            naive.min_training_periods_naive,
        ),
        _target_only(
            "seasonal_naive",
            "Seasonal naive model",
            "Forecasts each period as the mean of the same month or week in the previous "
            "seasons, with negative binomial count noise learnt from past seasonal errors.",
            seasonal.CONFIG_SCHEMA,
            seasonal.forecast_seasonal_naive,
            seasonal.min_training_periods_seasonal,
        ),
        ModelTemplateSpec(
            name="regression_model",
            display_name="Lagged climate regression",
            description=(
                "Negative binomial regression of disease cases on lagged cases, lagged rainfall "
                "and lagged mean temperature with an intercept per org unit; forecasts by "
                "simulating sample paths."
            ),
            author="chaplab",
            supported_period_type="any",
            target=TARGET,
            required_covariates=list(regression.DEFAULT_COVARIATES),
            config_schema=regression.CONFIG_SCHEMA,
            forecaster=regression.forecast_regression,
            min_training_periods=regression.min_training_periods_regression,
            covariates_option="covariates",
            allow_free_additional_continuous_covariates=True,
        ),
        _baseline(
            persistence.NAME,
            "Persistence",
            "Baseline that forecasts the last observed value for the same location, scaled by how "
            "cases changed over the same horizon and time of year in the training data.",
            persistence.forecast_persistence,
            persistence.min_training_periods_persistence,
        ),
        _baseline(
            seasonal_median.NAME,
            "Seasonal median",
            "Baseline that uses all observed values for the same location and month or week of "
            "the year as forecast samples, without smoothing or model fitting.",
            seasonal_median.forecast_seasonal_median,
            seasonal_median.min_training_periods_seasonal_median,
        ),
        _baseline(
            global_median.NAME,
            "Global median",
            "Baseline that uses all observed values for the same location as forecast samples "
            "for every period, without smoothing or model fitting.",
            global_median.forecast_global_median,
            global_median.min_training_periods_global_median,
        ),
    ]
    return {spec.name: spec for spec in specs}


def _target_only(
    name: str,
    display_name: str,
    description: str,
    config_schema: ConfigSchema,
    forecaster: Callable[[ForecastTask], np.ndarray],
    min_training_periods: Callable[[dict[str, Any], int], int],
    author: str = "chaplab",
) -> ModelTemplateSpec:
    """A template for any period type that reads the target only (no covariates)."""
    return ModelTemplateSpec(
        name=name,
        display_name=display_name,
        description=description,
        author=author,
        supported_period_type="any",
        target=TARGET,
        required_covariates=[],
        config_schema=config_schema,
        forecaster=forecaster,
        min_training_periods=min_training_periods,
    )


def _baseline(
    name: str,
    display_name: str,
    description: str,
    forecaster: Callable[[ForecastTask], np.ndarray],
    min_training_periods: Callable[[dict[str, Any], int], int],
) -> ModelTemplateSpec:
    """One of chap-core's baselines: chap-core's name and description, no options, no
    covariates."""
    return _target_only(
        name,
        display_name,
        description,
        baseline_schema(display_name, description),
        forecaster,
        min_training_periods,
        author="chaplab (chap-core's baseline)",
    )


TEMPLATES: dict[str, ModelTemplateSpec] = _build_templates()

BASELINES: tuple[str, ...] = ("persistence", "seasonal_median", "global_median")
"""chap-core's baselines: in a batch they run on every specification as the reference models."""
