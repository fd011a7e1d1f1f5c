"""Wire models of the discovery routes a form needs, in chap-core 2.5.1's shapes: the backtest
parameters (``BacktestParameterInfo``), the future-weather providers (``WeatherProviderInfo``)
and covariate names to offer (``CovariateNameSuggestion``)."""

from __future__ import annotations

from chaplab.service.wire.common import WireModel


class BacktestParameterInfo(WireModel):
    """One parameter of a backtest request: its default and the bounds the service checks
    (``minimum``/``maximum`` inclusive; absent when there is none)."""

    name: str
    label: str
    description: str
    default: int | str
    type: str
    minimum: int | None = None
    maximum: int | None = None


class WeatherProviderInfo(WireModel):
    id: str
    display_name: str
    description: str = ""
    leaks_future_data: bool


class CovariateNameSuggestion(WireModel):
    """A covariate name to offer; ``standard`` for the service's standard names,
    ``requiredBy`` the live templates and configured models that need it."""

    name: str
    standard: bool
    required_by: list[str] = []
