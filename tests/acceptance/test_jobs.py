"""Spec section 3: job statuses, when an evaluation becomes visible, and how a client polls."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import pytest

from chaplab import AsyncChapClient, ChapClient
from chaplab.client import JobFailedError

from .helpers import NON_TERMINAL, job_record

KNOWN_STATUSES = NON_TERMINAL | {"SUCCESS", "FAILURE", "REVOKED"}
JOB_ID = "job-7f3a"


def test_listed_job_statuses_are_known_upper_case_names(http: httpx.Client) -> None:
    jobs = http.get("/v1/jobs").json()
    assert jobs
    for job in jobs:
        assert job["status"] in KNOWN_STATUSES, job


def test_evaluation_is_listed_only_once_its_job_is_success(http: httpx.Client, unique: str) -> None:
    dataset = next(d for d in http.get("/v1/crud/datasets").json() if d["type"] == "evaluation")
    # the slowest model over many splits, so that the job is seen before it ends
    model_name = next(
        m["name"]
        for m in http.get("/v1/crud/configured-models").json()
        if m["name"].startswith("regression_model")
    )
    name = f"visible {unique}"
    created = http.post(
        "/v1/analytics/create-backtest",
        json={"name": name, "modelId": model_name, "datasetId": dataset["id"], "nSplits": 12},
    )
    assert created.status_code < 300, created.text
    job_id = created.json()["id"]
    seen_before_success = []
    give_up = time.monotonic() + 120
    while True:
        listed = name in [e["name"] for e in http.get("/v1/crud/backtests").json()]
        status = http.get(f"/v1/jobs/{job_id}").json().upper()
        if listed:
            # the list was read before the status: the job was already SUCCESS then
            assert status == "SUCCESS", f"listed while the job was {status}"
        if status not in NON_TERMINAL:
            break
        seen_before_success.append(status)
        assert time.monotonic() < give_up, "the evaluation job did not finish"
        time.sleep(0.05)
    assert status == "SUCCESS", job_record(http, job_id)
    assert seen_before_success, "the job was never observed before it finished"
    assert name in [e["name"] for e in http.get("/v1/crud/backtests").json()]


# --- the client, against a scripted server ------------------------------------------------


def scripted_jobs(statuses: list[str]) -> tuple[httpx.MockTransport, list[str]]:
    """A server whose job answers the given statuses in turn (the last one repeats)."""
    served: list[str] = []

    def current() -> str:
        return statuses[min(len(served), len(statuses) - 1)]

    def handle(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path == f"/v1/jobs/{JOB_ID}":
            status = current()
            served.append(status)
            return httpx.Response(200, json=status)
        if path == "/v1/jobs":
            record = {"id": JOB_ID, "status": current(), "result": "12", "error": None}
            return httpx.Response(200, json=[record])
        if path == f"/v1/jobs/{JOB_ID}/logs":
            return httpx.Response(200, json={"stdout": "", "stderr": ""})
        return httpx.Response(404, json={"detail": f"no route {path}"})

    return httpx.MockTransport(handle), served


@pytest.mark.parametrize("status", ["pending", "Started", "success", "running"])
def test_client_upper_cases_the_status(status: str) -> None:
    transport, _ = scripted_jobs([status])
    with ChapClient("http://chap.test", transport=transport) as client:
        assert client.job_status(JOB_ID) == status.upper()


def test_client_polls_through_every_non_terminal_status() -> None:
    sequence = ["pending", "QUEUED", "Running", "started", "processing", "success"]
    transport, served = scripted_jobs(sequence)
    with ChapClient("http://chap.test", transport=transport) as client:
        job = client.wait_for_job(JOB_ID, timeout=60, poll_interval=0.01)
    assert job.status == "SUCCESS"
    assert job.result == "12"
    assert [s.upper() for s in served[: len(sequence)]] == [s.upper() for s in sequence]
    assert len(served) == len(sequence), "the client kept polling after a terminal status"


@pytest.mark.parametrize("terminal", ["FAILURE", "revoked", "CANCELLED"])
def test_client_stops_polling_outside_the_non_terminal_set(terminal: str) -> None:
    transport, served = scripted_jobs(["PENDING", terminal])
    with (
        ChapClient("http://chap.test", transport=transport) as client,
        pytest.raises(JobFailedError),
    ):
        client.wait_for_job(JOB_ID, timeout=60, poll_interval=0.01)
    assert len(served) == 2, f"polled {served}"


def test_async_client_polls_until_terminal() -> None:
    transport, served = scripted_jobs(["queued", "processing", "SUCCESS"])

    async def scenario() -> Any:
        async with AsyncChapClient("http://chap.test", transport=transport) as client:
            assert await client.job_status(JOB_ID) == "QUEUED"
            return await client.wait_for_job(JOB_ID, timeout=60, poll_interval=0.01)

    job = asyncio.run(scenario())
    assert job.status == "SUCCESS"
    assert "PROCESSING" in [s.upper() for s in served]


def test_get_job_resolves_the_result_from_the_job_list() -> None:
    requested: list[str] = []
    record = {"id": JOB_ID, "status": "success", "result": "41", "error": None}
    other = {"id": "other", "status": "PENDING", "result": None}

    def handle(request: httpx.Request) -> httpx.Response:
        requested.append(request.url.path)
        if request.url.path == "/v1/jobs":
            return httpx.Response(200, json=[other, record])
        return httpx.Response(200, json="SUCCESS")

    with ChapClient("http://chap.test", transport=httpx.MockTransport(handle)) as client:
        job = client.get_job(JOB_ID)
    assert job.id == JOB_ID and job.result == "41" and job.status == "SUCCESS"
    assert "/v1/jobs" in requested
