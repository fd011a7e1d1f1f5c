"""A hub's target data as a dataset for the modeling service."""

from __future__ import annotations

import pytest

from chaplab.errors import ArgumentError
from chaplab.frames import parse_periods
from chaplab.hubs import example_hub, hub_dataset, read_target_data

INC = "wk inc flu hosp"


def test_the_places_weekly_counts_with_population_and_unlocated_features() -> None:
    table, geojson = hub_dataset(example_hub(), target=INC, until="2023-W05")
    assert list(table.columns) == ["time_period", "location", "disease_cases", "population"]
    assert table["time_period"].max() == "2023W05"
    assert table["time_period"].min() == "2020W02"  # the week ending 2020-01-11
    assert sorted(table["location"].unique()) == ["01", "13", "42", "47", "48"]
    texas = table[table["location"] == "48"]
    assert set(texas["population"]) == {29914599.0}
    actuals = read_target_data(example_hub(), target=INC)
    last = parse_periods(["2023W05"])[0]
    assert len(table) == int((actuals["period"] <= last).sum()) < len(actuals)
    assert geojson["type"] == "FeatureCollection"
    assert [(f["id"], f["properties"]["name"], f["geometry"]) for f in geojson["features"]] == [
        ("01", "Alabama", None), ("13", "Georgia", None), ("42", "Pennsylvania", None),
        ("47", "Tennessee", None), ("48", "Texas", None),
    ]  # fmt: skip


def test_until_must_be_a_week() -> None:
    with pytest.raises(ArgumentError, match="until '2023-01' is not a week"):
        hub_dataset(example_hub(), target=INC, until="2023-01")
