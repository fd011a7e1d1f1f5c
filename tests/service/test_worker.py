"""Job workers run at a lower CPU priority than the service, so that requests are answered
promptly while CPU-bound jobs keep every core busy."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from chaplab.client import ChapClient
from chaplab.service import create_app, job_runner, worker
from chaplab.service.db import make_engine, prepare_database, session_factory, transaction
from chaplab.service.domain import datasets as domain_datasets
from chaplab.service.job_types import queue_dataset_job
from chaplab.service.storage import dataset_content
from chaplab.service.tables import JobRow, utc_now
from chaplab.service.wire.common import Observation
from chaplab.service.wire.observations import ObservationColumns
from chaplab.toolkit import BackgroundServer
from chaplab.vocabulary import STARTED, SUCCESS

from .helpers import observations, small_frame

pytestmark = pytest.mark.integration


def own_niceness() -> int:
    return os.getpriority(os.PRIO_PROCESS, 0)


def expected_worker_niceness() -> int:
    """The service's nice value plus the workers' offset; the kernel stops at 19."""
    return min(19, own_niceness() + worker.WORKER_NICENESS)


def lower_then_wait(started: Any, release: Any) -> None:
    """A worker's body: lower the priority as a job's worker does, then wait to be inspected."""
    worker.lower_priority()
    started.send_bytes(b"lowered")
    release.recv_bytes()


@pytest.mark.skipif(own_niceness() >= 19, reason="the tests already run at the lowest priority")
def test_the_os_reports_a_worker_at_a_lower_priority_than_the_service() -> None:
    context = job_runner.worker_context()
    started_reader, started_writer = context.Pipe(duplex=False)
    release_reader, release_writer = context.Pipe(duplex=False)
    worker = context.Process(
        target=lower_then_wait, args=(started_writer, release_reader), daemon=True
    )
    worker.start()
    try:
        assert started_reader.poll(60), "the worker did not start"
        started_reader.recv_bytes()
        assert worker.pid is not None
        niceness = os.getpriority(os.PRIO_PROCESS, worker.pid)
        assert niceness == expected_worker_niceness() > own_niceness()
    finally:
        release_writer.send_bytes(b"go")
        worker.join(60)
    assert worker.exitcode == 0


@pytest.mark.skipif(own_niceness() >= 19, reason="the tests already run at the lowest priority")
def test_a_job_runs_at_a_lower_priority_than_the_service(
    new_database_url: Callable[[str], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The service runs in this process; its job's worker logs the nice value it ran at (the
    dataset is above the size the request stores at once, so a worker stores it)."""
    monkeypatch.setattr(domain_datasets, "AT_ONCE_VALUES", 0)
    app = create_app(new_database_url("priority"), workers=1, seed_demo=False)
    with BackgroundServer(app, "127.0.0.1") as server, ChapClient(server.url) as client:
        job = client.wait_for_job(client.make_dataset("niced", small_frame(n_years=2)).id, 60)
        found = re.search(r"worker process \d+ started at niceness (\d+)", client.job_logs(job.id))
    assert found is not None
    assert int(found.group(1)) == expected_worker_niceness() > own_niceness()


def test_a_job_run_in_the_calling_process_leaves_its_priority_alone(tmp_path: Path) -> None:
    """Without a lifeline ``run_job`` is not in a worker process of its own (tests call it
    directly): the caller keeps its priority."""
    url = f"sqlite:///{tmp_path / 'direct.db'}"
    engine = make_engine(url)
    prepare_database(engine)
    factory = session_factory(engine)
    wire = ObservationColumns.of(
        [Observation.model_validate(o) for o in observations(small_frame(n_years=2))]
    )
    payload = dataset_content(wire, None, [], "observations").to_payload()
    with transaction(factory) as session:
        job = queue_dataset_job(session, "direct", "evaluation", payload)
        job.status, job.start_time = STARTED, utc_now()
    before = own_niceness()
    worker.run_job(url, job.id)
    assert own_niceness() == before
    with factory() as session:
        assert session.get_one(JobRow, job.id).status == SUCCESS
    engine.dispose()
