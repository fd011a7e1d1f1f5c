"""Org-unit names from a dataset's GeoJSON, the org_unit_name column and resolving names."""

from __future__ import annotations

import json

import pandas as pd
import pydantic
import pytest

from chaplab.frames import (
    ORG_UNIT_NAME,
    actuals_to_frame,
    frame_labels,
    frame_to_observations,
    org_unit_labels,
    org_unit_names,
    resolve_org_units,
    with_national_total,
    with_org_unit_names,
)

from .helpers import entries_of_three_places


def feature(org_unit: str | None, **properties: str) -> dict:
    found = {"type": "Feature", "properties": properties, "geometry": None}
    return found if org_unit is None else {**found, "id": org_unit}


SIERRA_LEONE = {
    "type": "FeatureCollection",
    "features": [
        feature("O6uvpzGd5pu", name="Bo", parentName="Southern"),
        feature("fdc6uOvgoji", name="Bombali", parentName="Northern"),
        feature("jUb8gELQApl", name="Kailahun", parentName="Eastern"),
    ],
}


class Feature(pydantic.BaseModel):
    type: str = "Feature"
    id: str | None = None
    properties: dict | None = None


class FeatureCollection(pydantic.BaseModel):
    type: str = "FeatureCollection"
    features: list[Feature]


def test_names_come_from_a_geojson_dict_text_bytes_or_model() -> None:
    expected = {"O6uvpzGd5pu": "Bo", "fdc6uOvgoji": "Bombali", "jUb8gELQApl": "Kailahun"}
    text = json.dumps(SIERRA_LEONE)  # chap-core sends a dataset's GeoJSON as a string
    model = FeatureCollection.model_validate(SIERRA_LEONE)
    for geojson in (SIERRA_LEONE, text, text.encode(), model):
        assert org_unit_names(geojson) == expected


def test_the_id_may_be_a_property_and_a_feature_without_name_keeps_its_id() -> None:
    geojson = {
        "type": "FeatureCollection",
        "features": [feature(None, id="a", NAME="Alpha"), feature("b"), feature(None, name="c")],
    }
    assert org_unit_names(geojson) == {"a": "Alpha", "b": "b"}


def test_a_shared_name_says_which_place_by_parent_or_else_by_id() -> None:
    by_parent = org_unit_names(
        {
            "type": "FeatureCollection",
            "features": [
                feature("x1", name="Bo", parentName="Southern"),
                feature("x2", name="Bo", parentName="Northern"),
                feature("x3", name="Kenema", parentName="Eastern"),
            ],
        }
    )
    assert by_parent == {"x1": "Bo (Southern)", "x2": "Bo (Northern)", "x3": "Kenema"}
    assert org_unit_labels({"x1": "Bo", "x2": "Bo"}, {"x1": "South", "x2": "South"}) == {
        "x1": "Bo (x1)",
        "x2": "Bo (x2)",
    }
    clash = org_unit_labels({"a": "Bo", "b": "Bo", "c": "Bo (a)"})
    assert len(set(clash.values())) == 3
    assert clash["c"] == "Bo (a) (c)"


@pytest.mark.parametrize(
    ("geojson", "message"),
    [
        ({"type": "Feature"}, "geojson must be a FeatureCollection"),
        ("{not json", "geojson is not valid JSON"),
        ({"type": "FeatureCollection", "features": [3]}, "feature 0 is not an object"),
    ],
)
def test_a_document_that_is_no_feature_collection_is_a_clear_error(geojson, message) -> None:
    with pytest.raises(ValueError, match=message):
        org_unit_names(geojson)


def test_the_name_column_sits_beside_the_id_as_a_categorical() -> None:
    named = with_org_unit_names(entries_of_three_places(), SIERRA_LEONE)
    assert list(named.columns) == [
        "org_unit",
        ORG_UNIT_NAME,
        "split_period",
        "period",
        "horizon",
        "quantile",
        "value",
    ]
    assert isinstance(named[ORG_UNIT_NAME].dtype, pd.CategoricalDtype)
    pairs = dict(zip(named["org_unit"].astype(str), named[ORG_UNIT_NAME].astype(str), strict=True))
    assert pairs == {"O6uvpzGd5pu": "Bo", "fdc6uOvgoji": "Bombali", "unknown1": "unknown1"}
    again = with_org_unit_names(named, {"O6uvpzGd5pu": "Bo town"})
    assert list(again.columns).count(ORG_UNIT_NAME) == 1
    assert set(again[ORG_UNIT_NAME].astype(str)) == {"Bo town", "fdc6uOvgoji", "unknown1"}


def test_actuals_get_names_too_and_a_name_that_is_another_id_is_told_apart() -> None:
    actuals = actuals_to_frame(
        {"data": [{"pe": "202401", "ou": ou, "value": 1.0} for ou in ("a", "b")]}
    )
    named = with_org_unit_names(actuals, {"a": "b"})
    assert sorted(named[ORG_UNIT_NAME].astype(str)) == ["b", "b (a)"]


def test_the_national_total_is_named_and_names_are_no_features() -> None:
    named = with_org_unit_names(entries_of_three_places(), SIERRA_LEONE)
    total = with_national_total(named)
    assert set(total.loc[total["org_unit"] == "adm0", ORG_UNIT_NAME].astype(str)) == {"adm0"}
    assert not total[ORG_UNIT_NAME].isna().any()
    observations = pd.DataFrame(
        {"time_period": ["202401"], "location": ["a"], ORG_UNIT_NAME: ["Bo"], "rain": [1.0]}
    )
    assert [row["featureName"] for row in frame_to_observations(observations)] == ["rain"]


LABELS = {"x1": "Bo (Southern)", "x2": "Bo (Northern)", "x3": "Bombali", "x4": "Kenema"}


def test_org_units_are_found_by_id_label_name_or_any_case() -> None:
    assert resolve_org_units(["x4", "Bombali", "bo (southern)", "kenema"], LABELS) == [
        "x4",
        "x3",
        "x1",
        "x4",
    ]
    assert resolve_org_units("Bo (Northern)", LABELS) == ["x2"]


def test_a_name_of_two_places_is_an_error_that_lists_both() -> None:
    with pytest.raises(ValueError, match=r"org_units: 'Bo' names 2 places") as error:
        resolve_org_units(["Bo"], LABELS)
    assert "'Bo (Southern)' (id x1)" in str(error.value)
    assert "'Bo (Northern)' (id x2)" in str(error.value)


def test_an_unknown_name_gets_did_you_mean_and_a_few_of_those_there() -> None:
    with pytest.raises(
        ValueError,
        match=r"'Kenama' is not an org unit of the frame; did you mean "
        r"'Kenema'\? It has Bo \(Northern\), Bo \(Southern\), Bombali, Kenema",
    ):
        resolve_org_units("Kenama", LABELS)
    many = {f"id{i}": f"District {i:02d}" for i in range(20)}
    with pytest.raises(ValueError, match=r"District 07 and 12 more$"):
        resolve_org_units("Nowhere", many)
    with pytest.raises(ValueError, match="org_units is empty"):
        resolve_org_units([], LABELS)


def test_frame_labels_prefer_names_and_fall_back_to_ids() -> None:
    named = with_org_unit_names(entries_of_three_places(), SIERRA_LEONE)
    assert frame_labels(named) == {
        "O6uvpzGd5pu": "Bo",
        "fdc6uOvgoji": "Bombali",
        "unknown1": "unknown1",
    }
    assert frame_labels(entries_of_three_places())["O6uvpzGd5pu"] == "O6uvpzGd5pu"
