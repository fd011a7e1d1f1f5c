"""Shared fixtures: one embedded service per test session on a new database, run by uvicorn in a
thread on loopback, and clients for it. Tests that write use unique names.

A new database is a SQLite file in a temporary folder, or, when ``$CHAPLAB_TEST_DATABASE_URL``
names a PostgreSQL server's maintenance database (``make test-postgres`` sets it to a throwaway
server), a new database on that server."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from chaplab.client import AsyncChapClient, ChapClient
from postgres_server import PostgresServer

TEST_DATABASE_VARIABLE = "CHAPLAB_TEST_DATABASE_URL"


@pytest.fixture(scope="session")
def new_database_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[str], str]]:
    """``new_database_url(name)``: the SQLAlchemy URL of a new, empty database for a service.

    On the server of ``$CHAPLAB_TEST_DATABASE_URL`` each database gets a unique name starting
    with ``name`` and is dropped at the end of the session."""
    server = os.environ.get(TEST_DATABASE_VARIABLE)
    if not server:
        yield lambda name: f"sqlite:///{tmp_path_factory.mktemp(name) / 'chaplab.db'}"
        return
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url
    from sqlalchemy.pool import NullPool

    admin = create_engine(server, isolation_level="AUTOCOMMIT", poolclass=NullPool)
    created: list[str] = []

    def create(name: str) -> str:
        database = f"{name.lower()}_{uuid.uuid4().hex[:12]}"
        with admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{database}"'))
        created.append(database)
        return make_url(server).set(database=database).render_as_string(hide_password=False)

    yield create
    with admin.connect() as connection:
        for database in created:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)'))
    admin.dispose()


def postgres_server_controlled() -> bool:
    """Whether the session runs on a PostgreSQL server it may restart (``make test-postgres``)."""
    return bool(
        os.environ.get("CHAPLAB_TEST_POSTGRES_PGDATA") and os.environ.get(TEST_DATABASE_VARIABLE)
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests that restart the PostgreSQL server are left out of a session without one (they run
    under ``make test-postgres``), deselected rather than reported as skipped."""
    if postgres_server_controlled():
        return
    needs_server = [
        item for item in items if "postgres_server" in getattr(item, "fixturenames", ())
    ]
    if needs_server:
        config.hook.pytest_deselected(items=needs_server)
        items[:] = [item for item in items if item not in needs_server]


@pytest.fixture(scope="session")
def postgres_server() -> PostgresServer:
    """Control of the PostgreSQL server the tests run on (``make test-postgres``); the tests that
    need it are deselected elsewhere."""
    return PostgresServer(
        bindir=Path(os.environ["CHAPLAB_TEST_POSTGRES_BINDIR"]),
        pgdata=Path(os.environ["CHAPLAB_TEST_POSTGRES_PGDATA"]),
        user=os.environ.get("CHAPLAB_TEST_POSTGRES_USER") or None,
    )


@pytest.fixture(scope="session")
def service_database(new_database_url: Callable[[str], str]) -> str:
    """The database URL of the session's service (seeded with the demo content)."""
    return new_database_url("service")


@pytest.fixture(scope="session")
def service_url(service_database: str) -> Iterator[str]:
    """Base URL of the session's running service (no authentication)."""
    from chaplab.service import create_app
    from chaplab.toolkit import BackgroundServer

    with BackgroundServer(create_app(service_database, workers=2), "127.0.0.1") as server:
        yield server.url


@pytest.fixture
def client(service_url: str) -> Iterator[ChapClient]:
    """A ``ChapClient`` of the session's service."""
    with ChapClient(service_url) as chap:
        yield chap


@pytest.fixture
def async_runner() -> Iterator[asyncio.Runner]:
    """An event loop for a test: ``async_runner.run(coroutine)``."""
    with asyncio.Runner() as runner:
        yield runner


@pytest.fixture
def async_client(service_url: str, async_runner: asyncio.Runner) -> Iterator[AsyncChapClient]:
    """An ``AsyncChapClient`` of the session's service, bound to ``async_runner``'s loop: run
    its coroutines with ``async_runner.run(...)``."""

    async def open_client() -> AsyncChapClient:
        return AsyncChapClient(service_url)

    chap = async_runner.run(open_client())
    yield chap
    async_runner.run(chap.aclose())


@pytest.fixture
def unique() -> str:
    """A short unique suffix for names created by a test."""
    return uuid.uuid4().hex[:8]
