"""Measuring what a reader sees: where text is drawn, whether two texts run into each other or
out of their box, and how large text is shown. One harness for the chart gates (matplotlib
figures, measured in points) and the browser gates (a page's text, measured in CSS pixels).

- :class:`TextBox` is one drawn text and its extent (and the box it must stay in, if any);
  :func:`crowded` and :func:`overflowing` say, in sentences a failing test prints, which texts
  come closer than a gap to each other and which reach out of their box. Both work in the
  unit of the boxes given.
- Charts: :func:`smallest_text_points` is the size of a figure's smallest drawn text and
  :func:`drawn_problems` the gate of what its time panels draw (the split their title names, a
  forecast that is more than a sliver, a value axis no higher than the values drawn), read from
  the chart's artists, not its pixels; :func:`tick_labels` gives an axis' drawn tick labels as
  boxes in points, :func:`read_periods` its time labels as the periods a reader reads (``W05``
  under ``2024``, then ``W09``: 2024-W05, 2024-W09);
  :func:`time_label_problems` is the gate for a chart's time axes (no two labels closer than a
  visible gap, in a panel or across panels, none outside the figure); :func:`label_share` how
  much of its axis the labels fill (a chart shows as many labels as fit); :func:`shown_points`
  the size of a figure's text as shown at a width in CSS pixels.
- Pages: :data:`TEXT_BOXES_JS` runs in the page (``locator.evaluate(TEXT_BOXES_JS)``);
  :func:`page_text_boxes` turns its answer into boxes (each text as rendered, in the padding box
  of the element that holds it) for :func:`crowded` and :func:`overflowing`, and
  :func:`cut_texts` names the texts cut without an ellipsis and a title, and
  :func:`read_the_same` two different texts that read the same where they are cut.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import matplotlib.dates as mdates
import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.text import Text

POINTS = 72.0
MIN_GAP_POINTS = 3.0
"""A gap a reader sees between two labels: about a space of 10-point type (4 pixels at 100 dpi)."""


@dataclass(frozen=True)
class Box:
    """A rectangle: ``x0 <= x1``, ``y0 <= y1`` (whichever way y grows)."""

    x0: float
    y0: float
    x1: float
    y1: float

    def gap_to(self, other: Box) -> float:
        """The distance between the two boxes along the axis they are apart on (the larger of
        the two); negative when they overlap (by as much as the smaller overlap)."""
        apart_x = max(other.x0 - self.x1, self.x0 - other.x1)
        apart_y = max(other.y0 - self.y1, self.y0 - other.y1)
        return max(apart_x, apart_y)

    def contains(self, other: Box, slack: float = 0.0) -> bool:
        return (
            other.x0 >= self.x0 - slack
            and other.x1 <= self.x1 + slack
            and other.y0 >= self.y0 - slack
            and other.y1 <= self.y1 + slack
        )


@dataclass(frozen=True)
class TextBox:
    """A text as drawn: its words, its extent, where it is (for messages) and the box it must
    stay inside (a table cell, a figure), if any."""

    text: str
    box: Box
    where: str = ""
    room: Box | None = None

    def __str__(self) -> str:
        place = f" ({self.where})" if self.where else ""
        return f"{self.text!r}{place}"


def crowded(texts: Sequence[TextBox], gap: float) -> list[str]:
    """A sentence for each pair of texts closer than ``gap`` (or overlapping)."""
    return [
        f"{first} and {second} are {first.box.gap_to(second.box):.1f} apart, less than {gap:g}"
        for first, second in itertools.combinations(texts, 2)
        if first.box.gap_to(second.box) < gap
    ]


def overflowing(texts: Iterable[TextBox], slack: float = 0.0) -> list[str]:
    """A sentence for each text that reaches out of its room by more than ``slack``."""
    return [
        f"{text} reaches out of its box: {_outside(text.box, text.room)}"
        for text in texts
        if text.room is not None and not text.room.contains(text.box, slack)
    ]


def _outside(box: Box, room: Box) -> str:
    sides = {
        "left": room.x0 - box.x0,
        "right": box.x1 - room.x1,
        "low side": room.y0 - box.y0,
        "high side": box.y1 - room.y1,
    }
    return ", ".join(f"{by:.1f} past the {side}" for side, by in sides.items() if by > 0)


# ---------------------------------------------------------------------------------------------
# Charts


def tick_labels(ax: Axes, axis: Literal["x", "y"] = "x", where: str = "") -> list[TextBox]:
    """The tick labels ``ax`` draws on ``axis`` (major, non-empty, ticks in view), as boxes in
    points in figure coordinates, in the order of their ticks; each must stay in the figure.
    The figure must have been drawn (``figure.draw_without_rendering()``)."""
    figure = ax.get_figure(root=True)
    assert isinstance(figure, Figure), "an Axes of a figure"
    renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
    scale = POINTS / figure.dpi
    room = _points(figure.bbox.extents, scale)
    chosen = ax.xaxis if axis == "x" else ax.yaxis
    low, high = sorted(chosen.get_view_interval())
    boxes = []
    for tick in chosen.get_major_ticks():
        if not low <= tick.get_loc() <= high:
            continue
        for label in (tick.label1, tick.label2):
            if label.get_visible() and label.get_text():
                extent = _points(label.get_window_extent(renderer).extents, scale)
                boxes.append(TextBox(label.get_text(), extent, where, room))
    return boxes


def shown_labels(ax: Axes, axis: Literal["x", "y"] = "x") -> list[str]:
    """The texts of the tick labels ``ax`` draws on ``axis`` (see :func:`tick_labels`)."""
    return [label.text for label in tick_labels(ax, axis)]


def read_periods(labels: Sequence[str]) -> list[str]:
    """Time tick labels, left to right, as a reader reads them: a month as written
    (``2024-07``), a week over its year (``W05`` over ``2024``) as ``2024-W05``, and a week
    without its year as one of the year last written to its left. AssertionError for a week
    no year stands before: a reader could not tell its year."""
    periods, year = [], None
    for label in labels:
        first, _, second = label.partition("\n")
        if not first.startswith("W"):
            periods.append(label)
            continue
        year = second or year
        assert year is not None, f"{labels}: the week {first} has no year written before it"
        periods.append(f"{year}-{first}")
    return periods


def _points(extents: Sequence[float], scale: float) -> Box:
    x0, y0, x1, y1 = (float(value) * scale for value in extents)
    return Box(x0, y0, x1, y1)


def labelled_axes(figure: Figure, axis: Literal["x", "y"] = "x") -> list[Axes]:
    """The figure's axes that draw tick labels on ``axis`` (colour bars excluded)."""
    figure.draw_without_rendering()
    return [
        ax for ax in figure.axes if ax.get_label() != "<colorbar>" and tick_labels(ax, axis, "")
    ]


