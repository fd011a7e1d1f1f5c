"""Panel grids, their time axis, the shared legend beside them and the title with a cut-off note.

A chart's own figure has fixed margins (in inches; only the legend is measured) rather than a
layout engine: constrained layout measures every panel's tight bounding box in an extra draw
pass, which was most of the time a 12-panel chart took to save.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence

import matplotlib.pyplot as plt
from matplotlib import rcParams
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.figure import Figure, SubFigure
from matplotlib.legend import Legend
from matplotlib.ticker import FuncFormatter, MaxNLocator

from chaplab.errors import ArgumentError
from chaplab.frames import format_number
from chaplab.plotting._figure import MAX_WIDTH, ChartFigure
from chaplab.plotting._panels import MAX_COLUMNS, Panel
from chaplab.plotting._time import set_time_axis

PANEL_WIDTH = 3.4
PANEL_HEIGHT = 2.4
SINGLE_WIDTH = 7.0  # a single panel is drawn large
SINGLE_HEIGHT = 3.8
LEGEND_WIDTH = 1.6  # inches beside the grid for the shared legend, more when it needs them
MIN_LEGEND_LINE = 12  # characters a legend label's line holds at least
TITLE_HEIGHT = 0.6  # inches above the grid for the title

# Margins of a chart's own figure, in inches.
EDGE = 0.08  # between the figure's edge and the title, the y label and the legend
LEFT = 1.05  # the y label and y tick labels of up to six digits with a separator
BOTTOM = 0.5  # the time tick labels
PANEL_TITLE = 0.3  # a panel's title above it
TITLE = 0.35  # the figure's title above the panels' titles
TITLE_LINE = 0.25  # each further line of a title too wide for one
MIN_TITLE_LINE = 20  # characters a title's line holds at least
COLUMN_GAP = 0.85  # y tick labels such as 600,000 and half a time label beside them
ROW_GAP = 0.4  # a panel's title (a panel above one with the same window has no time labels)
TIME_LABELS = 0.25  # more between rows when a panel above another labels its time axis
LEGEND_GAP = 0.2  # between the panels (and their last x tick label) and the legend
Y_BINS = 5  # at most this many intervals between value ticks
Y_STEPS = (1, 2, 2.5, 5, 10)  # value ticks at multiples of these (times a power of ten)


def make_panels(
    panels: Sequence[Panel],
    ax: Axes | Sequence[Axes] | None,
    frequency: str,
    columns: int | None = None,
) -> tuple[Figure | SubFigure, list[Axes], bool]:
    """A figure with one axes per panel, or the caller's axes and their figure (a subfigure's,
    when they are in one); also whether the figure is ours.

    Our own figure is a grid of ``columns`` (by default by count: a single panel alone and
    large, else ``MAX_COLUMNS``); given ``columns`` (an org unit's splits), each org unit's
    panels start a row of their own. Cells the grid does not need are removed. Each axes shows
    its panel's window with period labels of ``frequency``; a panel labels its time axis unless
    the panel below it shows the same window.
    """
    count = len(panels)
    if ax is not None:
        axes = _given_axes(count, ax)
        for given, panel in zip(axes, panels, strict=True):
            set_time_axis(given, panel.limits, frequency)
        return axes[0].figure, axes, False
    places = _grid_places(panels, columns) if columns else list(range(count))
    columns = columns or _columns(count)
    figure = plt.figure(FigureClass=ChartFigure)
    cells = _add_panel_grid(figure, places, columns)
    at = dict(zip(places, panels, strict=True))
    for place, cell, panel in zip(places, cells, panels, strict=True):
        set_time_axis(cell, panel.limits, frequency)
        below = at.get(place + columns)
        _fix_axis_labels(cell, below is None or below.window != panel.window)
    return figure, cells, True


def _grid_places(panels: Sequence[Panel], columns: int) -> list[int]:
    """Each panel's cell in a grid of ``columns``, in reading order, each org unit's panels
    starting a row."""
    places: list[int] = []
    for index, panel in enumerate(panels):
        place = places[-1] + 1 if places else 0
        if index and panel.org_unit != panels[index - 1].org_unit and place % columns:
            place += columns - place % columns
        places.append(place)
    return places


def _given_axes(count: int, ax: Axes | Sequence[Axes]) -> list[Axes]:
    """The first ``count`` of the caller's axes; ValueError when there are fewer."""
    axes = [ax] if isinstance(ax, Axes) else list(ax)
    if len(axes) < count:
        raise ArgumentError(
            f"{count} org units need {count} panels but ax gives {len(axes)}: "
            "pass that many axes, fewer org_units, or ax=None for a new figure"
        )
    return axes[:count]


def _columns(count: int) -> int:
    """Grid columns: 1 panel alone (large), else ``MAX_COLUMNS`` (two: a country's twelve
    places make six rows, and the chart stays within ``MAX_WIDTH``)."""
    return 1 if count == 1 else MAX_COLUMNS


def _fix_axis_labels(ax: Axes, time_labels: bool) -> None:
    """Show or hide a panel's time tick labels and the year offset beside them. Its own axis
    labels stay empty (the figure has the y label), so they are pinned: matplotlib would place
    them from the extents of every tick label at every draw."""
    ax.tick_params(axis="x", labelbottom=time_labels)
    ax.xaxis.offsetText.set_visible(time_labels)
    ax.xaxis.set_label_coords(0.5, -0.2)
    ax.yaxis.set_label_coords(-0.2, 0.5)


def _add_panel_grid(figure: Figure, places: Sequence[int], columns: int) -> list[Axes]:
    """Size ``figure`` for panels at ``places`` of a grid in rows of ``columns`` with room for
    the legend and add them (a single panel large); cells the grid does not need are
    removed."""
    rows = math.ceil((places[-1] + 1) / columns)
    single = len(places) == 1
    width, height = (SINGLE_WIDTH, SINGLE_HEIGHT) if single else (PANEL_WIDTH, PANEL_HEIGHT)
    figure.set_size_inches(width * columns + LEGEND_WIDTH, height * rows + TITLE_HEIGHT)
    cells = list(figure.subplots(rows, columns, squeeze=False).ravel())
    for place, unused in enumerate(cells):
        if place not in places:
            unused.remove()
    return [cells[place] for place in places]


def style_panel(ax: Axes, title: str) -> None:
    """Panel title, small tick labels, a few value ticks written as every number is (``1,790``)
    and a light grid.

    The title is placed just above the panel (``y=1``) rather than above whatever ticks the top
    of the panel has (there are none), which matplotlib would measure at every draw."""
    ax.set_title(title, fontsize="medium", y=1.0)
    ax.tick_params(labelsize="small")
    ax.yaxis.set_major_locator(MaxNLocator(nbins=Y_BINS, steps=Y_STEPS))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: format_number(value)))
    ax.grid(True, linewidth=0.4, alpha=0.5)


