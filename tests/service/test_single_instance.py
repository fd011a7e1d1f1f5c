"""One service per database (a SQLite file, or a PostgreSQL database when the tests run on one):
a second service refuses to start and leaves the first one's jobs alone; a stopped or killed
service lets a new one start; ``connect()`` reuses the service already running on the per-user
database."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from chaplab import _connect
from chaplab.client import AuthenticationError
from chaplab.service import create_app
from chaplab.service.instance_lock import (
    AdvisoryLock,
    DatabaseInUseError,
    FileLock,
    InstanceLock,
    current_owner,
)
from chaplab.toolkit import BackgroundServer

pytestmark = pytest.mark.integration
STARTUP_SECONDS = 90.0
RUNNING_JOB = "running-job"


class Serve:
    """``chaplab serve --no-demo --port 0 --database <file or URL> [options]`` in its own
    process group."""

    def __init__(self, database: Path | str, workdir: Path, *options: str) -> None:
        ready = workdir / f"ready-{time.monotonic_ns()}"
        self.log = workdir / f"{ready.name}.log"
        command = [
            sys.executable,
            "-m",
            "chaplab",
            "serve",
            "--port",
            "0",
            "--workers",
            "1",
            "--no-demo",
            "--database",
            str(database),
            "--ready-file",
            str(ready),
            *options,
        ]
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                command,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        self.url = self._wait_until_healthy(ready)

    def _wait_until_healthy(self, ready: Path) -> str:
        deadline = time.monotonic() + STARTUP_SECONDS
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.log.read_text(errors="replace")
            if ready.exists():
                url = ready.read_text(encoding="utf-8").strip()
                try:
                    if httpx.get(f"{url}/health", timeout=5).status_code == 200:
                        return url
                except httpx.TransportError:
                    pass
            time.sleep(0.05)
        raise AssertionError(f"chaplab serve did not start: {self.log.read_text()}")

    def kill(self) -> None:
        """SIGKILL the whole group (the service and anything it started)."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(30)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[list[Serve]]:
    """The ``chaplab serve`` processes a test starts, killed at its end."""
    started: list[Serve] = []
    yield started
    for service in started:
        service.kill()


def test_a_second_app_on_the_database_refuses_to_start_and_leaves_the_jobs_alone(
    new_database_url: Callable[[str], str],
) -> None:
    database = new_database_url("shared")
    first = create_app(database, workers=1, seed_demo=False)
    with BackgroundServer(first, "127.0.0.1") as server:
        _leave_a_job_running(database)
        second = create_app(database, workers=1, seed_demo=False)
        with pytest.raises(DatabaseInUseError) as refused:
            _start_and_stop(second)
        assert str(refused.value) == (
            f"database {locked_name(database)} is in use by another chaplab service "
            f"(pid {os.getpid()}, address unknown); stop it or choose another --database"
        )
        assert _job(database) == ("STARTED", None)
        assert httpx.get(f"{server.url}/health", timeout=5).status_code == 200
    with BackgroundServer(create_app(database, workers=1, seed_demo=False), "127.0.0.1"):
        status, error = _job(database)
        assert status == "FAILURE" and "service restarted" in error


def test_a_stopped_app_lets_the_next_one_start_on_the_same_file(tmp_path: Path) -> None:
    database = tmp_path / "restarted.db"
    app = create_app(database, workers=1, seed_demo=False)
    for _ in range(2):
        with BackgroundServer(app, "127.0.0.1") as server:
            assert httpx.get(f"{server.url}/health", timeout=5).status_code == 200
            assert current_owner(database) is not None
        assert current_owner(database) is None
    with BackgroundServer(create_app(database, workers=1, seed_demo=False), "127.0.0.1") as server:
        assert httpx.get(f"{server.url}/health", timeout=5).status_code == 200


def test_a_killed_serve_process_leaves_no_lock_that_blocks_a_restart(
    tmp_path: Path, served: list[Serve]
) -> None:
    database = tmp_path / "killed.db"
    served.append(Serve(database, tmp_path))
    owner = current_owner(database)
    assert owner is not None
    assert (owner.pid, owner.url) == (served[0].process.pid, served[0].url)

    served[0].kill()

    assert current_owner(database) is None
    served.append(Serve(database, tmp_path))
    assert httpx.get(f"{served[1].url}/health", timeout=5).status_code == 200


