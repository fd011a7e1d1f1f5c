"""Future-weather providers wired through evaluations: a request names one, the evaluation and
its specification say which was used, ``observed`` hands a covariate model the forecast
window's own weather (so its forecasts differ from climatology's), an unknown provider is
refused naming the field, and a setup promoted from a look-ahead evaluation cannot forecast."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from chaplab.client import ChapClient
from chaplab.vocabulary import SUCCESS
from wire_schemas import assert_matches_chap_core

from .helpers import Evaluated, geojson_for, observations, small_frame

pytestmark = pytest.mark.integration
MODEL = "regression_model"  # reads rainfall and mean_temperature


@pytest.fixture
def http(service_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=service_url, timeout=60) as client:
        yield client


def evaluate(http: httpx.Client, client: ChapClient, body: dict) -> dict:
    queued = http.post("/v1/analytics/create-backtest", json=body)
    assert queued.status_code == 200, queued.text
    job = client.wait_for_job(queued.json()["id"], timeout=180)
    assert job.status == SUCCESS, job.error
    read = http.get(f"/v1/crud/backtests/{job.result_id}/info").json()
    return read


def test_an_evaluation_with_observed_weather_differs_and_says_so(
    http: httpx.Client, session_client: ChapClient, evaluated: Evaluated, unique: str
) -> None:
    base = {
        "modelId": MODEL,
        "datasetId": evaluated.dataset.id,
        "nPeriods": 2,
        "nSplits": 2,
    }
    climatology = evaluate(http, session_client, {**base, "name": f"clim {unique}"})
    observed = evaluate(
        http,
        session_client,
        {**base, "name": f"obs {unique}", "futureWeatherProvider": "observed"},
    )
    assert climatology["futureWeatherProvider"] == "climatology"
    assert observed["futureWeatherProvider"] == "observed"
    assert observed["aggregateMetrics"] != climatology["aggregateMetrics"]
    # filed under different specifications, each saying its provider
    specifications = http.get(
        "/v1/crud/backtest-specifications", params={"datasetId": evaluated.dataset.id}
    ).json()
    providers = {item["futureWeatherProvider"] for item in specifications if item["nSplits"] == 2}
    assert {"climatology", "observed"} <= providers

    created = http.post(
        "/v1/crud/prediction-setups", json={"backtestId": observed["id"], "name": unique}
    )
    assert created.status_code == 200
    assert_matches_chap_core("POST", "/v1/crud/prediction-setups", created.json())
    frame = small_frame(n_years=3)
    run = http.post(
        f"/v1/crud/prediction-setups/{created.json()['id']}/run",
        json={
            "name": "ahead",
            "geojson": geojson_for(sorted(set(frame.location))),
            "providedData": observations(frame),
        },
    )
    assert run.status_code == 400
    assert "'observed'" in run.text and "cannot forecast ahead" in run.text


def test_an_unknown_provider_is_refused_naming_the_field(
    http: httpx.Client, evaluated: Evaluated
) -> None:
    jobs_before = len(http.get("/v1/jobs").json())
    for path, body in [
        (
            "/v1/analytics/create-backtest",
            {"name": "x", "modelId": MODEL, "datasetId": evaluated.dataset.id},
        ),
        (
            "/v1/analytics/create-backtests",
            {"name": "x", "modelIds": [MODEL], "datasetId": evaluated.dataset.id},
        ),
    ]:
        answer = http.post(path, json={**body, "futureWeatherProvider": "oracle"})
        assert answer.status_code == 422
        assert "futureWeatherProvider" in answer.text
        assert "'oracle' is not a future-weather provider" in answer.text
    assert len(http.get("/v1/jobs").json()) == jobs_before
