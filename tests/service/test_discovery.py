"""The discovery routes a form reads: backtest parameters (the bounds the service enforces, read
from the request model it validates with), the future-weather providers, and covariate names
drawn from stored datasets, templates and configured models; all in 2.5.1's shapes."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from chaplab.client import ChapClient
from wire_schemas import assert_matches_chap_core

from .helpers import Evaluated, geojson_for, small_frame

pytestmark = pytest.mark.integration


@pytest.fixture
def http(service_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=service_url, timeout=60) as client:
        yield client


def test_backtest_parameters_give_the_defaults_and_bounds_the_service_enforces(
    http: httpx.Client, evaluated: Evaluated
) -> None:
    path = "/v1/analytics/backtest-parameters"
    parameters = http.get(path).json()
    assert_matches_chap_core("GET", path, parameters)
    by_name = {item["name"]: item for item in parameters}
    assert list(by_name) == [
        "nPeriods",
        "nSplits",
        "stride",
        "nRetrain",
        "futureWeatherProvider",
        "targetColumn",
    ]
    assert by_name["nSplits"]["default"] == 7 and by_name["nSplits"]["type"] == "integer"
    assert by_name["futureWeatherProvider"]["default"] == "climatology"
    assert "minimum" not in by_name["targetColumn"]  # absent, not null, when there is none
    batch = "/v1/analytics/create-backtests"
    base = {"name": "bounds", "modelIds": ["naive_model"], "datasetId": evaluated.dataset.id}
    for name in ("nPeriods", "nSplits", "stride", "nRetrain"):
        limits = by_name[name]
        below = http.post(batch, json={**base, name: limits["minimum"] - 1})
        assert below.status_code == 422 and name in below.text, below.text
        if "maximum" in limits:
            above = http.post(batch, json={**base, name: limits["maximum"] + 1})
            assert above.status_code == 422 and name in above.text, above.text


def test_weather_providers_say_which_reads_the_forecast_window(http: httpx.Client) -> None:
    path = "/v1/analytics/weather-providers"
    providers = http.get(path).json()
    assert_matches_chap_core("GET", path, providers)
    assert {item["id"]: item["leaksFutureData"] for item in providers} == {
        "climatology": False,
        "observed": True,
    }
    assert providers[0]["id"] == "climatology"  # the default first


def test_covariate_names_come_from_datasets_templates_and_configured_models(
    http: httpx.Client, session_client: ChapClient, unique: str
) -> None:
    path = "/v1/analytics/covariate-names"
    frame = small_frame(n_years=1).assign(**{f"humidity_{unique}": 0.5})
    session_client.create_dataset(
        f"covariates {unique}", frame, geojson=geojson_for(sorted(set(frame.location)))
    )
    extra = f"ndvi_{unique}"
    templates = {t.name: t.id for t in session_client.list_model_templates()}
    created = http.post(
        "/v1/crud/configured-models",
        json={
            "name": f"cov{unique}",
            "modelTemplateId": templates["naive_model"],
            "userOptionValues": {},
            "additionalContinuousCovariates": [extra],
        },
    )
    assert created.status_code == 200, created.text
    names = http.get(path).json()
    assert_matches_chap_core("GET", path, names)
    by_name = {item["name"]: item for item in names}
    assert len(by_name) == len(names)  # each name once
    assert by_name["rainfall"]["standard"] is True
    assert "regression_model" in by_name["rainfall"]["requiredBy"]
    assert "naive_model" in by_name["disease_cases"]["requiredBy"]  # a template's target
    assert by_name[f"humidity_{unique}"] == {
        "name": f"humidity_{unique}",
        "standard": False,
        "requiredBy": [],
    }
    assert by_name[extra]["requiredBy"] == [created.json()["name"]]
