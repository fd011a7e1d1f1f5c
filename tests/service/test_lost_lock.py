"""A service on PostgreSQL notices when it loses its database's advisory lock: it takes the lock
back when it can (the server restarted under it) and otherwise starts no jobs, saying why in its
log and in ``/health/ready``, until the lock is free again.

These tests need control of the server (``make test-postgres``: the ``postgres_server`` fixture);
on SQLite, whose file lock cannot be lost, they are deselected."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import httpx
import pytest
from sqlalchemy import Connection, create_engine, text
from sqlalchemy.pool import NullPool

from chaplab.client import ChapClient
from chaplab.service import create_app
from chaplab.service.domain import datasets as domain_datasets
from chaplab.service.instance_lock import ADVISORY_LOCK_KEY
from chaplab.service.job_runner import LOCK_CHECK_INTERVAL_SECONDS
from chaplab.toolkit import BackgroundServer
from chaplab.vocabulary import PENDING, SUCCESS

from .helpers import geojson_for, small_frame

if TYPE_CHECKING:
    from postgres_server import PostgresServer

pytestmark = pytest.mark.integration

OTHER_SERVICE = "chaplab-service 4242 http://127.0.0.1:1"
"""The application name a session of the test takes the lock under: another service's."""


@contextmanager
def session_on(database: str, application_name: str = "chaplab-test") -> Iterator[Connection]:
    engine = create_engine(
        database,
        poolclass=NullPool,
        isolation_level="AUTOCOMMIT",
        connect_args={"application_name": application_name},
    )
    try:
        with engine.connect() as connection:
            yield connection
    finally:
        engine.dispose()


@contextmanager
def service_on(database: str) -> Iterator[tuple[str, ChapClient]]:
    """A service on ``database`` with one job worker, and a client of it: its URL and client."""
    with (
        BackgroundServer(create_app(database, seed_demo=False, workers=1), "127.0.0.1") as server,
        ChapClient(server.url) as chap,
    ):
        yield server.url, chap


def lock_holder(database: str) -> str | None:
    """The application name of the session holding the service lock of ``database``."""
    with session_on(database) as connection:
        return connection.scalar(
            text(
                "SELECT activity.application_name FROM pg_locks AS locks"
                " JOIN pg_stat_activity AS activity ON activity.pid = locks.pid"
                " WHERE locks.locktype = 'advisory' AND locks.granted"
                " AND locks.database = (SELECT oid FROM pg_database"
                "  WHERE datname = current_database())"
                " AND locks.classid::bigint * 4294967296 + locks.objid::bigint = :key"
            ),
            {"key": ADVISORY_LOCK_KEY},
        )


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"waited {timeout:g} s for {what}"
        time.sleep(0.2)


def readiness(service_url: str) -> httpx.Response:
    return httpx.get(f"{service_url}/health/ready", timeout=30)


def ours(holder: str | None) -> bool:
    return holder is not None and holder.startswith(f"chaplab-service {os.getpid()}")


@pytest.fixture(autouse=True)
def datasets_stored_by_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every make-dataset is stored by a worker, as a large one is: these tests need jobs the
    job runner starts (a small one is otherwise stored while its request is answered)."""
    monkeypatch.setattr(domain_datasets, "AT_ONCE_VALUES", 0)


def queue_dataset_job(chap: ChapClient, name: str) -> str:
    frame = small_frame(n_years=1)
    return chap.make_dataset(name, frame, geojson=geojson_for(sorted(set(frame.location)))).id


def test_a_restarted_server_gives_the_lock_back_and_jobs_run_again(
    new_database_url: Callable[[str], str],
    postgres_server: PostgresServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    database = new_database_url("restarted")
    with service_on(database) as (service_url, chap):
        assert ours(lock_holder(database))
        with caplog.at_level(logging.WARNING):
            postgres_server.restart()  # every session ends, the service's lock with it
            wait_for(lambda: ours(lock_holder(database)), "the service to take its lock back")
        assert "lost the lock of" in caplog.text
        assert "took the lock of" in caplog.text
        job = chap.wait_for_job(queue_dataset_job(chap, "after the restart"), timeout=120)
        assert job.status == SUCCESS
        assert readiness(service_url).status_code == 200


def test_a_lock_another_service_took_stops_the_jobs_until_it_is_free(
    new_database_url: Callable[[str], str],
    postgres_server: PostgresServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    database = new_database_url("taken")
    with (
        service_on(database) as (service_url, chap),
        session_on(database, OTHER_SERVICE) as other,
        caplog.at_level(logging.WARNING),
    ):
        assert readiness(service_url).status_code == 200
        holder = other.scalar(
            text(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
                " AND application_name LIKE :name"
            ),
            {"name": f"chaplab-service {os.getpid()}%"},
        )
        # the service's lock session ends; the other session, waiting first, gets the lock
        other.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": holder})
        other.execute(text("SELECT pg_advisory_lock(:key)"), {"key": ADVISORY_LOCK_KEY})
        assert lock_holder(database) == OTHER_SERVICE
        wait_for(lambda: readiness(service_url).status_code == 503, "readiness to fail")
        answer = readiness(service_url).json()
        assert answer["checks"]["db"] == "ok"
        assert "no jobs are started" in answer["checks"]["job_runner"]
        assert "another chaplab service holds it (pid 4242" in answer["checks"]["job_runner"]
        assert "starting no jobs" in caplog.text
        job_id = queue_dataset_job(chap, "while another holds the lock")
        time.sleep(3 * LOCK_CHECK_INTERVAL_SECONDS)  # several checks, each finding it held
        assert chap.get_job(job_id).status == PENDING
        other.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": ADVISORY_LOCK_KEY})
        assert chap.wait_for_job(job_id, timeout=120).status == SUCCESS
        assert ours(lock_holder(database))
        assert readiness(service_url).status_code == 200
        assert "holds the database's lock again" in caplog.text
