"""Job workers: they end with the service, a result is never stored for a job ended meanwhile,
and a worker that fails to start or dies before writing leaves its job FAILURE, not STARTED.
Queued jobs are claimed oldest first, never twice when runners look at once (on PostgreSQL too,
where transactions run side by side)."""

from __future__ import annotations

import os
import re
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from chaplab.client import ChapClient, JobFailedError
from chaplab.service import create_app, job_runner
from chaplab.service.db import make_engine, prepare_database, session_factory, transaction
from chaplab.service.job_types import queue_dataset_job
from chaplab.service.storage import dataset_content
from chaplab.service.tables import DatasetRow, JobLogRow, JobRow, utc_now
from chaplab.service.wire.common import Observation
from chaplab.service.wire.observations import ObservationColumns
from chaplab.service.worker import SERVICE_GONE_EXIT_CODE, WORK, Write, exit_with_service, run_job
from chaplab.toolkit import BackgroundServer
from chaplab.vocabulary import FAILURE, PENDING, STARTED, JobType

from .helpers import observations, small_frame

pytestmark = pytest.mark.integration
WORKER_EXIT_CODE = 3
STARTS_SETTING = "CHAPLAB_TEST_WORKER_STARTS"
MODEL = "naive_model:plain"
CLAIMING_RUNNERS = 4
QUEUED_JOBS = 60


def sleep_until_the_service_is_gone(lifeline: Any) -> None:
    """A worker's body that only waits: it ends through its lifeline."""
    exit_with_service(lifeline)
    time.sleep(120)


def exit_before_writing(database_url: str, jobs: Any, lifeline: Any, settings: Any) -> None:
    """A worker that dies as soon as it is given a job, as one that crashes would."""
    jobs.recv()
    os._exit(WORKER_EXIT_CODE)


def test_a_worker_exits_when_the_service_end_of_its_lifeline_closes() -> None:
    context = job_runner.worker_context()
    reader, writer = context.Pipe(duplex=False)
    worker = context.Process(target=sleep_until_the_service_is_gone, args=(reader,), daemon=True)
    worker.start()
    worker.join(1)
    assert worker.is_alive()
    writer.close()
    worker.join(60)
    assert worker.exitcode == SERVICE_GONE_EXIT_CODE