def time_label_problems(
    figure: Figure, axes: Sequence[Axes] | None = None, gap: float = MIN_GAP_POINTS
) -> list[str]:
    """The gate of a chart's time axes: a sentence for each two x tick labels of ``axes`` (by
    default every labelled x axis of the figure but colour bars) closer than ``gap`` points,
    in one panel or in two, and for each label out of the figure."""
    chosen = labelled_axes(figure) if axes is None else list(axes)
    labels = [
        label
        for number, ax in enumerate(chosen, start=1)
        for label in tick_labels(ax, "x", f"panel {number}, {ax.get_title() or 'untitled'}")
    ]
    return crowded(labels, gap) + overflowing(labels)


def label_share(ax: Axes, axis: Literal["x", "y"] = "x") -> float:
    """The share of the axis' length its tick labels fill (their widths, or heights for y,
    over the axis' length): about 1 when they stand shoulder to shoulder."""
    figure = ax.get_figure(root=True)
    assert isinstance(figure, Figure), "an Axes of a figure"
    scale = POINTS / figure.dpi
    labels = tick_labels(ax, axis)
    if axis == "x":
        filled = sum(label.box.x1 - label.box.x0 for label in labels)
        return filled / (ax.bbox.width * scale)
    filled = sum(label.box.y1 - label.box.y0 for label in labels)
    return filled / (ax.bbox.height * scale)


