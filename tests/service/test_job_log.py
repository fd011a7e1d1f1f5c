"""A job's log lines are committed in batches (worker.JobLog): none is lost or reordered, a
transaction rolled back leaves its lines to the next commit (as when a job's final write
finds the job ended elsewhere), and a line reaches the database while the job works on even
when no line follows it."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from chaplab.service import worker
from chaplab.service.db import make_engine, prepare_database, session_factory, transaction
from chaplab.service.job_types import queue_dataset_job
from chaplab.service.tables import JobLogRow
from chaplab.service.worker import JobLog


@pytest.fixture
def factory(new_database_url: Callable[[str], str]) -> Iterator[sessionmaker[Session]]:
    engine = make_engine(new_database_url("job-log"))
    prepare_database(engine)
    yield session_factory(engine)
    engine.dispose()


@pytest.fixture
def job_id(factory: sessionmaker[Session]) -> str:
    with transaction(factory) as session:
        return queue_dataset_job(session, "logged", "evaluation", {}).id


def stored_lines(factory: sessionmaker[Session], job_id: str) -> list[str]:
    with factory() as session:
        rows = session.scalars(
            select(JobLogRow).where(JobLogRow.job_id == job_id).order_by(JobLogRow.id)
        )
        return [row.line for row in rows]


def test_lines_wait_for_a_commit_and_arrive_in_order(
    factory: sessionmaker[Session], job_id: str
) -> None:
    log = JobLog(factory, job_id)
    for n in range(5):
        log.record(f"line {n}")
    assert stored_lines(factory, job_id) == []
    log.flush()
    assert stored_lines(factory, job_id) == [f"line {n}" for n in range(5)]
    log.flush()  # nothing waits: nothing is written twice
    assert len(stored_lines(factory, job_id)) == 5


def test_lines_of_a_rolled_back_transaction_are_kept_for_the_next_commit(
    factory: sessionmaker[Session], job_id: str
) -> None:
    log = JobLog(factory, job_id)
    log.record("computed")
    with pytest.raises(RuntimeError), transaction(factory) as session:
        log.write_to(session)
        raise RuntimeError("the final write found the job ended elsewhere")
    log.record("the result was not stored")
    log.flush()
    assert stored_lines(factory, job_id) == ["computed", "the result was not stored"]


def test_lines_logged_from_many_threads_at_once_are_each_committed_once_in_order(
    factory: sessionmaker[Session], job_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A model service's backtest logs from its split threads at once, and a line may start a
    commit: no line is lost or written twice, and each thread's lines keep their order."""
    monkeypatch.setattr(worker, "LOG_FLUSH_SECONDS", 0.0)  # every line tries to commit
    log = JobLog(factory, job_id)
    threads, lines = 4, 60
    start = threading.Barrier(threads)

    def split(k: int) -> None:
        start.wait()
        for n in range(lines):
            log(f"split {k} line {n}")

    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(split, range(threads)))
    log.flush()
    stored = stored_lines(factory, job_id)
    assert sorted(stored) == sorted(
        f"split {k} line {n}" for k in range(threads) for n in range(lines)
    )
    for k in range(threads):
        assert [line for line in stored if line.startswith(f"split {k} ")] == [
            f"split {k} line {n}" for n in range(lines)
        ]


def test_a_line_no_other_follows_is_committed_while_the_job_works_on(
    factory: sessionmaker[Session], job_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long step (a model service training) logs once and then nothing for a long time:
    the timer commits the line meanwhile, not only the job's end."""
    monkeypatch.setattr(worker, "LOG_FLUSH_SECONDS", 0.1)
    log = JobLog(factory, job_id)
    with log.flushed_every_interval():
        log("training on the model service")
        deadline = time.monotonic() + 60
        while stored_lines(factory, job_id) != ["training on the model service"]:
            assert time.monotonic() < deadline, "the line waited for a line that never came"
            time.sleep(0.05)
    log.flush()  # the timer has stopped: nothing is written twice
    assert stored_lines(factory, job_id) == ["training on the model service"]
