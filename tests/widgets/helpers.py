"""What the widget tests share besides fixtures: the type of the ``make_panel`` fixture, and a
panel following a job that runs until the test ends it."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from chaplab.widgets import ChapPanel
from client.fake_service import FakeService

MakePanel = Callable[..., Awaitable[ChapPanel]]
"""``await make_panel(handler=None, **client_kwargs)``: a loaded panel on the fake service."""


async def panel_following_a_running_job(fake: FakeService, make_panel: MakePanel) -> ChapPanel:
    """A panel that has launched an evaluation which runs until the test finishes it, once
    its row shows the job started."""
    fake.job_duration = 10**9
    panel = await make_panel()
    panel.launcher.button.click()
    while not panel.jobs.rows or panel.jobs.rows[0].status == "PENDING":
        await asyncio.sleep(0)
    return panel
