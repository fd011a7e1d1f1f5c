"""The charts' Figure: the size every chart is drawn for, and shown once in a notebook, also as
a cell's last value, sharp on a screen of two device pixels per CSS pixel.

Sizes: a chart is drawn at :data:`DPI` dots per inch as shown, in a notebook and in the panel,
at most :data:`MAX_WIDTH` inches wide, with no text smaller than :data:`MIN_TEXT` points. So it
is shown whole where JupyterLab's output is 968 CSS px wide (a 1400 px window with the file
browser open) and at 90 % or more where it is 844 px (a 1024 px window) or the panel's
forecast tabs leave 808 px of it, where its smallest text is 10 CSS px or more. A chart wider
than the output was shrunk to it: a 11.8-inch chart's 7-point legend read 7 px.

With the inline backend a new figure is shown twice when it is a cell's last value: IPython
shows the value, then the backend shows every figure of the cell when the cell ends. ipympl
shows its canvas at the end of the cell, and the value adds a ``<Figure ...>`` line. A chart
therefore takes over its own display: it registers :func:`show_chart` as IPython's display
function for its class (a printer IPython registered for every Figure, such as the one that
``%matplotlib widget`` sets up, would otherwise come first), which IPython calls for the cell's
value and the inline backend through ``display``. A chart shows itself at most once per cell,
and leaves an interactive backend's canvas to that backend.
"""

from __future__ import annotations

import sys
from typing import Any

from matplotlib import pyplot as plt
from matplotlib.figure import Figure

DPI = 100
"""Dots per inch of a chart as shown (a notebook's and the panel's): 8-point text is 11 CSS px."""
MAX_WIDTH = 8.8
"""The widest a chart's figure is, in inches: 880 CSS px at :data:`DPI` in the panel, 900 in a
notebook's picture (``bbox_inches="tight"`` adds a margin of 0.1 inch each side)."""
MIN_TEXT = 8.0
"""The smallest text of a chart, in points: 10 CSS px or more where a chart of
:data:`MAX_WIDTH` is shown in 808 px."""
PIXEL_RATIO = 2
"""Pixels a notebook's picture of a chart has per CSS pixel it is shown at: sharp on screens of
two device pixels per CSS pixel (most laptops) and at 200 % zoom."""


class ChartFigure(Figure):
    """A matplotlib Figure that a notebook shows once per cell, drawn at :data:`DPI`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("dpi", DPI)
        super().__init__(*args, **kwargs)
        shell = _shell()
        self._created_in = _execution_count(shell)
        self._shown_in: int | None = None
        if shell is not None:
            formatter = shell.display_formatter.ipython_display_formatter
            if ChartFigure not in formatter.type_printers:
                formatter.for_type(ChartFigure, show_chart)

    def _ipython_display_(self) -> None:
        show_chart(self)


def show_chart(figure: ChartFigure) -> None:
    """Show the chart unless it was shown in this cell already or its backend shows its
    interactive canvas at the end of the cell."""
    from IPython.display import display

    cell = _execution_count(_shell())
    if cell is not None and figure._shown_in == cell:
        return
    figure._shown_in = cell
    if _is_widget(figure.canvas):
        if figure._created_in != cell or not plt.fignum_exists(figure.number):
            # an earlier cell's canvas: show it again (IPython's display has no annotations)
            display(figure.canvas)  # type: ignore[no-untyped-call]
        return
    data, metadata = _figure_bundle(figure)
    display(data, metadata=metadata, raw=True)  # type: ignore[no-untyped-call]


def _shell() -> Any:
    """The running IPython shell, or None."""
    ipython = sys.modules.get("IPython")
    return None if ipython is None else ipython.get_ipython()


def _execution_count(shell: Any) -> int | None:
    """The running cell's number in IPython, None outside IPython."""
    return None if shell is None else int(shell.execution_count)


def _is_widget(canvas: Any) -> bool:
    """Whether the canvas is a Jupyter widget (ipympl), which its backend displays."""
    return hasattr(canvas, "_repr_mimebundle_") and hasattr(canvas, "comm")


def _figure_bundle(figure: Figure) -> tuple[dict[str, Any], dict[str, Any]]:
    """What IPython would show for a plain Figure, but sharp: the formats its formatters
    produce for the Figure type (the inline backend's PNG, SVG), a PNG when none is set up (a
    notebook on the Agg backend), and the text form; a PNG has ``PIXEL_RATIO`` pixels per CSS
    pixel it is shown at (IPython's "retina" PNG, its size at 100 % in the metadata)."""
    from IPython import get_ipython
    from IPython.core.pylabtools import retina_figure

    data: dict[str, Any] = {"text/plain": repr(figure)}
    metadata: dict[str, Any] = {}
    shell = get_ipython()
    formatters = {} if shell is None else shell.display_formatter.formatters
    for mime, formatter in formatters.items():
        if mime == "text/plain":
            continue
        try:
            printer = formatter.lookup_by_type(Figure)
        except KeyError:
            continue
        output = (
            retina_figure(figure, base64=True)  # type: ignore[no-untyped-call]  # IPython
            if mime == "image/png"
            else printer(figure)
        )
        if isinstance(output, tuple):
            output, extra = output
            metadata[mime] = extra
        if output is not None:
            data[mime] = output
    if len(data) == 1:
        png, metadata["image/png"] = retina_figure(  # type: ignore[no-untyped-call]  # unannotated
            figure, base64=True
        )
        data["image/png"] = png
    return data, metadata
