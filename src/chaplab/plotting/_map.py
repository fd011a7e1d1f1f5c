"""A choropleth of any per-org-unit value, drawn from a dataset's GeoJSON with matplotlib alone.

Each Polygon or MultiPolygon of the GeoJSON becomes one path (a MultiPolygon one per part), its
outer ring counter-clockwise and its holes clockwise, so matplotlib's nonzero fill leaves the
holes empty whichever way the file winds them. A panel's polygons are one ``PatchCollection``
coloured by the value: a map of 500 org units is one artist, not 500. Small multiples: one panel
per period, all on one colour scale with one colour bar.

A feature without a polygon (``null`` or ``Point`` geometry, which chap-core accepts) is never
drawn as an invented shape: when no feature has a polygon the chart raises
:class:`NoPolygonsError`, a sentence a notebook or the panel can show instead of the map.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib import colormaps, patheffects
from matplotlib.axes import Axes
from matplotlib.collections import PatchCollection
from matplotlib.colors import Colormap, Normalize
from matplotlib.figure import Figure
from matplotlib.patches import PathPatch
from matplotlib.path import Path
from matplotlib.ticker import FuncFormatter, PercentFormatter
from matplotlib.transforms import Bbox

from chaplab.errors import ArgumentError, ArgumentTypeError
from chaplab.frames import (
    ORG_UNIT,
    ORG_UNIT_NAME,
    PERIOD,
    PROBABILITY,
    PROBABILITY_LOWER,
    PROBABILITY_UPPER,
    QUANTILE,
    format_number,
    frame_labels,
    is_bound,
    org_unit_names,
    parse_periods,
    period_label,
)
from chaplab.frames._names import _features
from chaplab.plotting._figure import ChartFigure
from chaplab.plotting._scoring_style import metric_label
from chaplab.vocabulary import feature_id

POLYGON_TYPES = ("Polygon", "MultiPolygon")
BOUND_GID = "map bound"
MAX_LABELS = 30
"""Names are written on maps of at most this many org units (``labels=True`` forces them)."""
MAX_PANELS = 12
MAX_COLUMNS = 2
NO_VALUE_COLOUR = "0.88"
DARK = 0.55
"""Fills of a lower luminance than this get white names."""
EDGE_COLOUR = "white"
MAP_GID = "map"
LABEL_GID = "label"
LABEL_FONT = 8  # points (a chart's MIN_TEXT): 11 CSS px at 100 dpi, on small multiples ...
LARGE_LABEL_FONT = 9  # ... and on a single map of a few places

# Figure geometry, in inches.
SINGLE_WIDTH = 6.0
PANEL_WIDTH = 3.6
"""Two small multiples in a row and their colour bar are 8.8 inches, a chart's ``MAX_WIDTH``:
names of ``LABEL_FONT`` are shown 10 CSS px tall or more (three in a row were 11.3 inches,
shrunk until the names were 7-8 px)."""
MIN_PANEL_HEIGHT, MAX_PANEL_HEIGHT = 1.6, 7.0
EDGE = 0.15
TITLE = 0.55
TITLE_LINE = 0.25  # each further line of the title
PANEL_TITLE = 0.3
COLOUR_BAR = 0.22
COLOUR_BAR_LABELS = 1.05  # tick labels such as 20,000 and the bar's label beside them
NOTE = 0.3


class NoPolygonsError(ValueError):
    """The GeoJSON has no polygon to draw: its features have no geometry, or points only."""


@dataclass(frozen=True)
class Shape:
    """An org unit's polygons as paths (one per polygon) and where its name goes."""

    paths: list[Path]
    label_point: tuple[float, float]
    area: float


