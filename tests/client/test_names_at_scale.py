"""A country's org-unit names come from the dataset's GeoJSON without reading its observations:
chap-core 2.5.1 sends the GeoJSON only inside ``GET /v1/crud/datasets/{id}`` with every
observation (651,000 for Brazil's 558 microregions), and validating those as models took seconds
before a chart could be named."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from chaplab.client import ChapDecodeError

from .fake_service import DATASET, FakeService

N_UNITS, N_MONTHS = 558, 240
UNITS = [f"BR{i:04d}" for i in range(N_UNITS)]
MONTHS = [f"{2001 + m // 12}{m % 12 + 1:02d}" for m in range(N_MONTHS)]


def country_geojson() -> dict[str, Any]:
    return {
        "type": "FeatureCollection",
        "features": [
            {
                "type": "Feature",
                "id": unit,
                "properties": {"name": f"Microregion {i}"},
                "geometry": None,
            }
            for i, unit in enumerate(UNITS)
        ],
    }


def dataset_answer(observations: list[Any], geojson: Any) -> httpx.Response:
    body = {**DATASET, "id": 1, "orgUnits": UNITS, "observations": observations, "geojson": geojson}
    return httpx.Response(
        200, content=json.dumps(body).encode(), headers={"content-type": "application/json"}
    )


def named(frame: Any) -> dict[str, str]:
    pairs = frame[["org_unit", "org_unit_name"]].drop_duplicates().astype(str)
    return dict(zip(pairs["org_unit"], pairs["org_unit_name"], strict=True))


def test_a_country_dataset_names_its_org_units_read_once(client: Any, fake: FakeService) -> None:
    observations = [
        {"featureName": "disease_cases", "orgUnit": unit, "period": month, "value": 3.0}
        for unit in UNITS
        for month in MONTHS
    ]
    as_text = json.dumps(country_geojson())  # as chap-core 2.5.1 sends it
    fake.fail("GET /v1/crud/datasets/1", dataset_answer(observations, as_text))
    fake.evaluations[1]["orgUnits"] = UNITS
    frame = client.actual_cases(1, org_units=[UNITS[0], UNITS[557]])
    again = client.actual_cases(1, org_units=[UNITS[7]])
    assert named(frame) == {UNITS[0]: "Microregion 0", UNITS[557]: "Microregion 557"}
    assert named(again) == {UNITS[7]: "Microregion 7"}
    assert fake.paths().count("GET /v1/crud/datasets/1") == 1


def test_names_do_not_depend_on_reading_the_observations(client: Any, fake: FakeService) -> None:
    """Observations no ``Observation`` model accepts (no org unit, no period) would fail a
    dataset read as models; the names, read from the GeoJSON alone, are still there."""
    unreadable = [{"featureName": "disease_cases", "value": "many"}] * (N_UNITS * N_MONTHS)
    fake.fail("GET /v1/crud/datasets/1", dataset_answer(unreadable, country_geojson()))
    fake.evaluations[1]["orgUnits"] = UNITS
    frame = client.actual_cases(1, org_units=[UNITS[1], UNITS[2]])
    assert named(frame) == {UNITS[1]: "Microregion 1", UNITS[2]: "Microregion 2"}


def test_a_dataset_answer_that_is_not_json_is_named_as_such(client: Any, fake: FakeService) -> None:
    fake.fail("GET /v1/crud/datasets/1", httpx.Response(200, content=b"<html>gateway</html>"))
    with pytest.raises(ChapDecodeError, match="GET /v1/crud/datasets/1 answered .*not valid JSON"):
        client.actual_cases(1)
