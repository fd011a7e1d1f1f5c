"""One reading of a GeoJSON feature's org-unit id, as chap-core reads it (the feature's ``id``
first, then ``properties.id``): the service's checks, the frames' names, the map's shapes and
the places of a parent all find the same ids in the same file, whichever ids it carries."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from chaplab.client import ChapClient, UnprocessableEntityError
from chaplab.datasets._places import org_units_of
from chaplab.frames import org_unit_names
from chaplab.plotting._map import shapes_of
from chaplab.service.domain.evaluations import polygon_ids
from chaplab.service.errors import FieldProblem
from chaplab.service.storage import check_geojson
from chaplab.vocabulary import feature_id, feature_ids


def square(index: int) -> dict[str, Any]:
    x = float(index)
    ring = [[x, 0.0], [x + 1, 0.0], [x + 1, 1.0], [x, 1.0], [x, 0.0]]
    return {"type": "Polygon", "coordinates": [ring]}


def collection(*features: dict[str, Any]) -> dict[str, Any]:
    return {"type": "FeatureCollection", "features": list(features)}


BOTH_IDS = collection(
    {
        "type": "Feature",
        "id": "OU_A",
        "properties": {"id": "a-code", "name": "Alpha", "parentName": "North"},
        "geometry": square(0),
    },
    {
        "type": "Feature",
        "id": "OU_B",
        "properties": {"id": "b-code", "name": "Beta", "parentName": "North"},
        "geometry": square(1),
    },
)
"""Each feature has its own id and a different properties.id: the feature's id names it."""

PROPERTIES_ONLY = collection(
    {
        "type": "Feature",
        "properties": {"id": "OU_A", "name": "Alpha", "parentName": "North"},
        "geometry": square(0),
    },
    {
        "type": "Feature",
        "properties": {"id": 7, "name": "Beta", "parentName": "North"},
        "geometry": square(1),
    },
)
"""No feature has an id of its own: properties.id names it (as text)."""


@pytest.mark.parametrize(
    ("geojson", "expected"),
    [(BOTH_IDS, ["OU_A", "OU_B"]), (PROPERTIES_ONLY, ["OU_A", "7"])],
    ids=["both ids", "properties.id only"],
)
def test_every_layer_reads_the_same_ids(geojson: dict[str, Any], expected: list[str]) -> None:
    assert feature_ids(geojson) == expected
    check_geojson(geojson, expected)  # the service accepts data of these org units
    assert polygon_ids(geojson) == set(expected)
    assert list(org_unit_names(geojson)) == expected
    assert list(shapes_of(geojson)) == expected
    assert org_units_of(geojson, "North") == expected


def test_the_service_refuses_org_units_named_by_the_other_id() -> None:
    with pytest.raises(FieldProblem, match="has no feature for the org units a-code, b-code"):
        check_geojson(BOTH_IDS, ["a-code", "b-code"])


def test_an_empty_own_id_counts_as_none_and_a_feature_without_ids_has_none() -> None:
    assert feature_id({"id": "", "properties": {"id": "X"}}) == "X"
    assert feature_id({"id": None, "properties": {"id": 0}}) == "0"
    assert feature_id({"properties": {"name": "nameless"}}) is None
    assert feature_id({"properties": None}) is None
    assert feature_ids({"features": [{"id": "A"}, "not a feature"]}) == ["A", None]


@pytest.mark.integration
def test_a_stored_dataset_is_named_by_the_features_own_ids(service_url: str) -> None:
    """A dataset whose polygons carry both ids is stored under the features' own ids, and the
    names read back from its GeoJSON are those of the same org units."""
    frame = pd.DataFrame(
        {
            "time_period": ["202401", "202402"] * 2,
            "location": ["OU_A", "OU_A", "OU_B", "OU_B"],
            "disease_cases": [1.0, 2.0, 3.0, 4.0],
        }
    )
    with ChapClient(service_url) as chap:
        stored = chap.create_dataset("both ids", frame, geojson=BOTH_IDS)
        geojson = chap.get_dataset(stored.id).geojson
        assert org_unit_names(geojson) == {"OU_A": "Alpha", "OU_B": "Beta"}
        by_properties = frame.assign(
            location=frame.location.map({"OU_A": "a-code", "OU_B": "b-code"})
        )
        with pytest.raises(UnprocessableEntityError, match="a-code, b-code"):
            chap.create_dataset("properties ids", by_properties, geojson=BOTH_IDS)
