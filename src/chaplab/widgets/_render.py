"""Matplotlib figure -> PNG bytes -> ``widgets.Image``.

A PNG in an Image widget shows the same in JupyterLab, in an executed notebook and in a
browser test (an ``<img>``), whatever matplotlib backend the kernel has selected.
"""

from __future__ import annotations

import io
import sys
from typing import TYPE_CHECKING

import ipywidgets as widgets

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def figure_to_png(figure: Figure, *, dpi: int = 100) -> bytes:
    """Render ``figure`` with the Agg canvas to PNG bytes, then close it.

    Closing keeps pyplot from showing the figure a second time under the cell."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    try:
        FigureCanvasAgg(figure)
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
        return buffer.getvalue()
    finally:
        pyplot = sys.modules.get("matplotlib.pyplot")
        if pyplot is not None:
            pyplot.close(figure)


def image_widget() -> widgets.Image:
    """An empty PNG Image widget that scales down to the panel's width."""
    return widgets.Image(format="png", layout=widgets.Layout(max_width="100%", height="auto"))


def show_figure(image: widgets.Image, figure: Figure) -> None:
    """Put ``figure`` into ``image`` (the figure is closed afterwards)."""
    image.value = figure_to_png(figure)
