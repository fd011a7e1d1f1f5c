"""Prediction setups over HTTP: an evaluation promoted to a repeatable forecast keeps its model
and data settings, runs on fresh observations as a job, and keeps its forecast history; every
answer fits chap-core 2.5.1's published schema, and bad input is refused naming the field with
nothing stored."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from chaplab.client import ChapClient, Evaluation
from chaplab.service import create_app
from chaplab.toolkit import BackgroundServer
from chaplab.vocabulary import FAILURE, PENDING, SUCCESS
from wire_schemas import assert_matches_chap_core

from .helpers import (
    LONG_PERIODS,
    LONG_SPLITS,
    Evaluated,
    geojson_for,
    long_running_frame,
    observations,
    small_frame,
)

pytestmark = pytest.mark.integration
SETUPS = "/v1/crud/prediction-setups"


@pytest.fixture
def http(service_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=service_url, timeout=60) as client:
        yield client


@pytest.fixture
def evaluation(session_client: ChapClient, evaluated: Evaluated, unique: str) -> Evaluation:
    """A finished evaluation of its own (an evaluation backs at most one setup)."""
    return session_client.run_evaluation(
        f"to promote {unique}",
        "naive_model",
        evaluated.dataset.id,
        n_periods=2,
        n_splits=2,
        timeout=120,
    )


def checked(http: httpx.Client, method: str, path: str, status: int = 200, **kwargs: Any) -> Any:
    """The JSON answer of a request, after checking its status and its 2.5.1 shape."""
    answer = http.request(method, path, **kwargs)
    assert answer.status_code == status, answer.text
    body = answer.json()
    assert_matches_chap_core(method, path, body, status)
    return body


def finished(http: httpx.Client, job_id: str) -> str:
    """The job's final status (long-polls until it ends)."""
    status = ""
    for _ in range(20):
        status = http.get(f"/v1/jobs/{job_id}", headers={"Prefer": "wait=10"}).json()
        if status in (SUCCESS, FAILURE):
            return status
    raise AssertionError(f"job {job_id} is still {status}")


def fresh_run(name: str, n_years: int = 3, period_type: str = "month") -> dict[str, Any]:
    frame = small_frame(n_years=n_years, period_type=period_type)
    return {
        "name": name,
        "geojson": geojson_for(sorted(set(frame.location))),
        "providedData": observations(frame),
        "nPeriods": 2,
    }


def test_a_promoted_evaluation_runs_on_fresh_data_and_keeps_its_forecast_history(
    http: httpx.Client, evaluation: Evaluation, unique: str
) -> None:
    created = checked(
        http, "POST", SETUPS, json={"backtestId": evaluation.id, "name": f"setup {unique}"}
    )
    setup = checked(http, "GET", f"{SETUPS}/{created['id']}")
    assert setup["backtestId"] == evaluation.id
    assert setup["configuredModel"]["name"] == "naive_model"
    assert sorted(setup["orgUnits"]) == sorted(evaluation.org_units)
    assert setup["periodType"] == "month"
    assert setup["startPeriod"] == "201501"  # the first period of the evaluation's dataset
    assert setup["scheduleEnabled"] is False
    assert setup["predictions"] == []
    listed = checked(http, "GET", SETUPS)
    assert created["id"] in [item["id"] for item in listed]
    assert "predictions" not in next(item for item in listed if item["id"] == created["id"])

    runs = [fresh_run(f"run {k} {unique}", n_years=2 + k) for k in range(2)]
    results = []
    for body in runs:
        job = checked(http, "POST", f"{SETUPS}/{created['id']}/run", json=body)
        assert finished(http, job["id"]) == SUCCESS
        assert http.get(f"/v1/jobs/{job['id']}/request").json() == body
        results.append(_result(http, job["id"]))

    setup_jobs = checked(http, "GET", f"/v1/jobs?predictionSetupId={created['id']}")
    assert sorted(int(job["result"]) for job in setup_jobs) == results
    assert {job["prediction_setup_id"] for job in setup_jobs} == {created["id"]}
    history = checked(http, "GET", f"{SETUPS}/{created['id']}")["predictions"]
    assert [item["id"] for item in history] == results
    assert {item["predictionSetupId"] for item in history} == {created["id"]}
    assert [item["name"] for item in history] == [body["name"] for body in runs]
    assert {item["modelId"] for item in history} == {"naive_model"}
    # each run forecasts the periods after ITS data: two years of data end a year earlier
    last = [item["dataset"]["lastPeriod"] for item in history]
    assert last[0] < last[1]
    forecast = http.get(f"/v1/crud/predictions/{results[1]}").json()
    assert forecast["periods"][0] > last[1] and forecast["nPeriods"] == 2