def shown_points(figure: Figure, shown_width: float) -> dict[str, float]:
    """Each visible text of the figure (titles, labels, tick labels, legend, annotations) ->
    its size as shown when the whole figure is ``shown_width`` CSS pixels wide, in CSS pixels
    (the figure's dpi does not matter: only its width in inches and its text in points)."""
    figure.draw_without_rendering()
    scale = shown_width / (figure.get_figwidth() * POINTS)
    sizes: dict[str, float] = {}
    for text in figure.findobj(Text):
        if isinstance(text, Text) and text.get_visible() and text.get_text().strip():
            size = text.get_fontsize() * scale
            sizes[text.get_text()] = min(size, sizes.get(text.get_text(), size))
    return sizes


FORECAST_SHARE = 0.2
"""The least share of a time panel's periods its forecast takes (three months after 24 months
of history were a sliver at the right edge)."""
VALUE_MARGIN = 0.1
"""How far a value axis may reach past the highest value drawn, as a share of the values'
span (the charts leave 5 %)."""


def smallest_text_points(figure: Figure) -> float | None:
    """The size in points of the smallest text the figure draws (titles, labels, tick labels,
    legend, annotations; a text outside the picture, such as a tick label beyond its axis'
    view, is not drawn), None for a figure without text. Draws the figure."""
    figure.draw_without_rendering()
    sizes = [
        float(text.get_fontsize())
        for text in figure.findobj(Text)
        if isinstance(text, Text)
        and text.get_visible()
        and text.get_text().strip()
        and _in_picture(text, figure)
    ]
    return min(sizes) if sizes else None


def _in_picture(text: Text, figure: Figure) -> bool:
    box = text.get_window_extent()
    bounds = figure.bbox
    return box.x1 >= bounds.x0 - 1 and box.x0 <= bounds.x1 + 1 and box.width > 0


def drawn_problems(figure: Figure) -> list[str]:
    """What a chart's time panels draw against what the chart says: each panel whose forecast
    is marked (the split's dashed line, a forecast's start) shows the split its title names
    (the figure's or the panel's ``split 2024-07``), gives the forecast a fifth of its periods
    or more, and has a value axis no higher than the values it draws plus a tenth of their span
    (of the values any panel draws on the same axis limits: an org unit's splits share one)."""
    problems = []
    suptitle = figure.get_suptitle()
    highest: dict[tuple[float, float], float] = {}  # panels sharing a value axis: its highest
    for ax in figure.axes:
        values = _drawn_values(ax, *sorted(ax.get_xlim()))
        if values.size:
            limits = ax.get_ylim()
            highest[limits] = max(highest.get(limits, -np.inf), float(values.max()))
    for number, ax in enumerate(figure.axes, start=1):
        marks = [line for line in ax.get_lines() if _is_mark(line)]
        if not marks:
            continue
        where = f"panel {number} ({ax.get_title() or 'untitled'})"
        left, right = sorted(ax.get_xlim())
        start = float(_as_numbers(marks[0].get_xdata())[0])
        named = re.search(r"split (\d{4}-W?\d{2})", ax.get_title() or suptitle)
        drawn = str(marks[0].get_gid()).removeprefix("split ")
        if named and drawn != "forecast start" and drawn != named.group(1):
            problems.append(
                f"{where}: the title names split {named.group(1)}, the panel draws split {drawn}"
            )
        forecast, history = _periods_shown(ax, start, left, right)
        if forecast and forecast < FORECAST_SHARE * (forecast + history):
            problems.append(
                f"{where}: the forecast's {forecast} periods follow {history} of history, less "
                f"than {FORECAST_SHARE:.0%} of the panel"
            )
        if ax.get_ylim() in highest:
            bottom, top = ax.get_ylim()
            high = highest[ax.get_ylim()]
            allowed = high + VALUE_MARGIN * max(high - bottom, 1e-9)
            if top > allowed + 1e-9:
                problems.append(
                    f"{where}: the value axis reaches {top:,.4g} where the highest value drawn "
                    f"is {high:,.4g}"
                )
    return problems


def _periods_shown(ax: Axes, start: float, left: float, right: float) -> tuple[int, int]:
    """(forecast periods, periods of history) a time panel shows: the periods its lines draw a
    point at from the forecast's mark on, and before it, in the panel's view."""
    points = {
        float(value)
        for line in ax.get_lines()
        if not _is_mark(line)
        for value in _as_numbers(line.get_xdata())
        if left <= value <= right
    }
    forecast = sum(1 for value in points if value >= start - 1e-6)
    return forecast, len(points) - forecast