def map_chart(
    frame: pd.DataFrame,
    geojson: Any,
    value: str = "value",
    *,
    quantile: float | None = None,
    periods: Sequence[pd.Period | str] | None = None,
    units: str | None = None,
    label: str | None = None,
    title: str | None = None,
    cmap: str | Colormap | None = None,
    vmin: float | None = None,
    vmax: float | None = None,
    labels: bool | None = None,
    max_panels: int = MAX_PANELS,
    ax: Axes | Sequence[Axes] | None = None,
) -> Figure:
    """A map of ``frame[value]`` per org unit, coloured on one scale, with the places' names.

    ``frame`` has an ``org_unit`` column and the ``value`` column: a prediction frame (pick the
    level with ``quantile``; the median by default), exceedance probabilities (``value=
    "probability"``: a fixed 0-100 % scale), a metric per org unit. A ``period`` column gives one
    panel per period (``periods`` chooses some; at most ``max_panels``). ``geojson`` is the
    dataset's FeatureCollection (a dict, JSON text or bytes); its features' ids are the org
    units. The colour bar reads ``label`` (by default the value's name) and ``units``.

    Names (``org_unit_name`` of the frame, else the GeoJSON's) are written on maps of at most
    30 org units (``labels=True`` always, ``False`` never); a name that would overlap another is
    left out. An org unit without a value is grey; one without a polygon is not drawn and the
    note under the map names it. :class:`NoPolygonsError` when no feature has a polygon.
    """
    if isinstance(max_panels, bool) or not isinstance(max_panels, int) or max_panels < 1:
        raise ArgumentError(f"max_panels must be a whole number of at least 1, got {max_panels!r}")
    table, chosen = _values(frame, value, quantile)
    shapes = shapes_of(geojson)
    names = _names(frame, geojson)
    panels = _panel_periods(table, periods)
    notes = []
    if len(panels) > max_panels:
        notes.append(f"first {max_panels} of {len(panels)} periods")
        panels = panels[:max_panels]
    by_panel = [_panel_values(table, period, value) for period in panels]
    bound_by_panel = [_bound_units(table, period, value) for period in panels]
    if any(bound_by_panel):
        notes.append(
            "hatched: only a bound is known (< or >, the threshold is beyond the forecast)"
        )
    missing = sorted({unit for values in by_panel for unit in values} - set(shapes))
    if missing:
        notes.append(_listed("no polygon for", missing, names))
    if any(unit not in values for values in by_panel for unit in shapes):
        notes.append("grey: no value")
    show_labels = len(shapes) <= MAX_LABELS if labels is None else labels
    if labels is None and not show_labels:
        notes.append(f"names left out: {len(shapes)} places, too many to read on a map")
    norm = _norm(value, by_panel, vmin, vmax)
    colours = colormaps[cmap] if isinstance(cmap, str) else cmap or _default_cmap(value)
    legend = _colour_bar_label(value, chosen, label, units)
    heading = title or f"{legend[0].upper()}{legend[1:]}"
    if len(panels) == 1 and panels[0] is not None:
        heading += f", {period_label(panels[0])}"
    figure, axes, owns = _figure(
        shapes, len(panels), ax, noted=bool(notes), title_lines=heading.count("\n") + 1
    )
    bounds = _bounds(shapes)
    collection = None
    for axes_, period, values, bound in zip(axes, panels, by_panel, bound_by_panel, strict=True):
        collection = _draw_panel(axes_, shapes, values, norm, colours, bounds)
        _hatch(axes_, shapes, bound)
        if period is not None and len(panels) > 1:
            axes_.set_title(period_label(period), fontsize="medium")
    if show_labels:
        small = len(axes) > 1 or len(shapes) > 12
        for axes_, values in zip(axes, by_panel, strict=True):
            fills = {unit: colours(norm(number)) for unit, number in values.items()}
            _write_names(axes_, shapes, names, fills, small)
    assert collection is not None, "a map has at least one panel"
    _colour_bar(figure, axes, collection, legend, value, owns)
    _finish(figure, heading, notes, owns)
    if show_labels:
        _drop_overlapping_labels(figure, axes, shapes)
    return figure


def shapes_of(geojson: Any) -> dict[str, Shape]:
    """Org unit id -> its :class:`Shape`, for each feature with a polygon.

    :class:`NoPolygonsError` when no feature has a Polygon or MultiPolygon geometry."""
    shapes: dict[str, Shape] = {}
    kinds: dict[str, int] = {}
    features = _features(geojson)
    for position, feature in enumerate(features):
        if not isinstance(feature, Mapping):
            raise ArgumentError(f"geojson: feature {position} is not an object")
        org_unit = feature_id(feature)
        if org_unit is None:
            continue
        geometry = feature.get("geometry")
        kind = geometry.get("type") if isinstance(geometry, Mapping) else None
        if not isinstance(geometry, Mapping) or kind not in POLYGON_TYPES:
            key = str(kind) if kind else "no"
            kinds[key] = kinds.get(key, 0) + 1
            continue
        shapes[org_unit] = _shape(geometry, f"geojson: feature {org_unit!r}")
    if not shapes:
        raise NoPolygonsError(_no_polygons_sentence(len(features), kinds))
    return shapes


