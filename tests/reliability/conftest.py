"""Fixtures of the reliability tests: the services under test (a small toolkit service and the
embedded modeling service, both on loopback) and fault proxies in front of them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from chaplab.toolkit import BackgroundServer

from .faultproxy import FaultProxy
from .mini_service import MiniState, build_mini_service


@dataclass(frozen=True)
class RunningMini:
    url: str
    state: MiniState


@dataclass(frozen=True)
class RunningService:
    url: str
    database: Path


@pytest.fixture(scope="module")
def mini_service() -> Iterator[RunningMini]:
    """The small toolkit service, counting what reaches it."""
    app, state = build_mini_service()
    with BackgroundServer(app) as server:
        yield RunningMini(server.url, state)


@pytest.fixture(scope="session")
def modeling_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningService]:
    """The embedded modeling service on a file database with the demo content, no keys."""
    from chaplab.service import create_app

    database = tmp_path_factory.mktemp("modeling") / "chaplab.db"
    app = create_app(database_url=str(database), workers=1)
    with BackgroundServer(app) as server:
        yield RunningService(server.url, database)


@pytest.fixture
def proxy_for() -> Iterator[Callable[[str], FaultProxy]]:
    """``proxy_for(url)``: a started fault proxy in front of ``url`` (stopped after the test)."""
    proxies: list[FaultProxy] = []

    def start(upstream: str) -> FaultProxy:
        proxy = FaultProxy(upstream).start()
        proxies.append(proxy)
        return proxy

    yield start
    for proxy in proxies:
        proxy.stop()
