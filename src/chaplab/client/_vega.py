"""Vega and Vega-Lite specifications made safe to show and to save: sizes that never depend on
the page, place names for org-unit ids, periods as people read them (``2023-W47``), polygons
wound the way Vega's maps read them, and pictures drawn in the kernel with vl-convert (the
converter chap-core itself uses).

chap-core 2.5.1 sends Vega v6 specifications sized by their container (``autosize: fit-x`` and a
width signal reading ``containerSize()``); JupyterLab's Vega 5 renderer never settles such a
layout and the browser tab dies. Drawn here, a chart reaches the browser as a picture.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Literal

from chaplab import vocabulary
from chaplab.client._errors import ArgumentError

CONTAINER_WIDTH = 640
"""The width (pixels) a chart that asks for its container's width is laid out in."""
CONTAINER_HEIGHT = 300
"""The height (pixels) a chart that asks for its container's height is laid out in."""

Grammar = Literal["vega", "vega-lite"]
_SCHEMA = re.compile(r"/schema/(vega-lite|vega)/v(\d+)")


def grammar_of(spec: Mapping[str, Any]) -> tuple[Grammar, str] | None:
    """``("vega" | "vega-lite", major version)`` from a specification's ``$schema``, or None."""
    found = _SCHEMA.search(str(spec.get("$schema", "")))
    if found is None:
        return None
    grammar: Grammar = "vega-lite" if found.group(1) == "vega-lite" else "vega"
    return grammar, found.group(2)


def settled(spec: Mapping[str, Any], grammar: Grammar) -> dict[str, Any]:
    """A copy of ``spec`` whose size no longer depends on the page: a width or height read
    from the container becomes ``CONTAINER_WIDTH``/``CONTAINER_HEIGHT`` pixels and a
    ``fit`` autosize becomes ``pad`` (the plot keeps its size, axes and legends add to it)."""
    fixed = copy.deepcopy(dict(spec))
    sizes = {"width": CONTAINER_WIDTH, "height": CONTAINER_HEIGHT}
    if grammar == "vega":
        signals = fixed.get("signals") or []
        for index, signal in enumerate(signals):
            name = signal.get("name") if isinstance(signal, dict) else None
            if name in sizes and "containerSize" in json.dumps(signal):
                signals[index] = {"name": name, "value": sizes[name]}
    else:
        for name, size in sizes.items():
            if fixed.get(name) == "container":
                fixed[name] = size
    autosize = fixed.get("autosize")
    kind = autosize.get("type") if isinstance(autosize, dict) else autosize
    if isinstance(kind, str) and kind.startswith("fit"):
        fixed["autosize"] = {"type": "pad"}
    return fixed