def _no_polygons_sentence(count: int, kinds: Mapping[str, int]) -> str:
    if not count:
        return "No map: the GeoJSON has no features, so there are no polygons to draw."
    what = ", ".join(
        f"{number} {'without geometry' if kind == 'no' else f'with {kind} geometry'}"
        for kind, number in kinds.items()
    )
    return (
        f"No map: none of the dataset's {count} org units has a polygon ({what}); a map needs "
        "Polygon or MultiPolygon boundaries, and none are made up. Upload the dataset with a "
        "GeoJSON of the org units' boundaries to see a map; the table and tiles show the values."
    )


def _shape(geometry: Mapping[str, Any], where: str) -> Shape:
    coordinates = geometry.get("coordinates")
    polygons = [coordinates] if geometry["type"] == "Polygon" else coordinates
    if not isinstance(polygons, list) or not polygons:
        raise ArgumentError(f"{where}: its {geometry['type']} has no coordinates")
    paths, areas, points = [], [], []
    for polygon in polygons:
        rings = [_ring(ring, where) for ring in polygon]
        if not rings:
            raise ArgumentError(f"{where}: a polygon without rings")
        outer = rings[0]
        paths.append(_polygon_path(rings))
        areas.append(abs(_signed_area(outer)) - sum(abs(_signed_area(r)) for r in rings[1:]))
        points.append(_label_point(outer, paths[-1]))
    largest = int(np.argmax(areas))
    return Shape(paths, points[largest], float(sum(areas)))


def _ring(ring: Any, where: str) -> np.ndarray:
    try:
        points = np.asarray(ring, dtype=np.float64)[:, :2]
    except (ValueError, IndexError, TypeError):
        raise ArgumentError(f"{where}: a ring is not a list of [x, y] positions") from None
    if len(points) < 4 or not np.isfinite(points).all():
        raise ArgumentError(f"{where}: a ring needs at least 4 finite positions, closed")
    return points


def _signed_area(ring: np.ndarray) -> float:
    """Shoelace area: positive for a counter-clockwise ring."""
    x, y = ring[:, 0], ring[:, 1]
    return 0.5 * float(np.dot(x[:-1], y[1:]) - np.dot(x[1:], y[:-1]))


def _polygon_path(rings: list[np.ndarray]) -> Path:
    """One path of a polygon: the outer ring counter-clockwise, the holes clockwise."""
    vertices, codes = [], []
    for index, ring in enumerate(rings):
        counter_clockwise = _signed_area(ring) > 0
        if counter_clockwise == (index > 0):  # outer must be CCW, holes CW
            ring = ring[::-1]
        ring_codes = np.full(len(ring), Path.LINETO, dtype=Path.code_type)
        ring_codes[0], ring_codes[-1] = Path.MOVETO, Path.CLOSEPOLY
        vertices.append(ring)
        codes.append(ring_codes)
    return Path(np.concatenate(vertices), np.concatenate(codes))


def _label_point(outer: np.ndarray, path: Path) -> tuple[float, float]:
    """The outer ring's centroid, or where that falls outside (a crescent, a hole) the middle
    of the widest stretch of the polygon on the horizontal line through it."""
    area = _signed_area(outer)
    x, y = outer[:, 0], outer[:, 1]
    if area != 0:
        cross = x[:-1] * y[1:] - x[1:] * y[:-1]
        cx = float(np.sum((x[:-1] + x[1:]) * cross) / (6 * area))
        cy = float(np.sum((y[:-1] + y[1:]) * cross) / (6 * area))
    else:
        cx, cy = float(x.mean()), float(y.mean())
    if path.contains_point((cx, cy)):
        return cx, cy
    xs = np.linspace(x.min(), x.max(), 201)
    inside = path.contains_points(np.column_stack([xs, np.full_like(xs, cy)]))
    if not inside.any():
        return cx, cy
    return float(xs[inside].mean()), cy