def finish_figure(
    figure: Figure | SubFigure,
    axes: list[Axes],
    handles: list[Artist],
    *,
    title: str | None,
    ylabel: str | None,
    notes: Sequence[str],
    owns_figure: bool,
) -> None:
    """Add the legend and the y label (once, outside the panels, on our own figure; on the
    caller's axes otherwise) and the title with its notes (which split, what was cut)."""
    parts = [part for part in (title, *notes) if part]
    if owns_figure:
        assert isinstance(figure, Figure), "our own figure is never a subfigure"
        _place_outside(figure, axes, handles, parts, ylabel)
        return
    axes[0].legend(handles=handles, fontsize="small")
    for ax in axes:
        ax.set_ylabel(ylabel or "")
    if parts:
        figure.suptitle("; ".join(parts))


def _place_outside(
    figure: Figure,
    axes: list[Axes],
    handles: list[Artist],
    title_parts: Sequence[str],
    ylabel: str | None,
) -> None:
    """Fixed margins around our own grid: the title above it (on more lines, and the figure
    taller, when it is wider than the figure), the y label left of it and the legend right of
    it, top-aligned with the panels."""
    legend, right = _legend_beside(figure, handles)
    width, height = figure.get_size_inches()
    lines = 0
    if title_parts:
        title = figure.suptitle(_wrap(figure, title_parts, width - 2 * EDGE), va="top")
        lines = title.get_text().count("\n") + 1
        height += (lines - 1) * TITLE_LINE
        figure.set_size_inches(width, height)
        title.set_y(1 - EDGE / height)
    top = 1 - (PANEL_TITLE + (TITLE + (lines - 1) * TITLE_LINE if lines else 0.0)) / height
    # In figure coordinates, which saving with bbox_inches="tight" (as Jupyter's inline
    # backend does) keeps, rather than in fractions of the figure's box, which it changes.
    legend.set_bbox_to_anchor((1 - EDGE / width, top), transform=figure.transFigure)
    bottom = BOTTOM / height
    spec = axes[0].get_subplotspec()
    assert spec is not None, "our own axes are a grid's"
    rows, columns = spec.get_gridspec().get_geometry()
    row_gap = ROW_GAP + (TIME_LABELS if _inner_time_labels(axes, rows) else 0.0)
    panel_width = ((right - LEFT / width) * width - (columns - 1) * COLUMN_GAP) / columns
    panel_height = ((top - bottom) * height - (rows - 1) * row_gap) / rows
    figure.subplots_adjust(
        left=LEFT / width,
        right=right,
        bottom=bottom,
        top=top,
        wspace=COLUMN_GAP / panel_width,
        hspace=row_gap / panel_height,
    )
    if ylabel:
        figure.supylabel(ylabel, x=EDGE / width, y=(top + bottom) / 2, fontsize="medium")