def test_a_worker_whose_job_was_ended_meanwhile_stores_nothing(
    new_database_url: Callable[[str], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The restarted service fails the job while its old worker computes: the worker's result
    (a dataset here) is rolled back and the job stays FAILURE naming the restart."""
    url = new_database_url("fenced")
    engine = make_engine(url)
    prepare_database(engine)
    factory = session_factory(engine)
    wire = ObservationColumns.of(
        [Observation.model_validate(o) for o in observations(small_frame(n_years=2))]
    )
    content = dataset_content(wire, None, [], "observations")
    with transaction(factory) as session:
        job = queue_dataset_job(session, "fenced", "evaluation", content.to_payload())
        job.status, job.start_time = STARTED, utc_now()
    compute = WORK[JobType.CREATE_DATASET]

    def restart_while_computing(*arguments: Any) -> Write:
        write = compute(*arguments)

        def restart_then_write(session: Any) -> int:
            assert job_runner.fail_interrupted_jobs(factory) == 1
            return write(session)

        return restart_then_write

    monkeypatch.setitem(WORK, JobType.CREATE_DATASET, restart_while_computing)
    run_job(url, job.id)
    with factory() as session:
        ended = session.get_one(JobRow, job.id)
        expected = (FAILURE, job_runner.RESTART_ERROR, None)
        assert (ended.status, ended.error, ended.result) == expected
        assert session.scalars(select(DatasetRow)).all() == []
        lines = session.scalars(select(JobLogRow.line).where(JobLogRow.job_id == job.id)).all()
    assert "the result was not stored" in lines[-1]
    engine.dispose()


@contextmanager
def small_service(database_url: str) -> Iterator[tuple[ChapClient, int]]:
    """A service of its own with one small dataset; yields a client and the dataset id. Its
    workers start with the service: a test changes how they run before it starts."""
    with (
        BackgroundServer(
            create_app(database_url, workers=1, seed_demo=False), "127.0.0.1"
        ) as server,
        ChapClient(server.url) as client,
    ):
        dataset = client.create_dataset("small", small_frame(n_years=2))
        templates = {template.name: template.id for template in client.list_model_templates()}
        client.create_configured_model("plain", templates["naive_model"])
        yield client, dataset.id


def test_a_worker_that_dies_before_writing_fails_its_job(
    new_database_url: Callable[[str], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(job_runner, "serve_jobs", exit_before_writing)
    with (
        small_service(new_database_url("workers")) as (client, dataset_id),
        pytest.raises(JobFailedError) as failed,
    ):
        client.run_evaluation("dies", MODEL, dataset_id, 1, 2, timeout=120)
    assert failed.value.status == "FAILURE"
    assert f"exit code {WORKER_EXIT_CODE} without recording a result" in (failed.value.error or "")


def exit_at_once(database_url: str, jobs: Any, lifeline: Any, settings: Any) -> None:
    """A worker that ends as soon as it starts, as one of a script without a ``__main__``
    guard does; it notes its start in the file the service's settings name."""
    with open(settings[STARTS_SETTING], "a") as starts:
        starts.write(f"{os.getpid()}\n")
    os._exit(WORKER_EXIT_CODE)


def test_workers_that_die_waiting_are_started_for_jobs_only_not_again_and_again(
    new_database_url: Callable[[str], str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    starts = tmp_path / "starts"
    starts.touch()
    monkeypatch.setenv(STARTS_SETTING, str(starts))
    monkeypatch.setattr(job_runner, "serve_jobs", exit_at_once)
    with small_service(new_database_url("cold")) as (client, dataset_id):
        time.sleep(5 * job_runner.WATCH_INTERVAL_SECONDS)  # rounds pass, nothing is queued
        assert len(starts.read_text().split()) == 1  # the worker started ahead of time
        with pytest.raises(JobFailedError) as failed:
            client.run_evaluation("no worker", MODEL, dataset_id, 1, 2, timeout=120)
    assert f"exit code {WORKER_EXIT_CODE} without recording a result" in (failed.value.error or "")
    assert len(starts.read_text().split()) == 2  # and the one started for the job


def test_a_worker_that_cannot_start_fails_its_job_and_the_runner_goes_on(
    new_database_url: Callable[[str], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    context = job_runner.worker_context()

    class NoProcesses:
        """A context whose processes cannot start (as when the system has none left)."""

        Pipe = staticmethod(context.Pipe)

        @staticmethod
        def Process(**_options: Any) -> Any:  # noqa: N802 - the multiprocessing name
            def refuse() -> None:
                raise OSError(11, "Resource temporarily unavailable")

            return type("Unstartable", (), {"start": staticmethod(refuse)})()

    monkeypatch.setattr(job_runner, "worker_context", lambda: NoProcesses)
    with small_service(new_database_url("workers")) as (client, dataset_id):
        with pytest.raises(JobFailedError) as failed:
            client.run_evaluation("cannot start", MODEL, dataset_id, 1, 2, timeout=120)
        assert "could not start" in (failed.value.error or "")
        monkeypatch.undo()
        finished = client.run_evaluation("starts", MODEL, dataset_id, 1, 2, timeout=120)
    assert finished.name == "starts"


def worker_pid(client: ChapClient, job_id: str) -> int:
    """The process id of the worker that ran the job, from its first log line."""
    found = re.search(r"worker process (\d+) started", client.job_logs(job_id))
    assert found is not None, f"job {job_id} logged no worker"
    return int(found.group(1))


def test_a_warm_worker_runs_job_after_job_and_is_replaced_after_its_last_one(
    new_database_url: Callable[[str], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """(A cancelled job's worker is killed: tests/service/test_jobs.py.)"""
    monkeypatch.setattr(job_runner, "JOBS_PER_WORKER", 2)
    with small_service(new_database_url("warm")) as (client, dataset_id):
        pids = []
        for n in range(3):
            job = client.create_evaluation(f"run {n}", MODEL, dataset_id, 1, 2)
            pids.append(worker_pid(client, client.wait_for_job(job.id, timeout=120).id))
    assert pids[0] == pids[1] != pids[2]  # a fresh worker after the first one's second job


def test_a_ctrl_c_in_the_services_terminal_leaves_its_workers_alone(
    new_database_url: Callable[[str], str],
) -> None:
    """A terminal's Ctrl-C reaches the whole process group; a worker ends with the service
    (its lifeline), not on its own, so a service that outlives the Ctrl-C (``chaplab lab``
    leaves that to JupyterLab) keeps its workers and their jobs."""
    with small_service(new_database_url("ctrl-c")) as (client, dataset_id):
        first = client.create_evaluation("before", MODEL, dataset_id, 1, 2)
        pid = worker_pid(client, client.wait_for_job(first.id, timeout=120).id)
        os.kill(pid, signal.SIGINT)
        second = client.create_evaluation("after", MODEL, dataset_id, 1, 2)
        assert worker_pid(client, client.wait_for_job(second.id, timeout=120).id) == pid


@pytest.fixture
def factory(new_database_url: Callable[[str], str]) -> Iterator[sessionmaker[Session]]:
    """Sessions of a new, empty database."""
    engine = make_engine(new_database_url("claims"))
    prepare_database(engine)
    yield session_factory(engine)
    engine.dispose()


def queue_jobs(factory: sessionmaker[Session], count: int) -> list[str]:
    """``count`` PENDING jobs created one second apart; their ids, oldest first."""
    first = utc_now() - timedelta(seconds=count)
    with transaction(factory) as session:
        queued = [queue_dataset_job(session, f"job {n}", "evaluation", {}) for n in range(count)]
        for n, job in enumerate(queued):
            job.created = first + timedelta(seconds=n)
    return [job.id for job in queued]


def test_the_oldest_queued_jobs_are_claimed_first(factory: sessionmaker[Session]) -> None:
    queued = queue_jobs(factory, 5)
    assert job_runner.claim_queued_jobs(factory, 3) == queued[:3]
    assert job_runner.claim_queued_jobs(factory, 3) == queued[3:]
    assert job_runner.claim_queued_jobs(factory, 3) == []
    with factory() as session:
        claimed = session.scalars(select(JobRow)).all()
    assert {job.status for job in claimed} == {STARTED}
    assert all(job.start_time is not None for job in claimed)


def test_runners_claiming_at_once_never_claim_a_job_twice(
    factory: sessionmaker[Session],
) -> None:
    queued = queue_jobs(factory, QUEUED_JOBS)
    start = threading.Barrier(CLAIMING_RUNNERS)
    claims: list[list[str]] = [[] for _ in range(CLAIMING_RUNNERS)]
    failures: list[BaseException] = []

    def claim_until_none_is_left(claimed: list[str]) -> None:
        try:
            start.wait(30)
            while batch := job_runner.claim_queued_jobs(factory, 2):
                claimed.extend(batch)
        except BaseException as error:  # noqa: BLE001 - reported by the assertion below
            failures.append(error)

    threads = [
        threading.Thread(target=claim_until_none_is_left, args=(claimed,)) for claimed in claims
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert failures == []
    every_claim = Counter(job_id for claimed in claims for job_id in claimed)
    assert [job_id for job_id, times in every_claim.items() if times > 1] == []
    assert sorted(every_claim) == sorted(queued)
    with factory() as session:
        left = session.scalars(select(JobRow.id).where(JobRow.status == PENDING)).all()
    assert left == []


def test_a_restart_fails_the_job_it_cut_off_and_runs_the_queued_one(
    new_database_url: Callable[[str], str],
) -> None:
    url = new_database_url("restart_queue")
    engine = make_engine(url)
    prepare_database(engine)
    factory = session_factory(engine)
    wire = ObservationColumns.of(
        [Observation.model_validate(o) for o in observations(small_frame(n_years=2))]
    )
    payload = dataset_content(wire, None, [], "observations").to_payload()
    with transaction(factory) as session:  # as a killed service left them
        cut_off = queue_dataset_job(session, "cut off", "evaluation", payload)
        cut_off.status, cut_off.start_time = STARTED, utc_now()
        queued = queue_dataset_job(session, "queued", "evaluation", payload)
        assert queued.status == PENDING
    engine.dispose()
    with (
        BackgroundServer(create_app(url, workers=1, seed_demo=False)) as server,
        ChapClient(server.url) as client,
    ):
        assert client.wait_for_job(queued.id, timeout=120).succeeded
        with pytest.raises(JobFailedError) as failed:
            client.wait_for_job(cut_off.id, timeout=120)
        assert failed.value.error == job_runner.RESTART_ERROR
        assert [dataset.name for dataset in client.list_datasets()] == ["queued"]
