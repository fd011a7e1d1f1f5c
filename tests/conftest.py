"""Shared fixtures: one embedded service per test session on a temporary SQLite file, run by
uvicorn in a thread on loopback, and clients for it. Tests that write use unique names."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from chaplab.client import AsyncChapClient, ChapClient


@pytest.fixture(scope="session")
def service_database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The SQLite file of the session's service (seeded with the demo content)."""
    return tmp_path_factory.mktemp("service") / "chaplab.db"


@pytest.fixture(scope="session")
def service_url(service_database: Path) -> Iterator[str]:
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