def _result(http: httpx.Client, job_id: str) -> int:
    jobs = http.get("/v1/jobs").json()
    return int(next(job for job in jobs if job["id"] == job_id)["result"])


def test_a_setup_is_edited_field_by_field_and_a_bad_edit_changes_nothing(
    http: httpx.Client, evaluation: Evaluation, unique: str
) -> None:
    setup_id = checked(
        http, "POST", SETUPS, json={"backtestId": evaluation.id, "name": f"edit {unique}"}
    )["id"]
    path = f"{SETUPS}/{setup_id}"
    targets = [{"quantile": "0.9", "dataElementId": "de90"}]
    edited = checked(
        http,
        "PATCH",
        path,
        json={"scheduleCronExpression": "0 6 * * 1", "quantileTargets": targets},
    )
    assert edited["name"] == f"edit {unique}"  # not sent: unchanged
    assert edited["scheduleCronExpression"] == "0 6 * * 1"
    assert edited["quantileTargets"] == targets
    renamed = checked(http, "PATCH", path, json={"name": f"renamed {unique}"})
    assert renamed["scheduleCronExpression"] == "0 6 * * 1"
    before = http.get(path).json()
    for body, field in [
        ({"scheduleCronExpression": "61 * * * *"}, "scheduleCronExpression"),
        ({"scheduleCronExpression": "0 0 * * * *"}, "scheduleCronExpression"),
        ({"scheduleEnabled": True}, "scheduleEnabled"),
        ({"quantileTargets": [{"quantile": "median", "dataElementId": "x"}]}, "quantileTargets"),
        ({"backtestId": 1}, "backtestId"),
    ]:
        answer = http.patch(path, json=body)
        assert answer.status_code == 422, (body, answer.text)
        assert field in answer.text
    lost_policy = http.patch(path, json={"alertPolicyId": 999999})
    assert lost_policy.status_code == 404 and "alertPolicyId" in lost_policy.text
    assert http.get(path).json() == before
    assert http.patch(f"{SETUPS}/999999", json={"name": "x"}).status_code == 404


def test_creating_a_setup_refuses_bad_input_and_stores_nothing(
    http: httpx.Client, evaluation: Evaluation, unique: str
) -> None:
    before = http.get(SETUPS).json()
    for body, status, field in [
        ({"backtestId": 999999, "name": "x"}, 404, "backtestId"),
        ({"backtestId": evaluation.id}, 422, "name"),
        ({"backtestId": "one", "name": "x"}, 422, "backtestId"),
        ({"backtestId": evaluation.id, "nme": "x"}, 422, "did you mean 'name'"),
        (
            {"backtestId": evaluation.id, "name": "x", "scheduleEnabled": True},
            422,
            "scheduleEnabled",
        ),
        (
            {"backtestId": evaluation.id, "name": "x", "scheduleCronExpression": "every day"},
            422,
            "scheduleCronExpression",
        ),
        (
            {"backtestId": evaluation.id, "name": "x", "quantileTargets": [{"quantile": "1.5"}]},
            422,
            "quantileTargets",
        ),
    ]:
        answer = http.post(SETUPS, json=body)
        assert answer.status_code == status, (body, answer.text)
        assert field in answer.text
    assert http.get(SETUPS).json() == before
    first = checked(http, "POST", SETUPS, json={"backtestId": evaluation.id, "name": unique})
    again = http.post(SETUPS, json={"backtestId": evaluation.id, "name": "twice"})
    assert again.status_code == 409
    assert f"prediction setup {first['id']}" in again.text
    # a malformed schedule is named before the evaluation's setup is found taken, as in 2.5.1
    bad = {"backtestId": evaluation.id, "name": "x", "scheduleCronExpression": "61 * * * *"}
    assert http.post(SETUPS, json=bad).status_code == 422


def test_a_run_refuses_data_that_does_not_suit_the_setup_and_queues_nothing(
    http: httpx.Client, evaluation: Evaluation, unique: str
) -> None:
    setup_id = checked(http, "POST", SETUPS, json={"backtestId": evaluation.id, "name": unique})[
        "id"
    ]
    run = f"{SETUPS}/{setup_id}/run"
    jobs_before = len(http.get("/v1/jobs").json())
    weekly = fresh_run("weekly", period_type="week")
    no_cases = fresh_run("no cases")
    no_cases["providedData"] = [
        item for item in no_cases["providedData"] if item["featureName"] != "disease_cases"
    ]
    for body, status, field in [
        (weekly, 422, "providedData"),
        (no_cases, 422, "providedData"),
        ({**fresh_run("extra"), "modelId": "naive_model"}, 422, "modelId"),
        ({**fresh_run("none"), "providedData": []}, 422, "providedData"),
        ({**fresh_run("far"), "nPeriods": 0}, 422, "nPeriods"),
    ]:
        answer = http.post(run, json=body)
        assert answer.status_code == status, (field, answer.text)
        assert field in answer.text
    assert http.post(f"{SETUPS}/999999/run", json=fresh_run("lost")).status_code == 404
    assert len(http.get("/v1/jobs").json()) == jobs_before
    assert http.get(f"{SETUPS}/{setup_id}").json()["predictions"] == []


