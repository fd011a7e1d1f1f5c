"""Charts -> PNG bytes for a ``widgets.Image``, drawn in the chart process.

A PNG in an Image widget shows the same in JupyterLab, in an executed notebook and in a
browser test (an ``<img>``), whatever matplotlib backend the kernel has selected.

:func:`draw_chart` runs in the chart process (see :mod:`chaplab.widgets._chart_process` for
why not in the kernel's): the chart prepares its frames and is drawn on a ``Figure`` of its own
(with an Agg canvas, no pyplot) through the ``ax`` argument of :mod:`chaplab.plotting`.
:func:`render_chart` is the kernel's side: one chart thread sends the charts there one at a
time and waits for the bytes, a chart superseded before its turn is skipped, and the caller
puts the bytes into the Image widget on the event loop.
"""

from __future__ import annotations

import asyncio
import io
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import ipywidgets as widgets

from chaplab.widgets._chart_process import ChartProcess

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

DPI = 90
PANEL_SIZE = (4.4, 2.6)  # inches per panel
MAX_COLUMNS = 3
EXTRA_WIDTH = 0.4  # inches beside the grid; the legend sits inside the first panel

CHART_PROCESS = ChartProcess()
_CHART_THREAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="chaplab-chart")


class Chart(Protocol):
    """A chart to draw in the chart process (picklable): how many panels it needs, and the
    plotting call that fills them."""

    def panel_count(self) -> int:
        """How many panels the chart draws."""
        ...

    def draw(self, ax: list[Axes]) -> Figure:
        """Draw the chart on the panels ``ax``."""
        ...


@dataclass(frozen=True)
class Rendered:
    """A rasterised chart and the titles of its panels (what the image shows)."""

    png: bytes
    panels: list[str]


def image_widget() -> widgets.Image:
    """An empty PNG Image widget that scales down to the panel's width."""
    return widgets.Image(format="png", layout=widgets.Layout(max_width="100%", height="auto"))


def chart_axes(count: int) -> tuple[Figure, list[Axes]]:
    """A pyplot-free figure with ``count`` panels in a grid of up to three columns."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from chaplab.plotting._layout import add_panel_grid

    if count < 1:
        raise ValueError(f"a chart needs at least one panel, got {count}")
    columns = min(count, MAX_COLUMNS) if count != 4 else 2
    figure = Figure(layout="constrained")
    FigureCanvasAgg(figure)
    return figure, add_panel_grid(figure, count, columns, PANEL_SIZE, EXTRA_WIDTH)


def png_bytes(figure: Figure) -> bytes:
    """Rasterise a figure that has an Agg canvas to PNG bytes."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI)
    return buffer.getvalue()


def draw_chart(chart: Chart) -> Rendered:
    """Draw ``chart`` on a figure of its own and rasterise it."""
    figure, axes = chart_axes(chart.panel_count())
    chart.draw(axes)
    return Rendered(png_bytes(figure), [ax.get_title() for ax in axes])


async def render_chart(chart: Chart) -> Rendered:
    """:func:`draw_chart` in the chart process, waited for in the chart thread; the loop keeps
    running meanwhile. Cancelled before the thread takes it, the chart is not drawn at all."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(_CHART_THREAD, CHART_PROCESS.draw, chart)
