"""map_chart: what a reader of the map notices (a shape per polygon, holes left empty, the
places' names, one colour scale, one panel per period) and the sentence instead of a map when a
dataset has no polygons."""

from __future__ import annotations

import json
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import PatchCollection
from matplotlib.figure import Figure

from chaplab.frames import with_org_unit_names
from chaplab.plotting import NoPolygonsError, map_chart
from chaplab.plotting._figure import ChartFigure

# A small made-up country: Lakeland has a lake (a hole), Harbour City is an enclave inside a
# second hole of Lakeland's, Islands is a MultiPolygon of a mainland strip and an island, Hills
# is a pentagon whose outer ring is written clockwise, Lighthouse is a point.
LAKE = [[1, 1], [2, 1], [2, 2], [1, 2], [1, 1]]
ENCLAVE = [[4, 1], [5, 1], [5, 2], [4, 2], [4, 1]]
FEATURES: dict[str, tuple[str, dict[str, Any] | None]] = {
    "LK": (
        "Lakeland",
        {
            "type": "Polygon",
            "coordinates": [[[0, 0], [6, 0], [6, 3], [0, 3], [0, 0]], LAKE, ENCLAVE],
        },
    ),
    "HC": ("Harbour City", {"type": "Polygon", "coordinates": [ENCLAVE]}),
    "IS": (
        "Islands",
        {
            "type": "MultiPolygon",
            "coordinates": [
                [[[6, 0], [8, 0], [8, 3], [6, 3], [6, 0]]],
                [[[9, 1], [10, 1], [10, 2], [9, 2], [9, 1]]],
            ],
        },
    ),
    "HL": (
        "Hills",
        {"type": "Polygon", "coordinates": [[[0, 3], [0, 5], [4, 5.8], [8, 5], [8, 3], [0, 3]]]},
    ),
    "LH": ("Lighthouse", {"type": "Point", "coordinates": [9.5, 3.5]}),
}


def country(features: dict[str, tuple[str, dict[str, Any] | None]] = FEATURES) -> dict[str, Any]:
    return {
        "type": "FeatureCollection",
        "features": [
            {"type": "Feature", "id": unit, "properties": {"name": name}, "geometry": geometry}
            for unit, (name, geometry) in features.items()
        ],
    }


def values(units: dict[str, float], periods: int = 1) -> pd.DataFrame:
    """One value per org unit and period (the value grows by 10 per period)."""
    months = pd.period_range("2025-01", periods=periods, freq="M")
    rows = [
        (unit, month, value + 10 * index)
        for index, month in enumerate(months)
        for unit, value in units.items()
    ]
    return pd.DataFrame(rows, columns=["org_unit", "period", "metric"])


def map_collections(figure: Figure, gid: str = "map") -> list[PatchCollection]:
    """The coloured polygons of each map (``gid="map no value"``: the grey ones)."""
    return [artist for ax in figure.axes for artist in ax.collections if artist.get_gid() == gid]


def labels_of(figure: Figure) -> list[str]:
    return sorted(
        text.get_text()
        for ax in figure.axes
        for text in ax.texts
        if str(text.get_gid()).startswith("label")
    )


def pixel(figure: Figure, x: float, y: float) -> tuple[int, ...]:
    """The RGBA colour drawn at data point (x, y) of the figure's first map."""
    figure.canvas.draw()
    image = np.asarray(figure.canvas.buffer_rgba())
    column, row = figure.axes[0].transData.transform((x, y))
    return tuple(
        int(channel) for channel in image[image.shape[0] - int(round(row)), int(round(column))]
    )


def test_each_polygon_is_one_shape_coloured_by_its_value() -> None:
    figure = map_chart(values({"LK": 5, "HC": 40, "IS": 20, "HL": 30}), country(), "metric")
    assert isinstance(figure, ChartFigure)
    (collection,) = map_collections(figure)
    assert len(collection.get_paths()) == 5  # Islands is two polygons, the others one each
    assert list(collection.get_array()) == [5, 40, 20, 20, 30]
    assert collection.norm.vmin == 0 and collection.norm.vmax == 40


