"""Charts -> PNG bytes for a ``widgets.Image``, drawn in the chart process.

A PNG in an Image widget shows the same in JupyterLab, in an executed notebook and in a
browser test (an ``<img>``), whatever matplotlib backend the kernel has selected.

:func:`draw_chart` runs in the chart process (see :mod:`chaplab.widgets._chart_process` for
why not in the kernel's): the chart draws its own figure with :mod:`chaplab.plotting`, exactly
as the panel's "copy code" does in a notebook (the same grid, the legend beside it), and the
figure is rasterised and closed. :func:`render_chart` is the kernel's side: it sends the charts
there one at a time and awaits the bytes, a chart superseded before its turn is skipped, and the
caller puts the bytes into the Image widget on the event loop.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import ipywidgets as widgets

from chaplab.widgets._chart_process import ChartProcess
from chaplab.widgets._tasks import on_kernel_loop

if TYPE_CHECKING:
    from matplotlib.figure import Figure

PIXEL_RATIO = 2
"""Pixels drawn per pixel shown. A chart is drawn at its figure's dpi (``chaplab.plotting``'s,
as in a notebook) times ``PIXEL_RATIO`` and shown at its width / ``PIXEL_RATIO`` (never wider
than the panel), so it is sharp on screens of two device pixels per CSS pixel (most laptops)
and at 200 % zoom; a PNG of one pixel per CSS pixel shown there, or stretched to a box's width,
was scaled up and blurred."""
PNG_WIDTH = slice(16, 20)
"""Where a PNG holds its width: the first four bytes of its IHDR chunk's data, big-endian."""


class Chart(Protocol):
    """A chart to draw in the chart process (picklable)."""

    def draw(self) -> Figure:
        """Draw the chart on a figure of its own."""
        ...


@dataclass(frozen=True)
class Rendered:
    """A rasterised chart and the titles of its panels (what the image shows)."""

    png: bytes
    panels: list[str]


def image_widget() -> widgets.Image:
    """An empty PNG Image widget that shows a chart at its size (its dots per inch as in a
    notebook) and scales it down to the panel's width, never up, hidden while it holds no
    picture (an empty ``<img>`` shows the browser's broken-image icon)."""
    image = widgets.Image(
        format="png",
        layout=widgets.Layout(
            max_width="100%",
            height="auto",
            margin="2px 0",  # no side margin: at the panel's full width it stays inside it
            align_self="flex-start",
            display="none",
        ),
    )
    image.observe(on_kernel_loop(_shown_when_drawn), names="value")
    return image


def _shown_when_drawn(change: dict[str, Any]) -> None:
    """Show a drawn chart at the width it was drawn for (its pixels / ``PIXEL_RATIO``)."""
    png = bytes(change["new"])
    layout = change["owner"].layout
    layout.display = "" if png else "none"
    layout.width = f"{shown_width(png)}px" if png else None


def shown_width(png: bytes) -> int:
    """The width, in CSS pixels, at which the panel shows a chart drawn by :func:`png_bytes`."""
    return round(int.from_bytes(png[PNG_WIDTH], "big") / PIXEL_RATIO)


def png_bytes(figure: Figure) -> bytes:
    """Rasterise a figure that has an Agg canvas to PNG bytes, ``PIXEL_RATIO`` pixels per
    pixel shown (its dots per inch as a notebook shows it)."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=figure.dpi * PIXEL_RATIO)
    return buffer.getvalue()


def draw_chart(chart: Chart) -> Rendered:
    """Draw ``chart``, rasterise it and close its figure."""
    import matplotlib.pyplot as plt

    figure = chart.draw()
    try:
        return Rendered(png_bytes(figure), [ax.get_title() for ax in figure.axes])
    finally:
        plt.close(figure)


CHART_PROCESS = ChartProcess(draw_chart)


async def render_chart(chart: Chart) -> Rendered:
    """:func:`draw_chart` in the chart process; the loop keeps running meanwhile. Cancelled
    before its turn, the chart is not drawn at all."""
    return await CHART_PROCESS.draw(chart)
