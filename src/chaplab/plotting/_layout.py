"""Panel grids, the shared legend outside the panels, and the title with a cut-off note."""

from __future__ import annotations

import math
from collections.abc import Sequence

import matplotlib.pyplot as plt
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.dates import AutoDateLocator, ConciseDateFormatter
from matplotlib.figure import Figure

PANEL_WIDTH = 3.4
PANEL_HEIGHT = 2.4
MAX_COLUMNS = 4
LEGEND_WIDTH = 1.6  # inches beside the grid for the shared legend
TITLE_HEIGHT = 0.6  # inches above the grid for the title


def make_panels(count: int, ax: Axes | Sequence[Axes] | None) -> tuple[Figure, list[Axes], bool]:
    """A figure with ``count`` panels, or the caller's axes; also whether the figure is ours.

    A grid of at most four columns sharing the time axis; cells the grid does not need are
    removed, and only panels with no panel below them label the time axis.
    """
    if ax is not None:
        axes = [ax] if isinstance(ax, Axes) else list(ax)
        if len(axes) < count:
            raise ValueError(
                f"{count} org units need {count} panels but ax gives {len(axes)}: "
                "pass that many axes, fewer org_units, or ax=None for a new figure"
            )
        return axes[0].figure, axes[:count], False
    columns = _columns(count)
    figure = plt.figure(layout="constrained")
    cells = add_panel_grid(
        figure, count, columns, (PANEL_WIDTH, PANEL_HEIGHT), LEGEND_WIDTH, sharex=True
    )
    for index, cell in enumerate(cells):
        cell.tick_params(axis="x", labelbottom=index + columns >= count)
    return figure, cells, True


def _columns(count: int) -> int:
    """Grid columns: 1 panel alone, up to 4 in two columns, up to 9 in three, else four."""
    return 1 if count == 1 else 2 if count <= 4 else 3 if count <= 9 else MAX_COLUMNS


def add_panel_grid(
    figure: Figure,
    count: int,
    columns: int,
    panel_size: tuple[float, float],
    extra_width: float,
    *,
    sharex: bool = False,
) -> list[Axes]:
    """Size ``figure`` for ``count`` panels of ``panel_size`` inches in rows of ``columns`` (plus
    ``extra_width`` for a legend or labels) and add them; cells the grid does not need are
    removed. Serves the charts' own figures and the widget panel's pyplot-free ones."""
    rows = math.ceil(count / columns)
    width, height = panel_size
    figure.set_size_inches(width * columns + extra_width, height * rows + TITLE_HEIGHT)
    cells = list(figure.subplots(rows, columns, squeeze=False, sharex=sharex).ravel())
    for unused in cells[count:]:
        unused.remove()
    return cells[:count]


def style_panel(ax: Axes, title: str) -> None:
    """Panel title, compact date ticks and a light grid."""
    ax.set_title(title, fontsize="medium")
    locator = AutoDateLocator()
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(ConciseDateFormatter(locator))
    ax.grid(True, linewidth=0.4, alpha=0.5)


def finish_figure(
    figure: Figure,
    axes: list[Axes],
    handles: list[Artist],
    *,
    title: str | None,
    ylabel: str | None,
    shown: int,
    total: int,
    owns_figure: bool,
) -> None:
    """Add the legend and the y label (once, outside the panels, on our own figure; on the
    caller's axes otherwise) and the title with a cut-off note."""
    if owns_figure:
        figure.legend(handles=handles, loc="outside right upper", fontsize="small", frameon=False)
        if ylabel:
            figure.supylabel(ylabel, fontsize="medium")
    else:
        axes[0].legend(handles=handles, fontsize="small")
        for ax in axes:
            ax.set_ylabel(ylabel or "")
    note = f"first {shown} of {total} org units shown" if shown < total else None
    text = "; ".join(part for part in (title, note) if part)
    if text:
        figure.suptitle(text)