def test_holes_are_left_empty_and_an_enclave_shows_through() -> None:
    figure = map_chart(
        values({"LK": 50, "HC": 100, "IS": 50, "HL": 50}),
        country(),
        "metric",
        cmap="Greys",
        vmin=0,
        labels=False,
    )
    land = pixel(figure, 0.5, 0.5)
    sea = pixel(figure, 8.5, 0.5)
    assert pixel(figure, 1.5, 1.5) == sea != land  # the lake is not Lakeland's colour
    enclave = pixel(figure, 4.5, 1.5)
    assert enclave != land and sum(enclave[:3]) < sum(land[:3])  # Harbour City in its own dark


def test_labels_are_the_places_names_at_their_polygons() -> None:
    frame = values({"LK": 10, "HC": 40, "IS": 20, "HL": 30})
    figure = map_chart(frame, country(), "metric")
    assert labels_of(figure) == ["Harbour City", "Hills", "Islands", "Lakeland"]
    islands = next(t for ax in figure.axes for t in ax.texts if t.get_gid() == "label IS")
    x, y = islands.xy
    assert 6 <= x <= 8 and 0 <= y <= 3  # on the mainland, the larger of its two parts


def test_the_frames_names_win_over_the_geojsons() -> None:
    frame = with_org_unit_names(values({"LK": 1, "HC": 2}), {"LK": "Lake District"})
    figure = map_chart(frame, country(), "metric")
    assert "Lake District" in labels_of(figure)


def grid(size: int, rows: int | None = None) -> dict[str, Any]:
    """``size`` columns by ``rows`` (``size``) rows of square districts named 'District <n>'."""
    features = {}
    for index in range(size * (rows or size)):
        row, column = divmod(index, size)
        ring = [
            [column, row],
            [column + 1, row],
            [column + 1, row + 1],
            [column, row + 1],
            [column, row],
        ]
        features[f"D{index}"] = (f"District {index}", {"type": "Polygon", "coordinates": [ring]})
    return country(features)


def test_labels_do_not_overlap_and_are_skipped_on_crowded_maps() -> None:
    for size in (3, 5):  # 9 and 25 districts: names written, none overlapping
        units = {f"D{index}": float(index) for index in range(size * size)}
        figure = map_chart(values(units), grid(size), "metric")
        figure.canvas.draw()
        renderer = figure.canvas.get_renderer()
        texts = [t for t in figure.axes[0].texts if str(t.get_gid()).startswith("label")]
        assert len(texts) == size * size  # on two lines where one line would overlap
        boxes = [text.get_window_extent(renderer) for text in texts]
        assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])
        assert min(text.get_fontsize() for text in texts) >= 8  # 11 CSS pixels at 100 dpi
        plt.close(figure)
    thirty = map_chart(
        values({f"D{i}": float(i) for i in range(30)}, periods=3), grid(6, 5), "metric"
    )
    for ax in thirty.axes[:3]:  # small multiples: every name written
        names = [t.get_text() for t in ax.texts if str(t.get_gid()).startswith("label")]
        assert len(names) == 30 and {"District 29", "District\n29"} & set(names)
        assert all(t.get_fontsize() >= 8 for t in ax.texts if str(t.get_gid()).startswith("label"))
    crowded = map_chart(values({f"D{i}": float(i) for i in range(36)}), grid(6), "metric")
    assert labels_of(crowded) == []
    assert "names left out: 36 places" in _note(crowded)
    assert "=" not in _note(crowded)  # words, no code: labels=True is the docstring's


def test_small_multiples_by_period_share_one_colour_scale() -> None:
    frame = values({"LK": 10, "HC": 40, "IS": 20, "HL": 30}, periods=3)
    figure = map_chart(frame, country(), "metric", units="cases per 1,000")
    maps = map_collections(figure)
    assert len(maps) == 3
    assert {(m.norm.vmin, m.norm.vmax) for m in maps} == {(0, 60)}
    assert [ax.get_title() for ax in figure.axes if ax.collections and ax.get_title()] == [
        "2025-01",
        "2025-02",
        "2025-03",
    ]
    bar = next(ax for ax in figure.axes if ax.get_gid() == "colour bar")
    assert bar.get_ylabel() == "metric (cases per 1,000)"
    assert bar.get_ylim() == (0, 60)


