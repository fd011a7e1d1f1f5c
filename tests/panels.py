"""A loaded panel on a running service, for the panel tests on the embedded service and on the
peer: made and loaded before the test, closed after it (its tasks finished, its client closed)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from chaplab.client import AsyncChapClient
from chaplab.widgets import ChapPanel
from chaplab.widgets.jobs import JobLine


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


async def launched_evaluation(
    panel: ChapPanel, name: str, n_splits: int, n_periods: int | None = None
) -> JobLine:
    """Run an evaluation of the selected dataset and model from the panel's launcher, as a
    person would (name and settings typed, Run pressed), and wait for the panel to be idle;
    the newest job line (the evaluation's)."""
    panel.launcher.name.value = name
    if n_periods is not None:
        panel.launcher.n_periods.value = n_periods
    panel.launcher.n_splits.value = n_splits
    panel.launcher.button.click()
    await panel.wait_idle()
    return panel.jobs.rows[0]