def _values(
    frame: pd.DataFrame, value: str, quantile: float | None
) -> tuple[pd.DataFrame, float | None]:
    """The rows to draw (one quantile level) and the level chosen (None without levels)."""
    if not isinstance(frame, pd.DataFrame):
        raise ArgumentTypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
    missing = [name for name in (ORG_UNIT, value) if name not in frame.columns]
    if missing:
        raise ArgumentError(
            f"frame lacks column(s) {missing}: a map needs an 'org_unit' column and the value "
            f"column named by value= (got value={value!r}; the frame has {list(frame.columns)})"
        )
    if frame.empty:
        raise ArgumentError("frame is empty: there is nothing to map")
    if not pd.api.types.is_numeric_dtype(frame[value]):
        raise ArgumentError(f"value: column {value!r} is not numeric ({frame[value].dtype})")
    chosen = None
    if QUANTILE in frame.columns:
        levels = sorted(frame[QUANTILE].unique())
        chosen = 0.5 if quantile is None else float(quantile)
        if not np.isclose(levels, chosen).any():
            raise ArgumentError(
                f"quantile: the frame has no level {chosen:g}; it has "
                f"{', '.join(f'{level:g}' for level in levels)}"
            )
        frame = frame[np.isclose(frame[QUANTILE].to_numpy(np.float64), chosen)]
    elif quantile is not None:
        raise ArgumentError("quantile: the frame has no 'quantile' column to choose a level from")
    keys = [ORG_UNIT, *([PERIOD] if PERIOD in frame.columns else [])]
    if frame.duplicated(keys).any():
        raise ArgumentError(
            f"frame has more than one row per {' and '.join(keys)}: a map shows one value per "
            "place (and period); filter the frame first (a split_period, a model)"
        )
    return frame, chosen


def _names(frame: pd.DataFrame, geojson: Any) -> dict[str, str]:
    names = org_unit_names(geojson)
    if ORG_UNIT_NAME in frame.columns:
        names |= frame_labels(frame)
    return names


def _panel_periods(
    table: pd.DataFrame, periods: Sequence[pd.Period | str] | None
) -> list[pd.Period | None]:
    if PERIOD not in table.columns:
        if periods is not None:
            raise ArgumentError("periods: the frame has no 'period' column")
        return [None]
    present = sorted(table[PERIOD].unique())
    if periods is None:
        return list(present)
    wanted = [p if isinstance(p, pd.Period) else parse_periods([str(p)])[0] for p in periods]
    unknown = [period_label(p) for p in wanted if p not in present]
    if unknown:
        raise ArgumentError(
            f"periods: {', '.join(unknown)} not in the frame; it has "
            f"{', '.join(period_label(p) for p in present)}"
        )
    if not wanted:
        raise ArgumentError("periods is empty: name at least one period, or None for all")
    return wanted


def _panel_values(table: pd.DataFrame, period: pd.Period | None, value: str) -> dict[str, float]:
    rows = table if period is None else table[table[PERIOD] == period]
    values = rows[value].to_numpy(np.float64)
    keep = np.isfinite(values)
    units = rows[ORG_UNIT].astype(str).to_numpy()
    return dict(zip(units[keep], values[keep], strict=True))


def _bound_units(table: pd.DataFrame, period: pd.Period | None, value: str) -> set[str]:
    """The org units whose probability in the panel is only a bound (its lower and upper
    bounds differ: the threshold lies beyond the forecast's outermost quantile)."""
    if value != PROBABILITY or not {PROBABILITY_LOWER, PROBABILITY_UPPER} <= set(table.columns):
        return set()
    rows = table if period is None else table[table[PERIOD] == period]
    units = rows[ORG_UNIT].astype(str)
    pairs = zip(units, rows[PROBABILITY_LOWER], rows[PROBABILITY_UPPER], strict=True)
    return {unit for unit, lower, upper in pairs if is_bound(lower, upper)}


def _hatch(ax: Axes, shapes: Mapping[str, Shape], units: set[str]) -> None:
    """Diagonal lines over the places whose probability is only a bound."""
    hatched = [PathPatch(path) for unit in units if unit in shapes for path in shapes[unit].paths]
    if hatched:
        ax.add_collection(
            PatchCollection(
                hatched, facecolor="none", edgecolor="0.35", hatch="///", linewidth=0, gid=BOUND_GID
            )
        )


def _norm(
    value: str, by_panel: list[dict[str, float]], vmin: float | None, vmax: float | None
) -> Normalize:
    """One scale for every panel: 0-1 for probabilities, else the values' range."""
    if value == PROBABILITY:
        low, high = 0.0, 1.0
    else:
        values = np.array([v for values in by_panel for v in values.values()], np.float64)
        if not values.size and (vmin is None or vmax is None):
            raise ArgumentError(f"frame has no finite {value!r} value to map")
        low = float(values.min()) if values.size else 0.0
        high = float(values.max()) if values.size else 1.0
        if low >= 0 and high > 0:
            low = 0.0 if low < 0.25 * high else low
    low = low if vmin is None else float(vmin)
    high = high if vmax is None else float(vmax)
    if high < low:
        raise ArgumentError(f"vmin ({low:g}) is above vmax ({high:g})")
    if high == low:
        high = low + 1.0
    return Normalize(low, high)


