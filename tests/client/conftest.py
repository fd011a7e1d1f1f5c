"""Fixtures: a fake service and a client on it, parametrized over the sync and async drivers;
``call`` runs one client method on a mock transport, on both drivers.

Async clients are wrapped in :class:`BlockingView`, which runs each coroutine method on one
event loop, so a single test body exercises both ``ChapClient`` and ``AsyncChapClient``.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from chaplab.client import AsyncChapClient, ChapClient, RetryPolicy

from .fake_service import BASE_URL, FakeService

Handler = Callable[[httpx.Request], httpx.Response]


class BlockingView:
    """Calls an ``AsyncChapClient``'s coroutine methods to completion on one event loop."""

    def __init__(self, client: AsyncChapClient, runner: asyncio.Runner) -> None:
        self._client = client
        self._runner = runner

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._client, name)
        if not inspect.iscoroutinefunction(attribute):
            return attribute

        def call(*args: Any, **kwargs: Any) -> Any:
            return self._runner.run(attribute(*args, **kwargs))

        return call

    def __repr__(self) -> str:
        return repr(self._client)


@pytest.fixture
def fake() -> FakeService:
    return FakeService()


@pytest.fixture(params=["sync", "async"])
def make_client(request: pytest.FixtureRequest, fake: FakeService) -> Iterator[Callable[..., Any]]:
    """``make_client(**kwargs)``: a client on ``fake`` (sync, or async behind a BlockingView),
    using the fake's clock; retries without jitter unless ``retry=`` is given."""
    runner = asyncio.Runner()
    closers: list[Callable[[], Any]] = []

    def build(**kwargs: Any) -> Any:
        kwargs.setdefault("retry", RetryPolicy(jitter=False))
        if request.param == "sync":
            client = ChapClient(
                BASE_URL,
                transport=fake.transport(),
                clock=fake.clock,
                sleep=fake.clock.sleep,
                **kwargs,
            )
            closers.append(client.close)
            return client
        async_client = AsyncChapClient(
            BASE_URL,
            transport=fake.transport(),
            clock=fake.clock,
            sleep=fake.clock.asleep,
            **kwargs,
        )
        closers.append(lambda: runner.run(async_client.aclose()))
        return BlockingView(async_client, runner)

    yield build
    for close in closers:
        close()
    runner.close()


@pytest.fixture
def client(make_client: Callable[..., Any]) -> Any:
    """A client on the fake with default settings."""
    return make_client()


@pytest.fixture(params=["sync", "async"])
def call(request: pytest.FixtureRequest) -> Iterator[Callable[..., Any]]:
    """``call(handler, method_name, *args)``: run a client method on a mock transport."""
    runner = asyncio.Runner()

    def run(handler: Handler, name: str, *args: Any, **kwargs: Any) -> Any:
        if request.param == "sync":
            with ChapClient(
                BASE_URL, api_key="sk_test_0123456789abcdef", transport=httpx.MockTransport(handler)
            ) as client:
                return getattr(client, name)(*args, **kwargs)

        async def main() -> Any:
            async with AsyncChapClient(
                BASE_URL, api_key="sk_test_0123456789abcdef", transport=httpx.MockTransport(handler)
            ) as client:
                return await getattr(client, name)(*args, **kwargs)

        return runner.run(main())

    yield run
    runner.close()
