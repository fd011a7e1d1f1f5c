"""The backtest form's choices on a mock chap-core 2.5.1 (both drivers): parameters with their
defaults, weather providers, covariate names; a server without them named with the
alternative."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from chaplab.client import UnsupportedRouteError

from .chap_core_mock import ChapCoreMock, without

PARAMETERS = [
    {
        "name": "nPeriods",
        "label": "Forecast periods",
        "description": "Periods per split.",
        "default": 3,
        "type": "integer",
        "minimum": 1,
    },
    {
        "name": "futureWeatherProvider",
        "label": "Future weather",
        "description": "Provider.",
        "default": "climatology",
        "type": "string",
    },
]
PROVIDERS = [
    {
        "id": "climatology",
        "displayName": "Seasonal climatology",
        "description": "Month-of-year regression.",
        "leaksFutureData": False,
    },
    {"id": "observed", "displayName": "Observed", "leaksFutureData": True},
]
NAMES = [
    {"name": "rainfall", "standard": True, "requiredBy": ["naive_model"]},
    {"name": "ndvi", "standard": False},
]


def test_the_form_reads_parameters_providers_and_names(call: Callable[..., Any]) -> None:
    mock = ChapCoreMock(
        {
            "GET /v1/analytics/backtest-parameters": httpx.Response(200, json=PARAMETERS),
            "GET /v1/analytics/weather-providers": httpx.Response(200, json=PROVIDERS),
            "GET /v1/analytics/covariate-names": httpx.Response(200, json=NAMES),
        }
    )
    parameters = call(mock.handler, "list_backtest_parameters")
    assert [(p.name, p.default, p.minimum) for p in parameters] == [
        ("nPeriods", 3, 1),
        ("futureWeatherProvider", "climatology", None),
    ]
    providers = call(mock.handler, "list_weather_providers")
    assert [(p.id, p.leaks_future_data) for p in providers] == [
        ("climatology", False),
        ("observed", True),
    ]
    names = call(mock.handler, "covariate_names")
    assert [(n.name, n.standard, n.required_by) for n in names] == [
        ("rainfall", True, ["naive_model"]),
        ("ndvi", False, []),
    ]


@pytest.mark.parametrize(
    ("method", "route", "alternative"),
    [
        ("list_backtest_parameters", "GET /v1/analytics/backtest-parameters", "create_evaluation"),
        ("list_weather_providers", "GET /v1/analytics/weather-providers", "future weather"),
        ("covariate_names", "GET /v1/analytics/covariate-names", "required_covariates"),
    ],
)
def test_a_server_without_the_route_names_the_alternative(
    call: Callable[..., Any], method: str, route: str, alternative: str
) -> None:
    mock = ChapCoreMock({}, openapi=without(route))
    with pytest.raises(UnsupportedRouteError, match=alternative) as caught:
        call(mock.handler, method)
    assert caught.value.operation == method
    assert mock.seen == []