def test_a_second_serve_refuses_naming_the_first_and_starts_once_the_first_is_killed(
    new_database_url: Callable[[str], str], tmp_path: Path, served: list[Serve]
) -> None:
    """The lock ends with the first service's process, SIGKILL included: on a SQLite file the
    kernel drops the ``flock``; on PostgreSQL the server ends the lock's session."""
    database = new_database_url("served")
    served.append(Serve(database, tmp_path))
    second = subprocess.run(
        [sys.executable, "-m", "chaplab", "serve", "--port", "0", "--database", database],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert second.returncode == 1
    assert second.stderr.strip() == (
        f"chaplab serve: database {locked_name(database)} is in use by another chaplab service "
        f"(pid {served[0].process.pid}, {served[0].url}); stop it or choose another --database"
    )
    assert httpx.get(f"{served[0].url}/health", timeout=5).status_code == 200

    served[0].kill()
    served.append(Serve(database, tmp_path))
    assert httpx.get(f"{served[1].url}/health", timeout=5).status_code == 200


def test_serve_on_a_locked_database_exits_non_zero_with_the_message(tmp_path: Path) -> None:
    database = tmp_path / "locked.db"
    lock = FileLock(database)
    lock.acquire("http://127.0.0.1:8123")
    try:
        finished = subprocess.run(
            [sys.executable, "-m", "chaplab", "serve", "--port", "0", "--database", str(database)],
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
    finally:
        lock.release()
    assert finished.returncode != 0
    assert finished.stderr.strip() == (
        f"chaplab serve: database {database} is in use by another chaplab service "
        f"(pid {os.getpid()}, http://127.0.0.1:8123); stop it or choose another --database"
    )
    assert not database.exists(), "the database is not touched while another service holds it"


def test_connect_reuses_the_service_running_on_the_per_user_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, served: list[Serve]
) -> None:
    monkeypatch.setenv("CHAPLAB_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("CHAP_URL", raising=False)
    monkeypatch.setattr(_connect, "_embedded", None)
    served.append(Serve(tmp_path / "chaplab.db", tmp_path))

    with _connect.connect() as client:
        assert client.base_url == served[0].url
        assert client.list_datasets() == []
    service = _connect.embedded_service()
    assert service.process is None and service.running()

    served[0].kill()
    assert not service.running(), "a reused service that has gone is looked up again"


def test_connect_sends_the_key_to_a_reused_service_that_requires_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, served: list[Serve]
) -> None:
    monkeypatch.setenv("CHAPLAB_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("CHAP_URL", raising=False)
    monkeypatch.delenv("CHAP_API_KEY", raising=False)
    monkeypatch.setattr(_connect, "_embedded", None)
    keys = tmp_path / "keys"
    keys.write_text("local-key-0123456789\n", encoding="utf-8")
    served.append(Serve(tmp_path / "chaplab.db", tmp_path, "--api-key-file", str(keys)))

    with _connect.connect() as client, pytest.raises(AuthenticationError):
        client.list_datasets()
    with _connect.connect(api_key="local-key-0123456789") as client:
        assert client.list_datasets() == []
    monkeypatch.setenv("CHAP_API_KEY", "local-key-0123456789\n")
    with _connect.connect() as client:
        assert client.list_datasets() == []


def test_a_file_gets_a_file_lock_postgresql_an_advisory_lock_and_other_databases_none(
    tmp_path: Path,
) -> None:
    file_lock = InstanceLock.for_url(f"sqlite:///{tmp_path / 'chaplab.db'}")
    assert isinstance(file_lock, FileLock) and file_lock.database == tmp_path / "chaplab.db"
    advisory = InstanceLock.for_url("postgresql+psycopg://user:secret@host/chap")
    assert isinstance(advisory, AdvisoryLock) and not advisory.held
    assert advisory.database == "postgresql+psycopg://user:***@host/chap"
    assert InstanceLock.for_url("sqlite://") is None
    assert InstanceLock.for_url("sqlite:///:memory:") is None
    assert InstanceLock.for_url("mysql://user@host/chap") is None


def locked_name(database_url: str) -> str:
    """How a refusal names the database: a SQLite file by its path, another by its URL."""
    parsed = make_url(database_url)
    return parsed.database if parsed.get_backend_name() == "sqlite" else database_url


def _start_and_stop(app: FastAPI) -> None:
    """Run the app's start-up and shutdown, as a server does, raising what start-up raises."""

    async def run() -> None:
        async with app.router.lifespan_context(app):
            pass

    asyncio.run(run())


def _leave_a_job_running(database: str) -> None:
    """Write the row of a job the first service is running."""
    engine = create_engine(database)
    with engine.begin() as connection:
        connection.exec_driver_sql(
            "INSERT INTO jobs (id, type, name, status, created, start_time, payload) "
            f"VALUES ('{RUNNING_JOB}', 'create_backtest', 'running', 'STARTED', "
            "'2026-01-01 10:00:00', '2026-01-01 10:00:01', '{}')"
        )
    engine.dispose()


def _job(database: str) -> tuple[str, str | None]:
    engine = create_engine(database)
    with engine.connect() as connection:
        row = connection.execute(
            text("SELECT status, error FROM jobs WHERE id = :id"), {"id": RUNNING_JOB}
        ).one()
    engine.dispose()
    return row[0], row[1]