def _default_cmap(value: str) -> Colormap:
    return colormaps["Reds" if value == PROBABILITY else "YlOrRd"]


def _bounds(shapes: Mapping[str, Shape]) -> Bbox:
    return Bbox.union([path.get_extents() for shape in shapes.values() for path in shape.paths])


def _aspect(bounds: Bbox) -> float:
    """Data units of y per x on screen: longitude degrees shrink with the cosine of latitude."""
    geographic = bounds.x0 >= -180 and bounds.x1 <= 180 and bounds.y0 >= -90 and bounds.y1 <= 90
    if not geographic:
        return 1.0
    middle = math.radians((bounds.y0 + bounds.y1) / 2)
    return 1.0 / max(math.cos(middle), 0.1)


def _figure(
    shapes: Mapping[str, Shape],
    count: int,
    ax: Axes | Sequence[Axes] | None,
    noted: bool,
    title_lines: int,
) -> tuple[Figure, list[Axes], bool]:
    """Our figure with one map per panel (fixed margins, room for the colour bar to the right),
    or the caller's axes."""
    if ax is not None:
        given = [ax] if isinstance(ax, Axes) else list(ax)
        if len(given) < count:
            raise ArgumentError(f"{count} periods need {count} axes but ax gives {len(given)}")
        return given[0].figure, given[:count], False  # type: ignore[return-value]
    bounds = _bounds(shapes)
    ratio = (bounds.height * _aspect(bounds)) / max(bounds.width, 1e-12)
    columns = min(count, MAX_COLUMNS)
    rows = math.ceil(count / columns)
    width = SINGLE_WIDTH if count == 1 else PANEL_WIDTH
    height = min(max(width * ratio, MIN_PANEL_HEIGHT), MAX_PANEL_HEIGHT)
    title_row = PANEL_TITLE if count > 1 else 0.0
    figure_width = EDGE + columns * width + (columns - 1) * EDGE + COLOUR_BAR + COLOUR_BAR_LABELS
    title = TITLE + TITLE_LINE * (title_lines - 1)
    figure_height = title + rows * (height + title_row) + (NOTE if noted else 0.0) + EDGE
    figure = plt.figure(FigureClass=ChartFigure, figsize=(figure_width, figure_height))
    axes = []
    for index in range(count):
        row, column = divmod(index, columns)
        left = EDGE + column * (width + EDGE)
        top = title + row * (height + title_row) + title_row
        axes.append(
            figure.add_axes(
                (
                    left / figure_width,
                    1 - (top + height) / figure_height,
                    width / figure_width,
                    height / figure_height,
                )
            )
        )
    return figure, axes, True


def _draw_panel(
    ax: Axes,
    shapes: Mapping[str, Shape],
    values: Mapping[str, float],
    norm: Normalize,
    colours: Colormap,
    bounds: Bbox,
) -> PatchCollection:
    """The polygons with a value, coloured by it, and those without, grey."""
    edge = 0.6 if len(shapes) <= MAX_LABELS * 3 else 0.3  # thin borders between many places
    valued = [unit for unit in shapes if unit in values]
    blank = [unit for unit in shapes if unit not in values]
    collection = PatchCollection(
        [PathPatch(path) for unit in valued for path in shapes[unit].paths],
        cmap=colours,
        norm=norm,
        edgecolor=EDGE_COLOUR,
        linewidth=edge,
    )
    collection.set_array(
        np.array([values[unit] for unit in valued for _ in shapes[unit].paths], np.float64)
    )
    collection.set_gid(MAP_GID)
    ax.add_collection(collection)
    if blank:
        grey = PatchCollection(
            [PathPatch(path) for unit in blank for path in shapes[unit].paths],
            facecolor=NO_VALUE_COLOUR,
            edgecolor=EDGE_COLOUR,
            linewidth=edge,
        )
        grey.set_gid(f"{MAP_GID} no value")
        ax.add_collection(grey)
    ax.update_datalim(bounds.get_points())  # every panel spans every polygon
    ax.margins(0.02)
    ax.autoscale_view()
    ax.set_aspect(_aspect(bounds), adjustable="datalim")
    ax.set_axis_off()
    return collection