def _drawn_values(ax: Axes, left: float, right: float) -> np.ndarray:
    """The y values of the lines and filled bands inside the panel's time view, and where the
    lines cross its edges."""
    values = []
    for line in ax.get_lines():
        if _is_mark(line):
            continue
        x = _as_numbers(line.get_xdata())
        y = np.asarray(line.get_ydata(), dtype=float)
        values.append(y[(x >= left) & (x <= right)])
        if x.size > 1 and np.all(np.diff(x) > 0):
            values.append(np.interp([left, right], x, y, left=np.nan, right=np.nan))
    for collection in ax.collections:
        if isinstance(collection, PolyCollection):
            for path in collection.get_paths():
                x, y = path.vertices[:, 0], path.vertices[:, 1]
                values.append(y[(x >= left) & (x <= right)])
    found = np.concatenate(values) if values else np.empty(0)
    return found[np.isfinite(found)]


def _is_mark(line: Line2D) -> bool:
    """Whether a line is a panel's split (``split 2024-07``) or forecast-start mark."""
    gid = str(line.get_gid() or "")
    return gid.startswith("split ") or gid == "forecast start"


def _as_numbers(values: Any) -> np.ndarray:
    """x data as the axes' numbers (dates as matplotlib's day numbers)."""
    array = np.asarray(values)
    if np.issubdtype(array.dtype, np.datetime64) or array.dtype == object:
        return np.asarray(mdates.date2num(array), dtype=float)
    return array.astype(float)


# ---------------------------------------------------------------------------------------------
# Pages

TEXT_BOXES_JS = """
(root) => {
  const px = (value) => parseFloat(value) || 0;
  // A text node as the lines it is drawn on: one box for a text on one line; for a wrapped
  // one, each line's characters but the spaces where it breaks (they hang past the box).
  const textLines = (node, range) => {
    const tops = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)));
    const whole = range.getBoundingClientRect();
    if (tops.size <= 1) {
      if (whole.width === 0 || whole.height === 0) return [];
      return [{text: node.textContent.trim(), whole: true,
               box: [whole.left, whole.top, whole.right, whole.bottom]}];
    }
    const lines = [];
    const text = node.textContent;
    const single = document.createRange();
    for (let i = 0; i < text.length; i++) {
      if (!text[i].trim()) continue;
      single.setStart(node, i);
      single.setEnd(node, i + 1);
      const rect = single.getClientRects()[0];
      if (!rect || rect.width === 0) continue;
      const line = lines[lines.length - 1];
      if (line && Math.abs(rect.top - line.top) < 1) {
        line.box[2] = Math.max(line.box[2], rect.right);
        line.box[3] = Math.max(line.box[3], rect.bottom);
        line.end = i + 1;
      } else {
        lines.push({top: rect.top, start: i, end: i + 1,
                    box: [rect.left, rect.top, rect.right, rect.bottom]});
      }
    }
    return lines.map((line) => ({text: text.slice(line.start, line.end).trim(), whole: false,
                                 box: line.box}));
  };
  const found = [];
  for (const element of [root, ...root.querySelectorAll('*')]) {
    if (element.getClientRects().length === 0) continue;
    if (getComputedStyle(element).visibility === 'hidden') continue;
    let holder = element;  // the box the text must stay in: the nearest that is not inline
    while (getComputedStyle(holder).display === 'inline' && holder.parentElement) {
      holder = holder.parentElement;
    }
    const style = getComputedStyle(holder);
    const outer = holder.getBoundingClientRect();
    const left = outer.left + holder.clientLeft;
    const top = outer.top + holder.clientTop;
    // the box a text must stay in: inside the holder's border (its padding is part of it: a
    // tree view's keys stand in their item's padding, beside its toggle), and to its left as far
    // as a negative text-indent hangs the first line on purpose
    const padding = [left, top, left + holder.clientWidth, top + holder.clientHeight];
    const room = [padding[0] + Math.min(px(style.textIndent), 0), ...padding.slice(1)];
    const clips = style.overflowX !== 'visible';
    // a turned or scaled text (a tree's toggle arrow) is not boxed as drawn: no room to check
    const transformed = [element, holder].some((e) => getComputedStyle(e).transform !== 'none');
    for (const node of element.childNodes) {
      if (node.nodeType !== Node.TEXT_NODE || !node.textContent.trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      for (const line of textLines(node, range)) {
        let box = line.box;
        const cut = clips && (box[0] < padding[0] - 0.5 || box[2] > padding[2] + 0.5);
        if (clips) {  // what shows of a clipped text
          box = [Math.max(box[0], padding[0]), Math.max(box[1], padding[1]),
                 Math.min(box[2], padding[2]), Math.min(box[3], padding[3])];
        }
        let shown = line.text;
        if (cut && line.whole) {  // the characters in sight, and the ellipsis of the box
          const text = node.textContent;
          const ellipsis = style.textOverflow === 'ellipsis';
          const edge = padding[2] - (ellipsis ? 0.75 * px(style.fontSize) : 0);
          let low = 0, high = text.length;
          while (low < high) {
            const middle = Math.ceil((low + high) / 2);
            range.setStart(node, 0);
            range.setEnd(node, middle);
            if (range.getBoundingClientRect().right <= edge + 0.5) low = middle;
            else high = middle - 1;
          }
          shown = text.slice(0, low).trim() + (ellipsis ? '…' : '');
        }
        found.push({
          text: line.text,
          shown: shown,
          tag: element.tagName.toLowerCase(),
          box: box,
          room: transformed ? null : room,
          cut: cut,
          ellipsis: style.textOverflow === 'ellipsis',
          title: element.closest('[title]')?.getAttribute('title') ?? null,
        });
      }
    }
  }
  return found;
}
"""
"""Runs in a page on an element (``locator.evaluate(TEXT_BOXES_JS)``): for each visible text
of the element and its descendants (each line of a wrapped one, without the spaces it breaks
at), what shows of it (``box``, clipped where its box clips) and the box inside the border of
the nearest element around it that is not inline (``room``, its padding included, and what a
negative text-indent hangs out; null for a transformed text; both
``[left, top, right, bottom]`` in CSS pixels); whether that element cuts it (``cut``), with an
ellipsis (``ellipsis``), what a reader sees of it (``shown``: a cut text's characters in sight
and its ellipsis) and the ``title`` over it (what a hover shows)."""


