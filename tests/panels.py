"""A loaded panel on a running service, for the panel tests on the embedded service and on the
peer: made and loaded before the test, closed after it (its tasks finished, its client closed)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from chaplab.client import AsyncChapClient
from chaplab.widgets import ChapPanel


@asynccontextmanager
async def loaded_panel(url: str) -> AsyncIterator[ChapPanel]:
    """A panel on the service at ``url``, its tables loaded."""
    client = AsyncChapClient(url)
    chap_panel = ChapPanel(client)
    await chap_panel.ready()
    yield chap_panel
    chap_panel.close()
    await chap_panel.wait_idle()
    await client.aclose()
