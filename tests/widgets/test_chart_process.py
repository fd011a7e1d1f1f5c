"""The chart process: charts are drawn there, never in the kernel's process; a drawing problem
comes back as a sentence, and a process that died is replaced."""

from __future__ import annotations

import io
import os
import pickle
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import matplotlib.pyplot as plt
import pytest

from chaplab.widgets._chart_process import NICENESS, serve
from chaplab.widgets._render import CHART_PROCESS

from .conftest import MakePanel

pytestmark = pytest.mark.anyio

TESTS = Path(__file__).resolve().parents[1]

# A fresh interpreter runs a panel on the fake service, draws the fan chart and reports whether
# it got a PNG and whether it ever imported matplotlib.
PANEL_SCRIPT = """
import asyncio, sys, httpx
from chaplab.client import AsyncChapClient
from chaplab.widgets import ChapPanel
from client.fake_service import FakeService

async def main():
    client = AsyncChapClient("http://chap.test", transport=httpx.MockTransport(FakeService()))
    panel = ChapPanel(client)
    await panel.ready()
    panel.results.table.toggle(1).value = True
    await panel.results.settled()
    print(bytes(panel.results.image.value).startswith(b"\\x89PNG"), "matplotlib" in sys.modules)
    panel.close()
    await client.aclose()

asyncio.run(main())
"""


@dataclass(frozen=True)
class LineChart:
    """A chart of one line per panel, or one that fails to draw."""

    panels: int
    fail: bool = False

    def draw(self) -> object:
        import matplotlib.pyplot as plt

        if self.fail:
            raise ValueError("no data to draw")
        figure, ax = plt.subplots(1, self.panels, squeeze=False)
        for number, axes in enumerate(ax[0]):
            axes.plot([0, 1], [0, number])
            axes.set_title(f"panel {number}")
        return figure


def test_served_charts_are_answered_in_order_with_problems_as_sentences() -> None:
    requests = io.BytesIO(pickle.dumps(LineChart(2)) + pickle.dumps(LineChart(1, fail=True)))
    replies = io.BytesIO()
    open_before = plt.get_fignums()
    serve(requests, replies)  # returns at the end of its input
    replies.seek(0)
    drawn, failed = pickle.load(replies), pickle.load(replies)
    assert drawn.png.startswith(b"\x89PNG") and drawn.panels == ["panel 0", "panel 1"]
    assert failed == "drawing the chart failed: ValueError: no data to draw"
    assert plt.get_fignums() == open_before, "every drawn figure is closed"


def test_the_panels_process_draws_charts_without_importing_matplotlib() -> None:
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), *sys.path[1:]])}
    finished = subprocess.run(
        [sys.executable, "-c", PANEL_SCRIPT],
        env=environment,
        capture_output=True,
        text=True,
        timeout=240,
        check=True,
    )
    assert finished.stdout.split() == ["True", "False"]


async def test_a_chart_process_that_died_is_replaced(make_panel: MakePanel) -> None:
    panel = await make_panel()
    panel.results.table.toggle(1).value = True
    await panel.results.settled()
    first = CHART_PROCESS.pid
    assert first is not None and first != os.getpid()
    os.kill(first, signal.SIGKILL)
    panel.results.org_unit.value = "OU_B"
    await panel.results.settled()
    assert panel.results.shown_panels == ["OU_B"] and panel.results.message.value == ""
    assert CHART_PROCESS.pid not in (None, first)


@pytest.mark.skipif(not hasattr(os, "getpriority"), reason="no process priorities here")
async def test_the_chart_process_runs_at_a_lower_priority_than_the_kernel(
    make_panel: MakePanel,
) -> None:
    panel = await make_panel()
    panel.results.table.toggle(1).value = True
    await panel.results.settled()  # a chart was drawn: the process has set its priority
    kernel = os.getpriority(os.PRIO_PROCESS, 0)
    assert os.getpriority(os.PRIO_PROCESS, CHART_PROCESS.pid) == min(19, kernel + NICENESS)