def with_place_names(spec: dict[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    """``spec`` (changed in place) with each org-unit id in its data values and its titles
    replaced by the place's name. ``names`` maps ids to distinct names, so lookups between
    data sets (a map's polygons and its values) still match."""
    if not names:
        return spec
    _change_data_values(spec, lambda values: _renamed_values(values, names))
    token = re.compile(
        r"(?<![\w])("
        + "|".join(re.escape(i) for i in sorted(names, key=len, reverse=True))
        + r")(?![\w])"
    )
    _rename_titles(spec, lambda text: token.sub(lambda m: names[m.group(1)], text))
    return spec


PERIOD_FIELDS = ("time_period", "split_period", "period")
"""The fields of a chart's data rows that hold periods."""


def split_header_labels(split_periods: Sequence[str]) -> dict[str, str]:
    """The text chap-core 2.5.1's evaluation charts head each split with -> the split's label.

    chap-core heads a split by the first day of the period before its first forecast period
    (the last period the model saw, ``time_period - horizon_distance`` in
    ``assessment/backtest_plots/evaluation_plot.py``): the split chaplab calls ``2021-W01``
    (first forecast week 2021W01) is headed ``2020-12-21``, the Monday of 2020W52; the split
    ``2022-09`` is headed ``2022-08-01``. Split periods that are no periods are left out."""
    labels = {}
    for split in split_periods:
        try:
            seen_last = vocabulary.previous_period(split)
            label = vocabulary.readable_period(vocabulary.canonical_period(split))
        except ValueError:
            continue
        labels[vocabulary.period_start(seen_last).isoformat()] = label
    return labels


def with_period_labels(spec: dict[str, Any], split_headers: Mapping[str, str]) -> dict[str, Any]:
    """``spec`` (changed in place) with the periods in its data rows as people read them: in a
    field of :data:`PERIOD_FIELDS`, a period in any spelling of ``chaplab.vocabulary``
    (``2023W47``, ``202311``, a week's dates) becomes ``2023-W47`` or ``2023-11``, and a split
    header of ``split_headers`` (:func:`split_header_labels`) its split's label. Dates, which
    place marks on a time axis, stay as they are."""
    readable: dict[str, str] = {}

    def label(name: str, value: str) -> str:
        if name == "split_period" and value in split_headers:
            return split_headers[value]
        if value not in readable:
            try:
                readable[value] = vocabulary.readable_period(vocabulary.canonical_period(value))
            except ValueError:
                readable[value] = value
        return readable[value]

    def relabelled(values: Any) -> Any:
        if isinstance(values, list):
            for row in values:
                if isinstance(row, dict):
                    for name in PERIOD_FIELDS:
                        if isinstance(row.get(name), str):
                            row[name] = label(name, row[name])
        return values

    _change_data_values(spec, relabelled)
    return spec


def wound_for_vega(spec: dict[str, Any]) -> dict[str, Any]:
    """``spec`` (changed in place) with each polygon in its data wound clockwise, holes
    counter-clockwise, as Vega's map projections (d3-geo) read them. GeoJSON (RFC 7946) winds
    the other way; d3-geo takes such a polygon for the whole globe but the place, and the map
    shows one block."""
    _change_data_values(spec, _rewound)
    return spec


def draws_nothing(spec: Mapping[str, Any], grammar: Grammar) -> bool:
    """True when the chart, laid out, has no mark with anything in it (axes and legends
    aside): data the server left empty, or a map none of whose places has a polygon."""
    import vl_convert

    render = (
        vl_convert.vega_to_scenegraph if grammar == "vega" else vl_convert.vegalite_to_scenegraph
    )
    scene = render(dict(spec))
    return not any(_drawn_items(scene.get("scenegraph", scene)))


def may_draw_nothing(spec: Mapping[str, Any]) -> bool:
    """Whether the chart could be empty: a data set of it is empty, or it is a map (whose
    places may all lack a polygon). Only such charts are laid out to find out
    (:func:`draws_nothing`), which costs as much as drawing them."""
    empty: list[bool] = []

    def note(values: Any) -> Any:
        empty.append(isinstance(values, list) and not values)
        return values

    _change_data_values(spec, note)  # each data set stays as it is
    return any(empty) or has_map(spec)


def has_map(spec: Mapping[str, Any]) -> bool:
    """True when the specification draws geographic shapes."""
    return '"geoshape"' in json.dumps(spec)


def render(spec: Mapping[str, Any], grammar: Grammar, suffix: str) -> bytes:
    """The chart drawn as ``.svg``, ``.png`` (twice the pixels, for print) or ``.pdf``."""
    import vl_convert

    kind = "vega" if grammar == "vega" else "vegalite"
    if suffix == ".svg":
        svg: str = getattr(vl_convert, f"{kind}_to_svg")(dict(spec))
        return svg.encode()
    if suffix == ".png":
        png: bytes = getattr(vl_convert, f"{kind}_to_png")(dict(spec), scale=2)
        return png
    if suffix == ".pdf":
        pdf: bytes = getattr(vl_convert, f"{kind}_to_pdf")(dict(spec))
        return pdf
    raise ArgumentError(f"suffix must be '.svg', '.png' or '.pdf', got {suffix!r}")


def as_vega(spec: Mapping[str, Any], grammar: Grammar) -> dict[str, Any]:
    """The Vega specification of a chart (a Vega-Lite one compiled)."""
    if grammar == "vega":
        return dict(spec)
    import vl_convert

    compiled: dict[str, Any] = vl_convert.vegalite_to_vega(dict(spec))
    return compiled


# -- helpers ---------------------------------------------------------------------------------


def _change_data_values(spec: Any, change: Callable[[Any], Any]) -> None:
    """Replace each inline data set of a Vega spec (``data`` at the top level and in group
    marks) or of a Vega-Lite spec (``data`` anywhere, ``datasets``) with ``change(values)``."""
    stack: list[Any] = [spec]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
            continue
        if not isinstance(node, dict):
            continue
        for key, value in node.items():
            if key == "datasets" and isinstance(value, dict):
                for name in value:
                    value[name] = change(value[name])
            elif key == "data":
                for holder in value if isinstance(value, list) else [value]:
                    if isinstance(holder, dict) and "values" in holder:
                        holder["values"] = change(holder["values"])
            else:
                stack.append(value)


def _renamed_values(node: Any, names: Mapping[str, str]) -> Any:
    """``node`` with every string that is a key of ``names`` replaced by its value."""
    if isinstance(node, str):
        return names.get(node, node)
    if isinstance(node, list):
        return [_renamed_values(item, names) for item in node]
    if isinstance(node, dict):
        return {key: _renamed_values(value, names) for key, value in node.items()}
    return node


def _rename_titles(node: Any, rename: Callable[[str], str], in_title: bool = False) -> None:
    """Apply ``rename`` to every text of a title, subtitle or header title outside the data."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "data":
                continue
            title = in_title or key in ("title", "subtitle")
            if isinstance(value, str) and title:
                node[key] = rename(value)
            else:
                _rename_titles(value, rename, title)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            if isinstance(value, str) and in_title:
                node[index] = rename(value)
            else:
                _rename_titles(value, rename, in_title)


def _rewound(values: Any) -> Any:
    """``values`` with each polygon's outer ring clockwise and its holes counter-clockwise."""
    for geometry in _geometries(values):
        polygons = geometry["coordinates"]
        for polygon in [polygons] if geometry["type"] == "Polygon" else polygons:
            for index, ring in enumerate(polygon):
                if _is_clockwise(ring) != (index == 0):
                    ring.reverse()
    return values


def _geometries(node: Any) -> Iterator[dict[str, Any]]:
    """The Polygon and MultiPolygon geometries anywhere in ``node``."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if item.get("type") in ("Polygon", "MultiPolygon") and isinstance(
                item.get("coordinates"), list
            ):
                yield item
            else:
                stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _is_clockwise(ring: list[list[float]]) -> bool:
    """True for a ring (longitude, latitude) wound clockwise on a map with north up."""
    area = 0.0
    for (x1, y1, *_), (x2, y2, *_) in zip(ring, ring[1:] + ring[:1], strict=True):
        area += x1 * y2 - x2 * y1
    return area < 0


def _drawn_items(node: Any) -> Iterator[int]:
    """The item counts of the scene's marks that draw data (not axes, legends or titles)."""
    if not isinstance(node, dict):
        return
    items = node.get("items") or []
    if node.get("role") == "mark" and node.get("marktype") not in (None, "group") and items:
        yield len(items)
    for item in items:
        yield from _drawn_items(item)