def test_deleting_a_setup_keeps_its_forecasts_and_deleting_the_evaluation_its_setup(
    http: httpx.Client, session_client: ChapClient, evaluation: Evaluation, unique: str
) -> None:
    setup_id = checked(http, "POST", SETUPS, json={"backtestId": evaluation.id, "name": unique})[
        "id"
    ]
    job = http.post(f"{SETUPS}/{setup_id}/run", json=fresh_run(f"kept {unique}")).json()
    assert finished(http, job["id"]) == SUCCESS
    prediction_id = _result(http, job["id"])
    assert checked(http, "DELETE", f"{SETUPS}/{setup_id}") == {"message": "deleted"}
    assert http.get(f"{SETUPS}/{setup_id}").status_code == 404
    assert http.get(f"/v1/jobs/{job['id']}").status_code == 404  # its runs go, as on chap-core
    assert http.get("/v1/jobs", params={"predictionSetupId": setup_id}).json() == []
    assert http.delete(f"{SETUPS}/{setup_id}").status_code == 404
    assert http.get(f"/v1/crud/predictions/{prediction_id}").status_code == 200

    second = checked(http, "POST", SETUPS, json={"backtestId": evaluation.id, "name": "again"})
    session_client.delete_evaluation(evaluation.id)
    assert http.get(f"{SETUPS}/{second['id']}").status_code == 404
    assert second["id"] not in [item["id"] for item in http.get(SETUPS).json()]


def test_a_setup_names_an_alert_policy_which_then_stays(
    http: httpx.Client, evaluation: Evaluation, unique: str
) -> None:
    level = {"name": "watch", "thresholdParams": {"type": "seasonal"}, "exceedanceThreshold": 0.5}
    policy = http.post("/v1/crud/alert-policies", json={"name": unique, "levels": [level]})
    assert policy.status_code == 200, policy.text
    policy_id = policy.json()["id"]
    created = checked(
        http,
        "POST",
        SETUPS,
        json={"backtestId": evaluation.id, "name": unique, "alertPolicyId": policy_id},
    )
    setup = checked(http, "GET", f"{SETUPS}/{created['id']}")
    assert setup["alertPolicy"]["id"] == policy_id
    assert setup["alertPolicy"]["name"] == unique
    assert http.delete(f"/v1/crud/alert-policies/{policy_id}").status_code == 409
    assert checked(http, "DELETE", f"{SETUPS}/{created['id']}") == {"message": "deleted"}
    assert http.delete(f"/v1/crud/alert-policies/{policy_id}").status_code == 200


def test_deleting_a_setup_cancels_its_queued_run_and_deletes_it(
    new_database_url: Callable[[str], str],
) -> None:
    """One worker, busy with a long evaluation: the setup's run waits in the queue when the
    setup is deleted, and is cancelled and deleted with it; it never runs."""
    frame = small_frame(n_years=2)
    geojson = geojson_for(sorted(set(frame.location)))
    app = create_app(new_database_url("setup_cascade"), workers=1)
    with BackgroundServer(app, "127.0.0.1") as server, ChapClient(server.url) as chap:
        dataset = chap.create_dataset("runs", frame, geojson=geojson)
        evaluation = chap.run_evaluation("promoted", "naive_model", dataset.id, 2, 2, timeout=120)
        setup = chap.create_prediction_setup(evaluation.id, "deleted with its runs")
        weeks = chap.create_dataset("long", long_running_frame())
        busy = chap.create_evaluation(
            "busy", "regression_model", weeks.id, LONG_PERIODS, LONG_SPLITS
        )
        run = chap.run_prediction_setup(setup.id, "never run", frame, geojson, n_periods=2)
        assert chap.get_job(run.id).status == PENDING  # behind the long evaluation
        predictions = len(chap.list_predictions())
        assert httpx.delete(f"{server.url}{SETUPS}/{setup.id}").json() == {"message": "deleted"}
        assert httpx.get(f"{server.url}/v1/jobs/{run.id}").status_code == 404
        chap.cancel_job(busy.id)
        assert len(chap.list_predictions()) == predictions