def page_text_boxes(found: Iterable[Mapping[str, Any]]) -> list[TextBox]:
    """:data:`TEXT_BOXES_JS`'s answer as boxes in CSS pixels (y grows downwards). A text cut
    by its box is checked by :func:`cut_texts`, not as overflowing: it keeps no room. Compare
    a page's texts with ``crowded(boxes, 0)``: texts on a line touch their neighbours."""
    return [
        TextBox(
            str(item["text"]),
            Box(*item["box"]),
            f"<{item['tag']}>",
            None if item["cut"] or item["room"] is None else Box(*item["room"]),
        )
        for item in found
    ]


def cut_texts(found: Iterable[Mapping[str, Any]]) -> list[str]:
    """A sentence for each text of :data:`TEXT_BOXES_JS`'s answer that its box cuts without an
    ellipsis, or without its whole text in a title to hover over."""
    problems = []
    for item in found:
        if not item["cut"]:
            continue
        if not item["ellipsis"]:
            problems.append(f"{item['text']!r} (<{item['tag']}>) is cut without an ellipsis")
        elif item["title"] != item["text"]:
            problems.append(f"{item['text']!r} (<{item['tag']}>) is cut and no title holds it")
    return problems


def read_the_same(found: Iterable[Mapping[str, Any]]) -> list[str]:
    """A sentence for each two different texts of :data:`TEXT_BOXES_JS`'s answer that read the
    same as shown: a cut text whose characters in sight are another text's (``compare models/
    seaso…`` for two evaluations whose names differ after that)."""
    texts_of: dict[str, set[str]] = {}
    for item in found:
        texts_of.setdefault(str(item.get("shown", item["text"])), set()).add(str(item["text"]))
    return [
        f"{' and '.join(repr(text) for text in sorted(texts))} read the same: {shown!r}"
        for shown, texts in texts_of.items()
        if len(texts) > 1
    ]
