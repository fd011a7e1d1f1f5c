"""Frames read from the service carry the org units' names from the dataset's GeoJSON, fetched
once per dataset."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from chaplab.client import ArgumentError, ChapClient

from .fake_service import FakeService

GEOJSON = {
    "type": "FeatureCollection",
    "features": [
        {"type": "Feature", "id": "OU_A", "properties": {"name": "Bo"}, "geometry": None},
        {"type": "Feature", "id": "OU_B", "properties": {"name": "Bombali"}, "geometry": None},
    ],
}


def test_frames_get_names_and_the_dataset_is_fetched_once(client: Any, fake: FakeService) -> None:
    fake.datasets[0]["geojson"] = json.dumps(GEOJSON)  # chap-core 2.5.1 sends it as text
    frame = client.evaluation_frame(1, quantiles=[0.5])
    actuals = client.actual_cases(1)
    again = client.evaluation_frame(1, quantiles=[0.9], org_units=["OU_A"])
    assert list(frame.columns[:2]) == ["org_unit", "org_unit_name"]
    named = frame_names(frame)
    assert named == {"OU_A": "Bo", "OU_B": "Bombali"}
    assert set(actuals["org_unit_name"].astype(str)) == {"Bo", "Bombali"}
    assert set(again["org_unit_name"].astype(str)) == {"Bo"}
    assert fake.paths().count("GET /v1/crud/datasets/1") == 1
    assert fake.paths().count("GET /v1/crud/backtests/1/info") == 1


def test_an_evaluation_and_a_prediction_of_one_dataset_fetch_it_once(
    client: Any, fake: FakeService
) -> None:
    fake.datasets[0]["geojson"] = GEOJSON
    evaluation = client.evaluation_frame(1, quantiles=[0.5])
    prediction = client.prediction_frame(7, quantiles=[0.5])
    assert set(evaluation["org_unit_name"].astype(str)) == {"Bo", "Bombali"}
    assert frame_names(prediction) == {"OU_A": "Bo"}
    assert fake.paths().count("GET /v1/crud/datasets/1") == 1
    assert fake.paths().count("GET /v1/crud/predictions/7") == 1


def test_a_dataset_without_geojson_gives_no_name_column(client: Any, fake: FakeService) -> None:
    assert "org_unit_name" not in client.evaluation_frame(1).columns
    assert "org_unit_name" not in client.actual_cases(1).columns


def test_an_org_unit_the_geojson_does_not_name_keeps_its_id(client: Any, fake: FakeService) -> None:
    unnamed = {
        **GEOJSON,
        "features": [{**GEOJSON["features"][0], "properties": {}}, GEOJSON["features"][1]],
    }
    fake.datasets[0]["geojson"] = unnamed
    frame = client.actual_cases(1)
    named = frame_names(frame)
    assert named == {"OU_A": "OU_A", "OU_B": "Bombali"}


@pytest.mark.integration
def test_the_embedded_services_frames_carry_the_demo_names(tmp_path: Path) -> None:
    from chaplab.service.app import create_app
    from chaplab.toolkit import BackgroundServer

    app = create_app(str(tmp_path / "chaplab.db"), workers=1)
    with BackgroundServer(app) as server, ChapClient(server.url) as client:
        evaluation = next(e for e in client.list_evaluations() if e.split_periods)
        frame = client.evaluation_frame(evaluation.id, quantiles=[0.5])
        actuals = client.actual_cases(evaluation.id)
    names = frame_names(frame)
    assert names and all(name != org_unit for org_unit, name in names.items())
    assert set(actuals["org_unit_name"].astype(str)) == set(names.values())


def frame_names(frame: pd.DataFrame) -> dict[str, str]:
    """Org unit -> its name, as the frame pairs them."""
    pairs = frame[["org_unit", "org_unit_name"]].astype(str).drop_duplicates()
    return dict(zip(pairs["org_unit"], pairs["org_unit_name"], strict=True))


def test_org_units_are_asked_by_id_or_by_name_and_an_unknown_one_is_refused(
    client: Any, fake: FakeService
) -> None:
    fake.datasets[0]["geojson"] = GEOJSON
    by_name = client.evaluation_frame(1, quantiles=[0.5], org_units="Bombali")
    assert set(by_name["org_unit"].astype(str)) == {"OU_B"}
    assert fake.requests[-1].url.params.get_list("orgUnits") == ["OU_B"]
    entries = client.evaluation_entries(1, quantiles=[0.5], org_units=["bo", "OU_B"])
    assert {entry.org_unit for entry in entries} == {"OU_A", "OU_B"}
    actuals = client.actual_cases(1, org_units=["Bo"])
    assert set(actuals["org_unit"].astype(str)) == {"OU_A"}
    sent = len(fake.requests)
    with pytest.raises(ArgumentError, match=r"'Kenema' is not an org unit of evaluation 1"):
        client.evaluation_frame(1, org_units=["Bo", "Kenema"])
    with pytest.raises(ValueError, match="'OU_C'"):
        client.actual_cases(1, org_units="OU_C")
    assert len(fake.requests) == sent  # refused before anything was sent
    assert fake.paths().count("GET /v1/crud/backtests/1/info") == 1


def test_ids_of_the_evaluation_are_sent_without_reading_its_dataset(
    client: Any, fake: FakeService
) -> None:
    client.evaluation_entries(1, quantiles=[0.5], org_units=["OU_A", "adm0"])
    assert fake.requests[-1].url.params.get_list("orgUnits") == ["OU_A", "adm0"]
    assert "GET /v1/crud/datasets/1" not in fake.paths()
