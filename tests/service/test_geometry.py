"""Org-unit polygons: a broken GeoJSON geometry is refused with the path of the broken part."""

from __future__ import annotations

from typing import Any

import pytest

from chaplab.service.errors import FieldProblem
from chaplab.service.geometry import check_polygon_geometry

SQUARE = [[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]
HOLE = [[0.2, 0.2], [0.4, 0.2], [0.4, 0.4], [0.2, 0.2]]


def polygon(*rings: Any) -> dict[str, Any]:
    return {"type": "Polygon", "coordinates": list(rings)}


@pytest.mark.parametrize(
    "geometry",
    [
        polygon(SQUARE),
        polygon(SQUARE, HOLE),
        polygon([[10.5, -3.25, 120.0], [11, -3.25, 80], [11, -3, 90], [10.5, -3.25, 120.0]]),
        {"type": "MultiPolygon", "coordinates": [[SQUARE], [SQUARE, HOLE]]},
        polygon([[-180, -90], [180, -90], [180, 90], [-180, -90]]),
    ],
)
def test_valid_polygons_pass(geometry: dict[str, Any]) -> None:
    check_polygon_geometry(geometry, "geometry")


@pytest.mark.parametrize(
    ("geometry", "where", "reason"),
    [
        (None, "geometry", "Polygon or MultiPolygon"),
        ({"type": "Point", "coordinates": [0, 0]}, "geometry", "Polygon or MultiPolygon"),
        ({"type": "Polygon"}, "geometry.coordinates", "non-empty list of linear rings"),
        (polygon(), "geometry.coordinates", "non-empty list of linear rings"),
        (polygon([[0, 0], [1, 1]]), "geometry.coordinates[0]", "at least 4 positions"),
        (polygon([[0, 0], [1, 0], [1, 1], [0, 1]]), "geometry.coordinates[0]", "not closed"),
        (polygon(SQUARE, [[0, 0], [1, 1], [0, 0]]), "geometry.coordinates[1]", "at least 4"),
        (polygon([[0, 0], ["a", "b"], [1, 1], [0, 0]]), "coordinates[0][1]", "'a' is not a number"),
        (polygon([[0, 0], [True, 1], [1, 1], [0, 0]]), "coordinates[0][1]", "True is not a number"),
        (polygon([[0, 0], [1], [1, 1], [0, 0]]), "coordinates[0][1]", "position [longitude"),
        (polygon([[0, 0], [1, 2, 3, 4], [1, 1], [0, 0]]), "coordinates[0][1]", "position"),
        (polygon([[0, 0], [float("nan"), 1], [1, 1], [0, 0]]), "[0][1]", "not a finite number"),
        (polygon([[0, 0], [181, 1], [1, 1], [0, 0]]), "[0][1]", "longitude 181 is outside"),
        (polygon([[0, 0], [1, -91], [1, 1], [0, 0]]), "[0][1]", "latitude -91 is outside"),
        ({"type": "MultiPolygon", "coordinates": []}, "geometry.coordinates", "list of polygons"),
        (
            {"type": "MultiPolygon", "coordinates": [[SQUARE], [[[0, 0], [1, 1]]]]},
            "geometry.coordinates[1][0]",
            "at least 4 positions",
        ),
    ],
)
def test_broken_geometry_names_the_part_and_the_reason(
    geometry: Any, where: str, reason: str
) -> None:
    with pytest.raises(FieldProblem) as refused:
        check_polygon_geometry(geometry, "geometry")
    assert where in refused.value.field
    assert reason in refused.value.reason
