"""The asyncio driver: CPU-bound steps run off the event loop."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pandas as pd
import pytest

import chaplab.frames
from chaplab.client import (
    AsyncChapClient,
)

from .fake_service import BASE_URL, FakeService


def test_the_async_client_builds_frames_off_its_event_loop(
    fake: FakeService, monkeypatch: pytest.MonkeyPatch
) -> None:
    builders: list[int] = []  # the threads the frames were built on

    def recording(build: Any) -> Any:
        def wrapper(body: bytes, **options: Any) -> pd.DataFrame:
            builders.append(threading.get_ident())
            return build(body, **options)

        return wrapper

    for name in ("entries_to_frame", "actuals_to_frame"):
        monkeypatch.setattr(chaplab.frames, name, recording(getattr(chaplab.frames, name)))

    async def frames() -> tuple[int, pd.DataFrame, pd.DataFrame]:
        async with AsyncChapClient(BASE_URL, transport=fake.transport()) as client:
            entries = await client.evaluation_frame(1)
            actuals = await client.actual_cases(1)
        return threading.get_ident(), entries, actuals

    loop_thread, entries, actuals = asyncio.run(frames())
    assert len(builders) == 2 and loop_thread not in builders
    assert len(entries) and len(actuals)
