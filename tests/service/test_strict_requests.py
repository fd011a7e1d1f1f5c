"""Strict where it helps, lenient where chap-core 2.5.1 is: a field a request body does not know
is refused with a 422 naming it and the field it probably meant (``nPriods`` would otherwise
run with the default ``nPeriods``); every field 2.5.1's request takes is taken (its values
converted as 2.5.1's pydantic models convert them: ``"3"`` for a count), and so are the bodies
DHIS2's Modeling App sends."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from chaplab.client import ChapClient

from .helpers import Evaluated, geojson_for, observations, small_frame

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def http(service_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=service_url, timeout=120) as plain:
        yield plain


def refused(answer: httpx.Response, field: str) -> str:
    """The message of the 422's problem about ``field`` (the last part of its location)."""
    assert answer.status_code == 422, answer.text
    messages = [e["msg"] for e in answer.json()["errors"] if str(e["loc"][-1]) == field]
    assert messages, answer.text
    assert field in answer.json()["detail"]
    return str(messages[0])


def job_payload(http: httpx.Client, job_id: str) -> dict[str, Any]:
    request = http.get(f"/v1/jobs/{job_id}/request")
    assert request.status_code == 200, request.text
    body: dict[str, Any] = request.json()
    return body


def test_a_misspelt_field_is_refused_naming_the_field_meant(
    http: httpx.Client, evaluated: Evaluated
) -> None:
    body = {"name": "typo", "modelId": "naive_model", "datasetId": evaluated.dataset.id}
    jobs_before = http.get("/v1/jobs").json()
    answer = http.post("/v1/analytics/create-backtest", json={**body, "nPriods": 2})
    assert refused(answer, "nPriods") == "is not a field of this request; did you mean 'nPeriods'?"
    snake = http.post("/v1/analytics/create-backtest", json={**body, "n_priods": 2})
    assert refused(snake, "n_priods").endswith("did you mean 'n_periods'?")
    nothing_close = http.post("/v1/analytics/create-backtest", json={**body, "colour": "red"})
    assert "its fields: " in refused(nothing_close, "colour")
    assert http.get("/v1/jobs").json() == jobs_before  # nothing was queued


def test_a_misspelt_field_deep_in_a_body_names_the_field_meant(http: httpx.Client) -> None:
    frame = small_frame(n_years=1)
    rows = observations(frame)
    rows[3] = {"featureNme" if key == "featureName" else key: v for key, v in rows[3].items()}
    body = {"name": "typo", "type": "evaluation", "providedData": rows, "dataToBeFetched": []}
    answer = http.post("/v1/analytics/make-dataset", json=body)
    message = refused(answer, "featureNme")
    assert message.endswith("did you mean 'featureName'?")
    problem = next(e for e in answer.json()["errors"] if e["loc"][-1] == "featureNme")
    assert problem["loc"] == ["body", "providedData", 3, "featureNme"]


def test_values_chap_core_converts_are_converted(
    client: ChapClient, http: httpx.Client, evaluated: Evaluated
) -> None:
    body = {
        "name": "lax",
        "modelId": "naive_model",
        "datasetId": str(evaluated.dataset.id),
        "nPeriods": "2",
        "nSplits": 2.0,
    }
    answer = http.post("/v1/analytics/create-backtest", json=body)
    assert answer.status_code == 200, answer.text
    evaluation = client.wait_for_job(answer.json()["id"], timeout=300)
    stored = client.get_evaluation(evaluation.result_id)
    assert (stored.dataset_id, stored.n_periods, stored.n_splits) == (evaluated.dataset.id, 2, 2)