def _wrap(figure: Figure, parts: Sequence[str], width: float) -> str:
    """The title's parts joined by "; " on as few lines as ``width`` inches hold: a line breaks
    between two parts where it can, else between words. A title wider than the figure was cut
    at both edges of the picture, or made a saved picture wider than its panels."""
    text = "; ".join(parts)
    measured = figure.text(0, 0, text, size=rcParams["figure.titlesize"])
    inches = measured.get_window_extent().width / figure.dpi
    measured.remove()
    if inches <= width:
        return text
    per_line = max(int(len(text) * width / inches), MIN_TITLE_LINE)
    lines: list[str] = []
    for part in parts:
        joined = f"{lines[-1]}; {part}" if lines else part
        if lines and len(joined) <= per_line:
            lines[-1] = joined
        else:
            lines.extend(textwrap.wrap(part, per_line))
    return "\n".join(lines)


def _inner_time_labels(axes: list[Axes], rows: int) -> bool:
    """Whether a panel above the grid's last row labels its time axis."""
    for ax in axes:
        spec = ax.get_subplotspec()
        if (
            spec is not None
            and spec.rowspan.stop < rows
            and ax.xaxis.get_tick_params()["labelbottom"]
        ):
            return True
    return False


def _legend_beside(figure: Figure, handles: list[Artist]) -> tuple[Legend, float]:
    """The legend at the figure's right edge, and where the panels end (a figure fraction).
    The figure grows when the legend needs more than ``LEGEND_WIDTH``, up to ``MAX_WIDTH``:
    labels too long for that are broken onto more lines (a comparison names both evaluations
    in its labels). The caller anchors the legend's top."""
    width, height = figure.get_size_inches()
    room = MAX_WIDTH - (width - LEGEND_WIDTH)
    labels = [str(handle.get_label()) for handle in handles]
    longest = max((len(label) for label in labels), default=0)
    for per_line in range(longest, MIN_LEGEND_LINE - 1, -1):
        shown = [textwrap.fill(label, per_line) for label in labels]
        legend = figure.legend(
            handles=handles,
            labels=shown,
            loc="upper right",
            fontsize="small",
            frameon=False,
            borderaxespad=0,
        )
        needed = EDGE + legend.get_window_extent().width / figure.dpi + LEGEND_GAP
        if needed <= room or per_line == MIN_LEGEND_LINE:
            break
        legend.remove()
    if needed > LEGEND_WIDTH:
        width += needed - LEGEND_WIDTH
        figure.set_size_inches(width, height)
    return legend, 1 - needed / width
