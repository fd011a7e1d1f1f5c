"""The chart process: charts are drawn there, never in the kernel's process; a drawing problem
comes back as a sentence, and a process that died is replaced."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import matplotlib.pyplot as plt
import pytest

from chaplab.widgets._chart_process import NICENESS, ChartProcessError
from chaplab.widgets._render import CHART_PROCESS, draw_chart

from .helpers import MakePanel

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


async def test_charts_are_drawn_in_the_process_with_problems_as_sentences() -> None:
    drawn = await CHART_PROCESS.draw(LineChart(2))
    assert drawn.png.startswith(b"\x89PNG") and drawn.panels == ["panel 0", "panel 1"]
    assert CHART_PROCESS.pid not in (None, os.getpid())
    with pytest.raises(ChartProcessError) as failed:
        await CHART_PROCESS.draw(LineChart(1, fail=True))
    assert str(failed.value) == "drawing the chart failed: ValueError: no data to draw"
    assert (await CHART_PROCESS.draw(LineChart(1))).panels == ["panel 0"]


def test_a_drawn_chart_has_its_figure_closed() -> None:
    open_before = plt.get_fignums()
    assert draw_chart(LineChart(3)).panels == ["panel 0", "panel 1", "panel 2"]
    assert plt.get_fignums() == open_before


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


async def test_the_chart_process_ignores_the_kernels_interrupts() -> None:
    """Jupyter's interrupt goes to the kernel's whole process group; the chart process lives on."""
    await CHART_PROCESS.draw(LineChart(1))
    process = CHART_PROCESS.pid
    assert process is not None
    os.kill(process, signal.SIGINT)
    for panels in (1, 2):
        assert len((await CHART_PROCESS.draw(LineChart(panels))).panels) == panels
    assert CHART_PROCESS.pid == process


@pytest.mark.skipif(not hasattr(os, "getpriority"), reason="no process priorities here")
async def test_the_chart_process_runs_at_a_lower_priority_than_the_kernel(
    make_panel: MakePanel,
) -> None:
    panel = await make_panel()
    panel.results.table.toggle(1).value = True
    await panel.results.settled()  # a chart was drawn: the process has set its priority
    kernel = os.getpriority(os.PRIO_PROCESS, 0)
    assert os.getpriority(os.PRIO_PROCESS, CHART_PROCESS.pid) == min(19, kernel + NICENESS)


def parent_of(pid: int) -> int:
    """The parent process id of ``pid`` (Linux)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat.rsplit(")", 1)[1].split()[1])


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="no /proc here")
async def test_the_chart_process_is_started_by_the_kernel_not_by_the_services_forkserver() -> None:
    """The embedded service's jobs fork from a forkserver with its own preload; the chart
    process is this process's child and leaves the process-wide start method alone."""
    method = multiprocessing.get_start_method(allow_none=True)
    await CHART_PROCESS.draw(LineChart(1))
    assert CHART_PROCESS.pid is not None
    assert parent_of(CHART_PROCESS.pid) == os.getpid()
    assert multiprocessing.get_start_method(allow_none=True) == method
