"""GeoJSON polygon geometry checks (RFC 7946): rings of finite positions, closed, in range.

A dataset's org-unit polygons are drawn on maps and sent on to model runners, so a broken
geometry is refused when it arrives, with the path of the first broken part, instead of
failing later where nobody can tell which feature was wrong.
"""

from __future__ import annotations

import math
from typing import Any

from chaplab.service.errors import FieldProblem

POLYGON_TYPES = ("Polygon", "MultiPolygon")
MIN_RING_POSITIONS = 4
"""A linear ring: at least three distinct corners and the first position again to close it."""
LONGITUDE_RANGE = (-180.0, 180.0)
LATITUDE_RANGE = (-90.0, 90.0)


def check_polygon_geometry(geometry: Any, where: str) -> None:
    """A ``Polygon`` or ``MultiPolygon`` geometry object; FieldProblem naming the broken part."""
    if not isinstance(geometry, dict) or geometry.get("type") not in POLYGON_TYPES:
        raise FieldProblem(where, "must be a Polygon or MultiPolygon geometry")
    coordinates = geometry.get("coordinates")
    if geometry["type"] == "Polygon":
        _check_polygon(coordinates, f"{where}.coordinates")
        return
    polygons = _check_list(coordinates, f"{where}.coordinates", "a non-empty list of polygons")
    for index, polygon in enumerate(polygons):
        _check_polygon(polygon, f"{where}.coordinates[{index}]")


def _check_polygon(rings: Any, where: str) -> None:
    _check_list(rings, where, "a non-empty list of linear rings (the outer ring, then holes)")
    for index, ring in enumerate(rings):
        _check_ring(ring, f"{where}[{index}]")


def _check_ring(ring: Any, where: str) -> None:
    if not isinstance(ring, list) or len(ring) < MIN_RING_POSITIONS:
        raise FieldProblem(
            where,
            f"must be a linear ring of at least {MIN_RING_POSITIONS} positions "
            "(the first repeated at the end)",
        )
    for index, position in enumerate(ring):
        problem = _position_problem(position)
        if problem is not None:  # the path is written only for the position at fault
            raise FieldProblem(f"{where}[{index}]", problem)
    if ring[0] != ring[-1]:
        raise FieldProblem(where, "is not closed: its last position must equal its first")


def _position_problem(position: Any) -> str | None:
    """What is wrong with one position, or None."""
    if not isinstance(position, list) or len(position) not in (2, 3):
        return "must be a position [longitude, latitude] (or with altitude)"
    for value in position:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return f"{value!r} is not a number"
        if not math.isfinite(value):
            return f"{value!r} is not a finite number"
    longitude, latitude = position[0], position[1]
    if not LONGITUDE_RANGE[0] <= longitude <= LONGITUDE_RANGE[1]:
        return f"longitude {longitude} is outside [-180, 180]"
    if not LATITUDE_RANGE[0] <= latitude <= LATITUDE_RANGE[1]:
        return f"latitude {latitude} is outside [-90, 90]"
    return None


def _check_list(value: object, where: str, what: str) -> list[Any]:
    """``value``, a non-empty list; FieldProblem naming ``what`` it must be otherwise."""
    if not isinstance(value, list) or not value:
        raise FieldProblem(where, f"must be {what}")
    return value