def _write_names(
    ax: Axes,
    shapes: Mapping[str, Shape],
    names: Mapping[str, str],
    fills: Mapping[str, tuple[float, ...]],
    small: bool,
) -> None:
    """Each place's name on it: black with a white halo, white on a dark fill."""
    halo = [patheffects.withStroke(linewidth=2.4, foreground="white")]
    for unit, shape in shapes.items():
        dark = unit in fills and _luminance(fills[unit]) < DARK
        ax.annotate(
            _wrapped(names.get(unit, unit)),
            shape.label_point,
            ha="center",
            va="center",
            fontsize=LABEL_FONT if small else LARGE_LABEL_FONT,
            color="white" if dark else "black",
            path_effects=None if dark else halo,
            gid=f"{LABEL_GID} {unit}",
            annotation_clip=False,
        )


def _luminance(colour: tuple[float, ...]) -> float:
    red, green, blue = colour[:3]
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def _wrapped(name: str, width: int = 14) -> str:
    """A long name on two lines, split at the space nearest its middle."""
    if len(name) <= width or " " not in name:
        return name
    spaces = [index for index, char in enumerate(name) if char == " "]
    cut = min(spaces, key=lambda index: abs(index - len(name) / 2))
    return f"{name[:cut]}\n{name[cut + 1 :]}"


def _drop_overlapping_labels(figure: Figure, axes: list[Axes], shapes: Mapping[str, Shape]) -> None:
    """Remove names that would overlap a larger place's name or leave their map, unless on two
    lines they fit; the largest places keep theirs."""
    get_renderer = getattr(figure.canvas, "get_renderer", None)
    if get_renderer is None:
        return
    renderer = get_renderer()
    for ax in axes:
        ax.apply_aspect()
        frame = ax.get_window_extent(renderer).expanded(1.02, 1.02)
        texts = {text.get_gid(): text for text in ax.texts}
        kept: list[Bbox] = []
        for unit in sorted(shapes, key=lambda u: -shapes[u].area):
            text = texts.get(f"{LABEL_GID} {unit}")
            if text is None:
                continue
            for spelling in _spellings(text.get_text()):
                text.set_text(spelling)
                box = text.get_window_extent(renderer).expanded(1.06, 1.1)
                inside = frame.contains(box.x0, box.y0) and frame.contains(box.x1, box.y1)
                if inside and not any(box.overlaps(other) for other in kept):
                    kept.append(box)
                    break
            else:
                text.remove()


def _spellings(label: str) -> list[str]:
    """A label as written, then on two lines where it is one line with a space."""
    if "\n" in label or " " not in label:
        return [label]
    return [label, _wrapped(label, width=0)]


def _colour_bar_label(
    value: str, chosen: float | None, label: str | None, units: str | None
) -> str:
    if label is None:
        if value == PROBABILITY:
            label = "outbreak probability"
        elif chosen is not None:
            label = "median forecast" if chosen == 0.5 else f"forecast quantile {chosen:g}"
        else:
            label = metric_label(value)
    return f"{label} ({units})" if units else label


def _colour_bar(
    figure: Figure,
    axes: list[Axes],
    mappable: PatchCollection,
    label: str,
    value: str,
    owns: bool,
) -> None:
    if owns:
        width, height = figure.get_size_inches()
        first, last = axes[0].get_position(), axes[-1].get_position()
        right = max(ax.get_position().x1 for ax in axes)
        cax = figure.add_axes(
            (
                right + EDGE / width,
                last.y0,
                COLOUR_BAR / width * 0.6,
                first.y1 - last.y0,
            )
        )
        bar = figure.colorbar(mappable, cax=cax, label=label)
    else:
        bar = figure.colorbar(mappable, ax=axes, label=label, shrink=0.8)
    formatter = (
        PercentFormatter(1.0, decimals=0)
        if value == PROBABILITY
        else FuncFormatter(lambda number, _: format_number(number))
    )
    bar.ax.yaxis.set_major_formatter(formatter)
    bar.ax.set_gid("colour bar")


def _finish(figure: Figure, heading: str, notes: list[str], owns: bool) -> None:
    if owns:
        height = figure.get_size_inches()[1]
        figure.suptitle(heading, y=1 - EDGE / height, va="top")
        if notes:
            figure.text(
                EDGE / figure.get_size_inches()[0],
                EDGE / height,
                "; ".join(notes),
                fontsize="small",
                color="0.3",
                va="bottom",
                gid="note",
            )
    else:
        figure.suptitle("; ".join([heading, *notes]))


def _listed(what: str, units: list[str], names: Mapping[str, str], shown: int = 5) -> str:
    listed = ", ".join(names.get(unit, unit) for unit in units[:shown])
    more = f" and {len(units) - shown} more" if len(units) > shown else ""
    return f"{what} {listed}{more}"
