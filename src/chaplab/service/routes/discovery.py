"""Discovery routes a form reads before it sends a request: backtest parameters, future-weather
providers and covariate names (``/v1/analytics``)."""

from __future__ import annotations

from fastapi import APIRouter

from chaplab.service.domain import discovery
from chaplab.service.routes.dependencies import DB
from chaplab.service.wire.discovery import (
    BacktestParameterInfo,
    CovariateNameSuggestion,
    WeatherProviderInfo,
)

router = APIRouter(prefix="/v1/analytics", tags=["discovery"])


@router.get("/backtest-parameters", response_model_exclude_none=True)
def backtest_parameters() -> list[BacktestParameterInfo]:
    """Each backtest parameter with its default and the bounds the service checks."""
    return discovery.backtest_parameters()


@router.get("/weather-providers")
def weather_providers() -> list[WeatherProviderInfo]:
    """Where the covariates of a forecast window can come from, and whether that reads the
    window's own observations (``leaksFutureData``)."""
    return discovery.weather_providers()


@router.get("/covariate-names")
def covariate_names(session: DB) -> list[CovariateNameSuggestion]:
    """Covariate names to offer when naming a dataset's columns, with the live templates and
    configured models that need each."""
    return discovery.covariate_names(session)