def test_every_field_chap_core_takes_is_taken(
    client: ChapClient, http: httpx.Client, evaluated: Evaluated
) -> None:
    """2.5.1's ``MakeBacktestRequest`` and ``MakePredictionRequest`` with every field they have,
    as a client written for 2.5.1 may send them (an integer ``modelId`` included)."""
    model = next(m for m in client.list_configured_models() if m.name == "naive_model")
    backtest = {
        "name": "every field",
        "modelId": model.id,
        "datasetId": evaluated.dataset.id,
        "nPeriods": 2,
        "nSplits": 2,
        "stride": 1,
        "nRetrain": 2,
        "futureWeatherProvider": "climatology",
        "targetColumn": "disease_cases",
    }
    answer = http.post("/v1/analytics/create-backtest", json=backtest)
    assert answer.status_code == 200, answer.text
    assert client.wait_for_job(answer.json()["id"], timeout=300).status == "SUCCESS"
    too_many = http.post("/v1/analytics/create-backtest", json={**backtest, "nRetrain": 3})
    assert "more than the 2 splits" in refused(too_many, "nRetrain")
    frame = small_frame(n_years=2)
    prediction = {
        "name": "every field",
        "modelId": "naive_model",
        "nPeriods": 2,
        "futureWeatherProvider": "climatology",
        "metaData": {"source": "a DHIS2 instance", "run": 7},
        "type": "prediction",
        "geojson": geojson_for(sorted(set(frame.location))),
        "providedData": observations(frame),
        "dataSources": [{"covariate": "rainfall", "dataElementId": "DE_RAIN"}],
        "dataToBeFetched": [],
    }
    answer = http.post("/v1/analytics/make-prediction", json=prediction)
    assert answer.status_code == 200, answer.text
    job = client.wait_for_job(answer.json()["id"], timeout=300)
    stored = http.get(f"/v1/crud/predictions/{job.result_id}").json()
    assert stored["metaData"] == {"source": "a DHIS2 instance", "run": 7}
    ahead = http.post(
        "/v1/analytics/make-prediction", json={**prediction, "futureWeatherProvider": "observed"}
    )
    assert "cannot forecast ahead" in refused(ahead, "futureWeatherProvider")


def test_the_bodies_the_modeling_app_sends_are_taken(
    client: ChapClient, http: httpx.Client, evaluated: Evaluated
) -> None:
    """The request bodies DHIS2's Modeling App builds (chap-frontend, apps/modeling-app):
    an evaluation on its data (checked with ``dryRun`` first), a prediction setup with quantile
    targets, its edit, and a run of it."""
    frame = small_frame(n_years=2)
    geojson = geojson_for(sorted(set(frame.location)))
    backtest = {
        "name": "from the app",
        "geojson": geojson,
        "providedData": observations(frame),
        "dataSources": [{"covariate": "rainfall", "dataElementId": "DE_RAIN"}],
        "dataToBeFetched": [],
        "modelId": "naive_model",
        "nPeriods": 2,
        "nSplits": 2,
        "stride": 1,
    }
    checked = http.post("/v1/analytics/create-backtest-with-data/?dryRun=true", json=backtest)
    assert checked.status_code == 200, checked.text
    assert checked.json()["rejected"] == [] and checked.json()["importedCount"] == 2
    started = http.post("/v1/analytics/create-backtest-with-data/", json=backtest)
    assert started.status_code == 200, started.text
    evaluation = client.wait_for_job(started.json()["id"], timeout=300).result_id
    targets = [{"quantile": "0.9", "dataElementId": "DE_HIGH"}]
    setup = {"backtestId": evaluation, "name": "from the app", "quantileTargets": targets}
    created = http.post("/v1/crud/prediction-setups", json=setup)
    assert created.status_code == 200, created.text
    setup_id = created.json()["id"]
    edit = {"name": "renamed in the app", "quantileTargets": targets}
    assert http.patch(f"/v1/crud/prediction-setups/{setup_id}", json=edit).status_code == 200
    run = {
        "name": "run from the app",
        "geojson": geojson,
        "providedData": observations(frame),
        "nPeriods": 2,
        "type": "prediction",
    }
    ran = http.post(f"/v1/crud/prediction-setups/{setup_id}/run", json=run)
    assert ran.status_code == 200, ran.text
    assert client.wait_for_job(ran.json()["id"], timeout=300).status == "SUCCESS"


def test_every_request_body_refuses_fields_it_does_not_know(service_url: str) -> None:
    """Each JSON request body our service reads is a model that forbids unknown fields, but
    for the few that are free-form by design (a chart facet's coordinates, a model service's
    own description of itself)."""
    document = httpx.get(f"{service_url}/openapi.json").json()
    schemas = document["components"]["schemas"]
    open_bodies = []
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            content = operation.get("requestBody", {}).get("content", {})
            schema = content.get("application/json", {}).get("schema")
            if schema is None:
                continue
            resolved = schemas[schema["$ref"].rsplit("/", 1)[-1]] if "$ref" in schema else schema
            if resolved.get("additionalProperties") is not False:
                open_bodies.append(f"{method.upper()} {path}")
    assert sorted(open_bodies) == sorted(FREE_FORM_BODIES)


FREE_FORM_BODIES = [
    "POST /v1/visualization/backtest-plots/{visualization_name}/{backtest_id}/subplot",
]
"""Request bodies that are maps by design: a facet's coordinates, dimension -> value."""
