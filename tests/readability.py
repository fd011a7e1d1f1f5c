"""Measuring what a reader sees: where text is drawn, whether two texts run into each other or
out of their box, and how large text is shown. One harness for the chart gates (matplotlib
figures, measured in points) and the browser gates (a page's text, measured in CSS pixels).

- :class:`TextBox` is one drawn text and its extent (and the box it must stay in, if any);
  :func:`crowded` and :func:`overflowing` say, in sentences a failing test prints, which texts
  come closer than a gap to each other and which reach out of their box. Both work in the
  unit of the boxes given.
- Charts: :func:`tick_labels` gives an axis' drawn tick labels as boxes in points;
  :func:`time_label_problems` is the gate for a chart's time axes (no two labels closer than a
  visible gap, in a panel or across panels, none outside the figure); :func:`label_share` how
  much of its axis the labels fill (a chart shows as many labels as fit); :func:`shown_points`
  the size of a figure's text as shown at a width in CSS pixels.
- Pages: :data:`TEXT_BOXES_JS` runs in the page (``locator.evaluate(TEXT_BOXES_JS)``);
  :func:`page_text_boxes` turns its answer into boxes (each text as rendered, in the content box
  of the element that holds it) for :func:`crowded` and :func:`overflowing`, and
  :func:`cut_texts` names the texts cut without an ellipsis and a title.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from matplotlib.axes import Axes
from matplotlib.figure import Figure
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


# ---------------------------------------------------------------------------------------------
# Pages

TEXT_BOXES_JS = """
(root) => {
  const px = (value) => parseFloat(value) || 0;
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
    const padding = [left, top, left + holder.clientWidth, top + holder.clientHeight];
    const content = [padding[0] + px(style.paddingLeft), padding[1] + px(style.paddingTop),
                     padding[2] - px(style.paddingRight), padding[3] - px(style.paddingBottom)];
    const clips = style.overflowX !== 'visible';
    for (const node of element.childNodes) {
      if (node.nodeType !== Node.TEXT_NODE || !node.textContent.trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      const rect = range.getBoundingClientRect();
      if (rect.width === 0 || rect.height === 0) continue;
      let box = [rect.left, rect.top, rect.right, rect.bottom];
      const cut = clips && (box[0] < padding[0] - 0.5 || box[2] > padding[2] + 0.5);
      if (clips) {  // what shows of a clipped text
        box = [Math.max(box[0], padding[0]), Math.max(box[1], padding[1]),
               Math.min(box[2], padding[2]), Math.min(box[3], padding[3])];
      }
      found.push({
        text: node.textContent.trim(),
        tag: element.tagName.toLowerCase(),
        box: box,
        room: content,
        cut: cut,
        ellipsis: style.textOverflow === 'ellipsis',
        title: element.closest('[title]')?.getAttribute('title') ?? null,
      });
    }
  }
  return found;
}
"""
"""Runs in a page on an element (``locator.evaluate(TEXT_BOXES_JS)``): for each visible text
of the element and its descendants, what shows of it (``box``, clipped where its box clips)
and the content box of the nearest element around it that is not inline (``room``; both
``[left, top, right, bottom]`` in CSS pixels); whether that element cuts it (``cut``), with an
ellipsis (``ellipsis``), and the ``title`` over it (what a hover shows)."""


def page_text_boxes(found: Iterable[Mapping[str, Any]]) -> list[TextBox]:
    """:data:`TEXT_BOXES_JS`'s answer as boxes in CSS pixels (y grows downwards). A text cut
    by its box is checked by :func:`cut_texts`, not as overflowing: it keeps no room. Compare
    a page's texts with ``crowded(boxes, 0)``: texts on a line touch their neighbours."""
    return [
        TextBox(
            str(item["text"]),
            Box(*item["box"]),
            f"<{item['tag']}>",
            None if item["cut"] else Box(*item["room"]),
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
