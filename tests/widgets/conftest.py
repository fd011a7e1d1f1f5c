"""Fixtures: panels on the client engineer's in-memory fake service (``httpx.MockTransport``)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from chaplab.client import AsyncChapClient, RetryPolicy
from chaplab.widgets import ChapPanel
from client.fake_service import FakeService

BASE_URL = "http://chap.test"

MakePanel = Callable[..., Awaitable[ChapPanel]]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def fake() -> FakeService:
    return FakeService()


@pytest.fixture
async def make_panel(fake: FakeService) -> AsyncIterator[MakePanel]:
    """``await make_panel(**client_kwargs)``: a loaded panel on ``fake`` (closed afterwards)."""
    panels: list[ChapPanel] = []

    async def build(**kwargs: Any) -> ChapPanel:
        client = AsyncChapClient(
            BASE_URL, transport=fake.transport(), clock=fake.clock, sleep=fake.clock.asleep,
            retry=RetryPolicy(jitter=False, max_retries=0), **kwargs,
        )
        panel = ChapPanel(client)
        panels.append(panel)
        await panel.ready()
        return panel

    yield build
    for panel in panels:
        panel.close()
        await panel.client.aclose()
