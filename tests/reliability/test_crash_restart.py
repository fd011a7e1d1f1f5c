"""Crash and restart: ``chaplab serve`` on a file database is killed with SIGKILL while an
evaluation runs and while datasets are being uploaded, then started again on the same file.

An evaluation that must still run at the kill is one whose model runs on a model service that
never finishes its jobs (the stand-in's ``hold`` mode): built-in evaluations of any size the
tests can afford end in well under a second on a fast machine.

Checks: every row a client had read is back unchanged; no job worker outlives the killed
service; the interrupted job is FAILURE with an error naming the restart and no evaluation is
stored for it; no half-written evaluation or dataset is listed; new jobs run; a client waiting
on the job meanwhile reports a connection error, or, told to retry long enough, resumes and
reports that FAILURE.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from chaplab.client import (
    ChapClient,
    ChapConnectionError,
    JobFailedError,
    RetryPolicy,
)
from service.model_service_stand_in import StandIn, registered_stand_in

from .crash_data import (
    dataset_body,
    evaluation_named,
    missing_or_changed,
    observations_of,
    snapshot,
)
from .serve_process import ServeProcess, free_port
from .settings import BOUNDS

RUNNING_EVALUATION = dict(n_periods=3, n_splits=100)  # runs for a second on the enlarged dataset
ENLARGED_COPIES = 24
# A worker ends at once when its lifeline closes; on a loaded machine the fork server may still
# be importing the job code when the service is killed, and only then fork the worker that ends.
ORPHAN_GRACE_SECONDS = 20.0
STARTED_WAIT_SECONDS = 60.0
PATIENT = RetryPolicy(max_retries=400, backoff=0.1, max_backoff=0.25, jitter=False)
IMPATIENT = RetryPolicy(max_retries=2, backoff=0.05, jitter=False)


@dataclass
class Waiter:
    """A client waiting on a job in a thread; ``outcome`` is the job or the error it got."""

    url: str
    job_id: str
    retry: RetryPolicy
    outcome: Any = None

    def __post_init__(self) -> None:
        self.thread = threading.Thread(target=self._wait, daemon=True)
        self.thread.start()

    def _wait(self) -> None:
        with ChapClient(self.url, retry=self.retry, timeout=30) as client:
            try:
                self.outcome = client.wait_for_job(self.job_id, timeout=300)
            except Exception as error:  # noqa: BLE001 - the test inspects what the client raised
                self.outcome = error

    def result(self) -> Any:
        self.thread.join(360)
        assert not self.thread.is_alive(), "the waiting client never returned"
        return self.outcome


@pytest.fixture
def service(tmp_path: Path, new_database_url: Callable[[str], str]) -> Iterator[ServeProcess]:
    with ServeProcess(new_database_url("crash"), tmp_path, port=free_port()) as running:
        running.start()
        yield running


@pytest.fixture
def held_model(service: ServeProcess) -> Iterator[str]:
    """A configured model whose model service takes its jobs and never finishes them."""
    stand_in = StandIn("held-by-the-crash-test", mode="hold")
    with registered_stand_in(service.url, stand_in), ChapClient(service.url) as client:
        template = client.register_template_from_service(stand_in.service_id)
        yield client.create_configured_model("held", template.id).name


def send_partially(url: str, body: bytes, fraction: float) -> socket.socket:
    """Open a connection and send the head and ``fraction`` of a dataset upload's body."""
    host, port = httpx.URL(url).host, httpx.URL(url).port
    sock = socket.create_connection((host, port), timeout=30)
    head = (
        f"POST /v1/crud/datasets HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json"
        f"\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    sock.sendall(head + body[: int(len(body) * fraction)])
    return sock


def wait_until_started(client: ChapClient, job_id: str) -> None:
    deadline = time.monotonic() + STARTED_WAIT_SECONDS
    while client.job_status(job_id) != "STARTED":
        assert time.monotonic() < deadline, "the evaluation job never started"
        time.sleep(0.05)


def prepare_content(client: ChapClient, url: str) -> dict[str, Any]:
    """Datasets, configured models and a finished evaluation; returns the big upload body."""
    demo = observations_of(url, 1)
    for copies in (1, 2):
        response = httpx.post(
            f"{url}/v1/crud/datasets",
            timeout=120,
            json=dataset_body(demo, f"stored_{copies}", copies),
        )
        assert response.status_code == 200, response.text
    client.create_configured_model("crash", 2, {"n_seasons": 2})
    client.create_configured_model("crash", 3, {"n_lags": 2})
    stored = client.list_datasets()[-1]
    client.run_evaluation(
        "finished before the crash",
        "seasonal_naive:crash",
        stored.id,
        n_periods=2,
        n_splits=2,
        timeout=300,
    )
    return dataset_body(demo, "uploaded during the crash", 4)


def crash_round(
    service: ServeProcess, client: ChapClient, upload: dict[str, Any], held: str, round_: int
) -> None:
    """One kill and restart, with the checks of the module docstring."""
    before = snapshot(client)
    stored = client.list_datasets()[-1]
    job = client.create_evaluation(f"interrupted {round_}", held, stored.id, 2, 2)
    wait_until_started(client, job.id)
    impatient = Waiter(service.url, job.id, IMPATIENT)
    patient = Waiter(service.url, job.id, PATIENT)
    body = json.dumps({**upload, "name": f"{upload['name']} {round_}"}).encode()
    half_sent = send_partially(service.url, body, 0.5)
    fully_sent = send_partially(service.url, body, 1.0)
    time.sleep(0.2)
    assert client.job_status(job.id) == "STARTED", "the evaluation ended before the kill"
    old_group = service.pid

    service.kill()
    half_sent.close()
    fully_sent.close()
    assert_no_orphans(service, old_group)
    assert isinstance(impatient.result(), ChapConnectionError), impatient.outcome
    service.start()

    outcome = patient.result()
    final = client.get_job(job.id)
    check_reported_status(client, outcome, final)
    after = snapshot(client)
    assert missing_or_changed(before, after) == []
    check_no_half_written_rows(before, after, upload)


def check_reported_status(client: ChapClient, outcome: Any, final: Any) -> None:
    """The interrupted job is FAILURE naming the restart, with no result and no evaluation
    stored, and the resumed client reports just that. The killed service's worker ended with it
    (lifeline) and a worker's final write only lands while its attempt is the job's, so SUCCESS
    would mean a worker finished a job its service no longer runs."""
    assert final.status == "FAILURE", f"the interrupted job is {final.status}: {final}"
    assert final.error is not None and "restart" in final.error, final.error
    assert final.result is None, final
    assert isinstance(outcome, JobFailedError), f"the resumed client got {outcome!r}"
    assert outcome.status == "FAILURE" and outcome.error == final.error
    assert evaluation_named(client, final.name) == []


def check_no_half_written_rows(
    before: dict[str, Any], after: dict[str, Any], upload: dict[str, Any]
) -> None:
    assert set(after["evaluations"]) == set(before["evaluations"]), "an evaluation appeared"
    for dataset_id in set(after["datasets"]) - set(before["datasets"]):
        # Only the fully sent upload may have been stored, and then completely.
        assert after["datasets"][dataset_id]["name"].startswith(upload["name"])
        assert len(after["observations"][dataset_id]) == len(upload["observations"])


def assert_no_orphans(service: ServeProcess, group: int) -> None:
    """No process of the killed service's group (a job worker) outlives it by more than
    ``ORPHAN_GRACE_SECONDS``: workers hold a lifeline to the service and end with it."""
    deadline = time.monotonic() + ORPHAN_GRACE_SECONDS
    while service.group_alive(group) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not service.group_alive(group), (
        "job worker processes of the killed service still run after "
        f"{ORPHAN_GRACE_SECONDS} s: they outlive the service and finish its jobs on their own "
        f"({service.group_members(group)})"
    )


def test_kill_during_an_evaluation_and_uploads_loses_nothing_committed(
    service: ServeProcess, held_model: str
) -> None:
    client = ChapClient(service.url, timeout=120, retry=PATIENT)
    upload = prepare_content(client, service.url)
    for round_ in range(1, BOUNDS.crash_rounds + 1):
        crash_round(service, client, upload, held_model, round_)
    finished = client.run_evaluation(
        "after the restarts",
        "seasonal_naive:crash",
        client.list_datasets()[0].id,
        n_periods=2,
        n_splits=2,
        timeout=300,
    )
    assert finished.name == "after the restarts"
    assert finished.aggregate_metrics


def test_a_job_interrupted_by_a_kill_ends_as_failure_naming_the_restart(
    service: ServeProcess,
) -> None:
    """The job's worker process must not outlive the killed service and finish the job on its
    own: the interrupted job is FAILURE after the restart, and its evaluation is not stored."""
    client = ChapClient(service.url, timeout=120, retry=PATIENT)
    demo = observations_of(service.url, 1)
    response = httpx.post(
        f"{service.url}/v1/crud/datasets",
        timeout=120,
        json=dataset_body(demo, "enlarged", ENLARGED_COPIES),
    )
    assert response.status_code == 200, response.text
    client.create_configured_model("crash", 3, {"n_lags": 2})
    job = client.create_evaluation(
        "interrupted", "regression_model:crash", response.json()["id"], **RUNNING_EVALUATION
    )
    wait_until_started(client, job.id)
    old_group = service.pid

    service.kill()
    assert_no_orphans(service, old_group)
    service.start()
    failed = client.get_job(job.id)
    assert failed.status == "FAILURE", failed
    assert "restart" in (failed.error or "") and failed.result is None, failed
    assert evaluation_named(client, "interrupted") == []
