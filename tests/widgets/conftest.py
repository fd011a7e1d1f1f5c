"""Fixtures: panels on the client engineer's in-memory fake service (``httpx.MockTransport``),
and a loaded panel on the session's embedded service."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from chaplab.client import AsyncChapClient, RetryPolicy
from chaplab.widgets import ChapPanel
from client.fake_service import BASE_URL, FakeService
from panels import loaded_panel

from .helpers import MakePanel


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def fake() -> FakeService:
    return FakeService()


@pytest.fixture
async def make_panel(fake: FakeService) -> AsyncIterator[MakePanel]:
    """``await make_panel(handler=None, **client_kwargs)``: a loaded panel on ``fake`` (or on
    ``handler``, which may wrap it), closed afterwards. Time is the fake's clock."""
    panels: list[ChapPanel] = []

    async def sleep(seconds: float) -> None:
        """Advance the fake clock, and let other tasks run as a real sleep would."""
        fake.clock.sleep(seconds)
        await asyncio.sleep(0)

    async def build(
        handler: Callable[[httpx.Request], httpx.Response] | None = None, **kwargs: Any
    ) -> ChapPanel:
        client = AsyncChapClient(
            BASE_URL,
            transport=httpx.MockTransport(handler or fake),
            clock=fake.clock,
            sleep=sleep,
            retry=RetryPolicy(jitter=False, max_retries=0),
            **kwargs,
        )
        panel = ChapPanel(client)
        panels.append(panel)
        await panel.ready()
        return panel

    yield build
    for panel in panels:
        panel.close()
        await panel.client.aclose()


@pytest.fixture
async def panel(service_url: str) -> AsyncIterator[ChapPanel]:
    """A loaded panel on the session's embedded service."""
    async with loaded_panel(service_url) as chap_panel:
        yield chap_panel
