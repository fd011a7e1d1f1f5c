"""Charts -> PNG bytes for a ``widgets.Image``, built off the event loop.

A PNG in an Image widget shows the same in JupyterLab, in an executed notebook and in a
browser test (an ``<img>``), whatever matplotlib backend the kernel has selected.

Building and rasterising a chart of a dozen panels takes about a second on a busy machine, so
it runs in a worker thread (:func:`render_chart`) and the kernel's event loop keeps running.
The thread never touches pyplot or a widget: the chart is drawn on a ``Figure`` of its own
(with an Agg canvas) through the ``ax`` argument of :mod:`chaplab.plotting`, and the caller
puts the bytes into the Image widget on the loop.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import ipywidgets as widgets

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

DPI = 90
PANEL_SIZE = (4.4, 2.6)  # inches per panel
MAX_COLUMNS = 3
EXTRA_WIDTH = 0.4  # inches beside the grid; the legend sits inside the first panel

Chart = Callable[..., "Figure"]
"""A plotting call that takes the panels as its ``ax`` keyword argument."""


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


def draw_chart(chart: Chart, count: int) -> Rendered:
    """Draw ``chart`` (a plotting call taking ``ax``) on ``count`` panels and rasterise it."""
    figure, axes = chart_axes(count)
    chart(ax=axes)
    return Rendered(png_bytes(figure), [ax.get_title() for ax in axes])


async def render_chart(chart: Chart, count: int) -> Rendered:
    """:func:`draw_chart` in a worker thread; the loop keeps running meanwhile."""
    return await asyncio.to_thread(draw_chart, chart, count)