def test_a_prediction_frame_is_mapped_at_its_median_or_a_chosen_level() -> None:
    frame = pd.concat(
        [
            values({"LK": 10, "HC": 40}).assign(
                quantile=level, metric=lambda f, q=level: f.metric * q
            )
            for level in (0.1, 0.5, 0.9)
        ]
    ).rename(columns={"metric": "value"})
    median = map_chart(frame, country())
    assert list(map_collections(median)[0].get_array()) == [5, 20]
    assert "Median forecast" in median._suptitle.get_text()
    upper = map_chart(frame, country(), quantile=0.9, units="cases")
    assert list(map_collections(upper)[0].get_array()) == [9, 36]
    assert upper._suptitle.get_text() == "Forecast quantile 0.9 (cases), 2025-01"
    with pytest.raises(ValueError, match=r"quantile: the frame has no level 0.95; it has 0.1"):
        map_chart(frame, country(), quantile=0.95)


def test_probabilities_are_on_a_fixed_zero_to_one_scale_in_percent() -> None:
    frame = values({"LK": 0.2, "HC": 0.3}).rename(columns={"metric": "probability"})
    figure = map_chart(frame, country(), "probability")
    (collection,) = map_collections(figure)
    assert (collection.norm.vmin, collection.norm.vmax) == (0, 1)
    bar = next(ax for ax in figure.axes if ax.get_gid() == "colour bar")
    figure.canvas.draw()
    assert "100%" in [label.get_text() for label in bar.get_yticklabels()]


def test_places_without_a_value_are_grey_and_points_are_named_in_the_note() -> None:
    figure = map_chart(values({"LK": 10, "LH": 3}), country(), "metric")
    (valued,), (grey,) = map_collections(figure), map_collections(figure, "map no value")
    assert len(valued.get_paths()) == 1 and len(grey.get_paths()) == 4
    assert "no polygon for Lighthouse" in _note(figure)
    assert "grey: no value" in _note(figure)


@pytest.mark.parametrize("geometry", [None, {"type": "Point", "coordinates": [1, 2]}])
def test_no_polygons_is_a_sentence_not_a_map(geometry: dict[str, Any] | None) -> None:
    geojson = country({"A": ("North", geometry), "B": ("South", geometry)})
    with pytest.raises(NoPolygonsError) as raised:
        map_chart(values({"A": 1, "B": 2}), json.dumps(geojson), "metric")
    kind = "without geometry" if geometry is None else "with Point geometry"
    assert str(raised.value).startswith(
        f"No map: none of the dataset's 2 org units has a polygon (2 {kind}); a map needs "
        "Polygon or MultiPolygon boundaries"
    )
    assert plt.get_fignums() == []  # no figure left behind


def test_bad_input_names_the_argument() -> None:
    frame = values({"LK": 1})
    with pytest.raises(ValueError, match=r"frame lacks column\(s\) \['value'\]"):
        map_chart(frame, country())
    with pytest.raises(ValueError, match="more than one row per org_unit and period"):
        map_chart(pd.concat([frame, frame]), country(), "metric")
    with pytest.raises(ValueError, match="periods: 2024-01 not in the frame; it has 2025-01"):
        map_chart(frame, country(), "metric", periods=["2024-01"])
    with pytest.raises(ValueError, match="max_panels must be a whole number of at least 1"):
        map_chart(frame, country(), "metric", max_panels=0)
    with pytest.raises(ValueError, match="geojson must be a FeatureCollection"):
        map_chart(frame, {"type": "Feature"}, "metric")


def test_draws_into_the_callers_axes() -> None:
    figure, axes = plt.subplots(1, 2)
    returned = map_chart(values({"LK": 1, "HC": 2}, periods=2), country(), "metric", ax=axes)
    assert returned is figure
    assert all(map_collections(figure)[i] in axes[i].collections for i in range(2))


def _note(figure: Figure) -> str:
    return next(text.get_text() for text in figure.texts if text.get_gid() == "note")


def test_more_periods_than_max_panels_are_cut_and_the_note_says_so() -> None:
    figure = map_chart(values({"LK": 1, "HC": 2}, periods=5), country(), "metric", max_panels=4)
    assert len(map_collections(figure)) == 4
    assert "first 4 of 5 periods" in _note(figure)
