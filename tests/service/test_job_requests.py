"""``GET /v1/jobs/{id}/request``: the JSON body a job was queued with, as it was sent, for every
kind of job a request queues; kept as long as the job and deleted with it."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from chaplab.vocabulary import FAILURE, SUCCESS
from wire_schemas import assert_matches_chap_core

from .helpers import Evaluated, geojson_for, observations, small_frame

pytestmark = pytest.mark.integration


@pytest.fixture
def http(service_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=service_url, timeout=60) as client:
        yield client


def wait(http: httpx.Client, job_id: str) -> str:
    for _ in range(20):
        status = http.get(f"/v1/jobs/{job_id}", headers={"Prefer": "wait=10"}).json()
        if status in (SUCCESS, FAILURE):
            return status
    raise AssertionError(f"job {job_id} did not end")


def test_each_job_keeps_the_body_it_was_queued_with_until_it_is_deleted(
    http: httpx.Client, evaluated: Evaluated, unique: str
) -> None:
    frame = small_frame(n_years=2)
    data = {
        "providedData": observations(frame),
        "geojson": geojson_for(sorted(set(frame.location))),
        "dataToBeFetched": [],
    }
    bodies = {
        "/v1/analytics/create-backtest": {
            "name": f"asked {unique}",
            "modelId": "naive_model",
            "datasetId": evaluated.dataset.id,
            "nPeriods": 2,
            "nSplits": 2,
        },
        "/v1/analytics/make-dataset": {"name": f"data {unique}", **data},
        "/v1/analytics/make-prediction": {
            "name": f"forecast {unique}",
            "modelId": "naive_model",
            "nPeriods": 2,
            **data,
        },
    }
    for path, body in bodies.items():
        queued = http.post(path, json=body)
        assert queued.status_code == 200, queued.text
        job_id = queued.json()["id"]
        request = http.get(f"/v1/jobs/{job_id}/request")
        assert request.status_code == 200
        assert request.json() == body  # as sent: defaults not filled in, order kept
        assert_matches_chap_core("GET", f"/v1/jobs/{job_id}/request", request.json())
        assert wait(http, job_id) == SUCCESS
        assert http.get(f"/v1/jobs/{job_id}/request").json() == body
        assert http.delete(f"/v1/jobs/{job_id}").status_code == 204
        assert http.get(f"/v1/jobs/{job_id}/request").status_code == 404


def test_an_unknown_job_or_one_queued_without_a_body_has_no_request(http: httpx.Client) -> None:
    missing = http.get("/v1/jobs/no-such-job/request")
    assert missing.status_code == 404
    assert "no-such-job" in missing.text
    demo = [job for job in http.get("/v1/jobs").json() if job["name"].startswith("Demo")]
    for job in demo:  # the demo's evaluation job was queued by the service itself
        answer = http.get(f"/v1/jobs/{job['id']}/request")
        assert answer.status_code == 404
        assert "not queued by a request" in answer.text
