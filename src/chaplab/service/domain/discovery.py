"""What a form needs to offer before it sends a request: the backtest parameters with their
defaults and bounds (read from the request model the service validates with, so the form and
the service never disagree), the future-weather providers, and covariate names."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.orm import Session

from chaplab.service.forecasting.weather import WEATHER_PROVIDERS
from chaplab.service.registered_templates import template_spec
from chaplab.service.tables import ConfiguredModelRow, DatasetFeatureRow, ModelTemplateRow
from chaplab.service.wire.common import from_row
from chaplab.service.wire.discovery import (
    BacktestParameterInfo,
    CovariateNameSuggestion,
    WeatherProviderInfo,
)
from chaplab.service.wire.specifications import MakeBacktestsRequest

STANDARD_COVARIATE_NAMES = ("disease_cases", "rainfall", "mean_temperature", "population")
"""The names every dataset is encouraged to use for the data chap models commonly read."""

BACKTEST_REQUEST: type[BaseModel] = MakeBacktestsRequest
"""The request whose parameters a backtest form offers (its other fields name what to run)."""
NOT_PARAMETERS = ("name", "model_ids", "dataset_id")


def backtest_parameters() -> list[BacktestParameterInfo]:
    """Each parameter of :data:`BACKTEST_REQUEST` with the title, description, default and
    inclusive bounds its field declares."""
    properties = BACKTEST_REQUEST.model_json_schema(by_alias=False)["properties"]
    return [
        _parameter(field.alias or name, properties[name])
        for name, field in BACKTEST_REQUEST.model_fields.items()
        if name not in NOT_PARAMETERS
    ]


def _parameter(name: str, schema: dict[str, Any]) -> BacktestParameterInfo:
    minimum = schema.get("minimum")
    if "exclusiveMinimum" in schema:
        minimum = schema["exclusiveMinimum"] + 1  # integers only: > n is >= n + 1
    maximum = schema.get("maximum")
    if "exclusiveMaximum" in schema:
        maximum = schema["exclusiveMaximum"] - 1
    return BacktestParameterInfo(
        name=name,
        label=schema["title"],
        description=schema.get("description", ""),
        default=schema["default"],
        type=schema["type"],
        minimum=minimum,
        maximum=maximum,
    )


def weather_providers() -> list[WeatherProviderInfo]:
    return [from_row(WeatherProviderInfo, provider) for provider in WEATHER_PROVIDERS.values()]


def covariate_names(session: Session) -> list[CovariateNameSuggestion]:
    """The standard names, the features of stored datasets, and what live templates (their
    target and required covariates) and configured models (their additional covariates) need,
    each once, in that order."""
    required_by: dict[str, set[str]] = {name: set() for name in STANDARD_COVARIATE_NAMES}
    features = session.scalars(
        select(DatasetFeatureRow.name).distinct().order_by(DatasetFeatureRow.name)
    )
    for feature in features:
        required_by.setdefault(feature, set())
    templates = session.scalars(
        select(ModelTemplateRow)
        .where(ModelTemplateRow.archived.is_(False))
        .order_by(ModelTemplateRow.id)
    )
    for template in templates:
        spec = template_spec(template)
        for name in (spec.target, *spec.required_covariates):
            required_by.setdefault(name, set()).add(template.name)
    models = session.scalars(
        select(ConfiguredModelRow)
        .where(ConfiguredModelRow.archived.is_(False))
        .order_by(ConfiguredModelRow.id)
    )
    for model in models:
        for name in model.additional_continuous_covariates:
            required_by.setdefault(name, set()).add(model.name)
    return [
        CovariateNameSuggestion(
            name=name, standard=name in STANDARD_COVARIATE_NAMES, required_by=sorted(needing)
        )
        for name, needing in required_by.items()
    ]
