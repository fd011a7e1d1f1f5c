"""Outbreak probability as tiles: one row per org unit, one column per period, white to red on
a fixed 0-100 % scale, so that two charts read alike whatever their largest probability."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
import pandas as pd
from matplotlib import colormaps, rcParams
from matplotlib.axes import Axes
from matplotlib.collections import PatchCollection
from matplotlib.colors import Colormap, Normalize
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.patches import Rectangle
from matplotlib.ticker import PercentFormatter

from chaplab.errors import ArgumentError
from chaplab.frames import (
    ORG_UNIT,
    PERIOD,
    PROBABILITY,
    PROBABILITY_LOWER,
    PROBABILITY_UPPER,
    frame_labels,
    is_bound,
    period_labels,
    probability_labels,
)
from chaplab.plotting._figure import MAX_WIDTH
from chaplab.plotting._scoring_style import new_figure, require_table
from chaplab.plotting._time import LABEL_GAP, label_inches, set_period_columns, year_once

TILES_GID = "tiles"
ROW = 0.3  # inches per org unit, up to ...
GRID_HEIGHT = 10.0  # ... a grid this tall: more org units share it
NAMED_ROW = 0.12  # rows lower than this are too low for names
COLUMN = 0.62  # inches per period at least (or its label's and a gap), up to ...
GRID_WIDTH = MAX_WIDTH - 2.6  # ... a grid this wide (names, colour bar, margins: 2.6 in)
WIDER = 0.02  # inches a figure is widened by beyond what its grid lacks (layout rounds)
SEPARATED_COLUMN = 0.1  # columns narrower than this have no white line between them
WRITTEN_COLUMN = 0.45  # inches: columns narrower than this are too narrow for "< 10%" in CELL_FONT
WRITTEN_CELLS = 30 * 16  # the percentages are written into grids of at most this many cells
WRITTEN_ROW = 0.2  # inches: rows lower than this are too low for a percentage in CELL_FONT
CELL_FONT = 9  # points: a percentage reads at 100 % zoom (11 pixels at the panel's 90 dpi)
DARK_FROM = 0.6  # cells from this probability on have white text
NO_VALUE_COLOUR = "0.88"
BOUND_GID = "bound"
TEXT = "_text"
BOUND = "_bound"

Order = Literal["name", "probability"]


def probability_tiles(
    frame: pd.DataFrame,
    *,
    value: str = PROBABILITY,
    strategy: str | None = None,
    sort: Order = "name",
    title: str | None = None,
    ax: Axes | None = None,
) -> Figure:
    """Tiles of ``frame[value]``, a probability (0 to 1) per org unit (rows, named by
    ``org_unit_name`` where the frame has it) and period (columns, as ``2024-07``), white to red
    on a fixed 0-100 % scale; each tile says its percentage where the grid is small enough.
    A probability known only as a bound (``probability_lower``/``probability_upper`` of the
    frame differ: the threshold lies beyond the forecast's outermost quantile) says so
    (``< 10%``, ``> 90%``) and is hatched.

    ``frame`` is :func:`chaplab.scoring.exceedance_probability`'s answer (``org_unit``,
    ``period``, ``probability``). ``strategy`` names the threshold strategy in the title.
    ``sort="probability"`` puts the org units most likely to cross their threshold first. A
    missing probability is a grey tile. Rows too low for names (hundreds of org units) are
    drawn without them, which the title says. Columns are as wide as their labels (every
    period labelled) until the grid is ``GRID_WIDTH`` wide; more periods share that width and
    are labelled at the weeks, months or years whose labels fit (as the fan chart's are).
    """
    require_table(
        frame,
        (ORG_UNIT, PERIOD, value),
        "frame",
        "chaplab.scoring.exceedance_probability",
        one_row_per=[ORG_UNIT, PERIOD],
        hint="one probability per org unit and period",
    )
    if not isinstance(frame[PERIOD].dtype, pd.PeriodDtype):
        raise ArgumentError(
            f"frame: column 'period' must hold pandas Periods, not {frame[PERIOD].dtype}"
        )
    probabilities = frame[value].to_numpy(np.float64)
    outside = probabilities[np.isfinite(probabilities)]
    outside = outside[(outside < 0) | (outside > 1)]
    if outside.size:
        raise ArgumentError(
            f"frame: {value!r} holds {outside.size} value(s) outside 0..1 (such as "
            f"{outside[0]:g}): tiles show probabilities, not percentages or counts"
        )
    if sort not in ("name", "probability"):
        raise ArgumentError(f"sort must be 'name' or 'probability', got {sort!r}")
    labels = frame_labels(frame)
    shown = frame.assign(
        **{
            ORG_UNIT: frame[ORG_UNIT].astype(str),
            TEXT: probability_labels(frame, value),
            BOUND: _bounds(frame, value),
        }
    )
    grid = _pivot(shown, value)
    grid = grid.reindex(_row_order(grid, labels, sort))
    written = _pivot(shown, TEXT).reindex(index=grid.index, columns=grid.columns)
    bounds = _pivot(shown, BOUND).reindex(index=grid.index, columns=grid.columns).fillna(False)
    periods = pd.PeriodIndex(grid.columns)
    column = _column_width(year_once(list(period_labels(periods)), periods.freqstr))
    figure, ax, owns = _figure_and_axes(ax, grid.shape[0], column, grid.shape[1])
    if not owns:
        column = _given_column_width(ax, grid.shape[1])
    cells = grid.to_numpy(np.float64)
    colours = colormaps["Reds"].with_extremes(bad=NO_VALUE_COLOUR)
    norm = Normalize(0.0, 1.0)
    image = ax.imshow(
        np.ma.masked_invalid(cells), cmap=colours, norm=norm, aspect="auto", interpolation="nearest"
    )
    image.set_gid(TILES_GID)
    set_period_columns(ax, periods)
    row_height = _row_height(grid.shape[0])
    named = not owns or row_height >= NAMED_ROW
    if named:
        ax.set_yticks(range(grid.shape[0]), [labels[unit] for unit in grid.index])
    else:
        ax.set_yticks([])
        ax.set_ylabel(f"{grid.shape[0]} org units")
    ax.tick_params(length=0)
    # white lines between the tiles; hundreds of rows, or years of weeks, are a band without them
    if named:
        ax.set_yticks(np.arange(grid.shape[0] + 1) - 0.5, minor=True)
        ax.grid(which="minor", axis="y", color="white", linewidth=1.0)
    if column >= SEPARATED_COLUMN:
        ax.set_xticks(np.arange(grid.shape[1] + 1) - 0.5, minor=True)
        ax.grid(which="minor", axis="x", color="white", linewidth=1.0)
    ax.tick_params(which="minor", length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    written_grid = cells.size <= WRITTEN_CELLS and column >= WRITTEN_COLUMN
    if written_grid and named and (not owns or row_height >= WRITTEN_ROW):
        _write_percentages(ax, cells, written.to_numpy(object), bounds.to_numpy(bool), colours)
    bound_cells = bounds.to_numpy(bool)
    if bound_cells.any():
        _hatch(ax, bound_cells)
    bar = figure.colorbar(
        image,
        ax=ax,
        shrink=min(1.0, 4.0 / max(figure.get_figheight(), 1)),
        format=PercentFormatter(1.0, decimals=0),
    )
    bar.set_label("P(cases > threshold)")
    lines = [title or "Outbreak probability: P(cases > threshold)"]
    if strategy:
        lines.append(f"thresholds by the {strategy!r} strategy")
    if bound_cells.any():
        lines.append("hatched: only a bound is known (the threshold is beyond the forecast)")
    if not named:
        order = "likeliest first" if sort == "probability" else "in name order"
        lines.append(f"{grid.shape[0]} org units {order}, too many for names")
    heading = "\n".join(lines)
    ax.set_title(heading, loc="left", fontsize="medium", wrap=True)
    if owns:
        _widen_to_grid(figure, ax, column * grid.shape[1])
    return figure


def _row_order(grid: pd.DataFrame, labels: dict[str, str], sort: Order) -> list[str]:
    if sort == "probability":
        highest = grid.max(axis=1, skipna=True).fillna(-1.0)
        return sorted(grid.index, key=lambda unit: (-highest[unit], labels[unit].casefold()))
    return sorted(grid.index, key=lambda unit: labels[unit].casefold())


def _row_height(rows: int) -> float:
    return min(ROW, GRID_HEIGHT / max(rows, 1))


def _column_width(labels: Sequence[str]) -> float:
    """Inches per period of the chart's own figure: wide enough for the percentages and for
    the widest of the period labels as the axis writes them and a gap (so that every column is
    labelled), but the grid at most ``GRID_WIDTH`` wide."""
    if len(labels) * COLUMN >= GRID_WIDTH:
        return GRID_WIDTH / len(labels)
    font = FontProperties(size=rcParams["xtick.labelsize"])
    widest = max(label_inches(label, font, rcParams["figure.dpi"]) for label in labels)
    wanted = max(COLUMN, widest + LABEL_GAP * font.get_size_in_points() / 72)
    return min(wanted, GRID_WIDTH / len(labels))


def _given_column_width(ax: Axes, columns: int) -> float:
    """Inches per period in the caller's ``ax``, as it is placed now."""
    figure = ax.get_figure(root=True)
    assert figure is not None, "the caller's axes are in a figure"
    return float(ax.get_position().width * figure.get_figwidth()) / columns


def _widen_to_grid(figure: Figure, ax: Axes, grid_inches: float) -> None:
    """Widen the chart's own figure until its grid is ``grid_inches`` wide, as the columns'
    width was chosen for, or the figure ``MAX_WIDTH`` wide: the names beside the rows and the
    colour bar take what they take (a long name or the colour bar's share of the axes left
    each column narrower than its label, which was then left out)."""
    engine = figure.get_layout_engine()
    assert engine is not None, "the chart's own figure is laid out by constrained layout"
    for _ in range(3):
        engine.execute(figure)
        short = grid_inches - ax.get_position().width * figure.get_figwidth()
        if short <= 0 or figure.get_figwidth() >= MAX_WIDTH:
            return
        figure.set_figwidth(min(figure.get_figwidth() + short + WIDER, MAX_WIDTH))


def _figure_and_axes(
    ax: Axes | None, rows: int, column: float, columns: int
) -> tuple[Figure, Axes, bool]:
    if ax is not None:
        return ax.figure, ax, False  # type: ignore[return-value]
    figure = new_figure(max(5.2, 2.6 + column * columns), 1.5 + _row_height(rows) * rows)
    return figure, figure.add_subplot(), True


def _bounds(frame: pd.DataFrame, value: str) -> list[bool]:
    """Per row: whether its probability is known only as a bound."""
    if value != PROBABILITY or not {PROBABILITY_LOWER, PROBABILITY_UPPER} <= set(frame.columns):
        return [False] * len(frame)
    pairs = zip(frame[PROBABILITY_LOWER], frame[PROBABILITY_UPPER], strict=True)
    return [is_bound(lower, upper) for lower, upper in pairs]


def _pivot(frame: pd.DataFrame, column: str) -> pd.DataFrame:
    """One row per org unit, one column per period, of ``frame[column]``."""
    return frame.pivot_table(
        index=ORG_UNIT,
        columns=PERIOD,
        values=column,
        aggfunc="first",
        dropna=False,
        observed=True,
    )


def _hatch(ax: Axes, bounds: np.ndarray) -> None:
    """Diagonal lines over the tiles whose probability is only a bound, as one collection (a
    patch per tile costs a second for a country's 1,500 tiles)."""
    rows, columns = np.nonzero(bounds)
    if len(rows):
        tiles = [
            Rectangle((column - 0.5, row - 0.5), 1, 1)
            for row, column in zip(rows, columns, strict=True)
        ]
        ax.add_collection(
            PatchCollection(
                tiles, facecolor="none", edgecolor="0.45", hatch="///", linewidth=0, gid=BOUND_GID
            ),
            autolim=False,
        )


def _write_percentages(
    ax: Axes, cells: np.ndarray, texts: np.ndarray, bounds: np.ndarray, colours: Colormap
) -> None:
    """Each tile's percentage in ``CELL_FONT``; on a hatched tile (a bound) on a patch of the
    tile's colour, so that the hatching does not cross the text."""
    for (row, column), probability in np.ndenumerate(cells):
        if np.isfinite(probability):
            ax.text(
                column,
                row,
                str(texts[row, column]),
                ha="center",
                va="center",
                fontsize=CELL_FONT,
                color="white" if probability >= DARK_FROM else "black",
                bbox=(
                    {"facecolor": colours(probability), "edgecolor": "none", "pad": 1.0}
                    if bounds[row, column]
                    else None
                ),
                zorder=3,
                gid="percentage",
            )
