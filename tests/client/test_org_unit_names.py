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
    # the evaluation is read at each call: the id may name another one by then
    assert fake.paths().count("GET /v1/crud/backtests/1/info") == 3


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
    # refused before the entries or cases were asked for
    assert fake.paths()[sent:] == ["GET /v1/crud/backtests/1/info"] * 2


def test_ids_of_the_evaluation_are_sent_without_reading_its_dataset(
    client: Any, fake: FakeService
) -> None:
    client.evaluation_entries(1, quantiles=[0.5], org_units=["OU_A", "adm0"])
    assert fake.requests[-1].url.params.get_list("orgUnits") == ["OU_A", "adm0"]
    assert "GET /v1/crud/datasets/1" not in fake.paths()


def places(*names: str) -> dict[str, Any]:
    """A GeoJSON naming OU_A and OU_B (the fake's org units) ``names``."""
    return {
        "type": "FeatureCollection",
        "features": [
            {"type": "Feature", "id": unit, "properties": {"name": name}, "geometry": None}
            for unit, name in zip(("OU_A", "OU_B"), names, strict=True)
        ],
    }


def test_a_dataset_and_an_evaluation_stored_again_under_their_ids_are_read_afresh(
    client: Any, fake: FakeService
) -> None:
    """The fake, as chap-core 2.5.1, gives a deleted last row's id to the next row stored: in
    the same client, the new evaluation's frames are named by the new dataset's places."""
    table = pd.DataFrame(
        {"time_period": ["2021-01"] * 2, "location": ["OU_A", "OU_B"], "disease_cases": [1.0, 2.0]}
    )
    first = client.create_dataset("first", table, places("Alpha", "Beta"))
    old = client.run_evaluation("old", "naive_model:weekly", first.id)
    assert frame_names(client.evaluation_frame(old.id)) == {"OU_A": "Alpha", "OU_B": "Beta"}
    client.delete_evaluation(old.id)
    client.delete_dataset(first.id)
    second = client.create_dataset("second", table, places("Nord", "Sud"))
    new = client.run_evaluation("new", "naive_model:weekly", second.id)
    assert (second.id, new.id) == (first.id, old.id)  # the same ids, given again
    assert new.record_key != old.record_key
    assert frame_names(client.evaluation_frame(new.id)) == {"OU_A": "Nord", "OU_B": "Sud"}
    assert frame_names(client.actual_cases(new.id)) == {"OU_A": "Nord", "OU_B": "Sud"}
    assert "org_unit_name" not in client.evaluation_frame(1).columns  # dataset 1 has none


def test_an_evaluation_whose_dataset_was_stored_after_it_gets_no_names(
    client: Any, fake: FakeService
) -> None:
    """An evaluation left behind by its deleted dataset, whose id a later dataset took, is not
    named by the later dataset's places (chap-core 2.5.1 nests the later dataset in it)."""
    fake.datasets[0] |= {"created": "2026-01-02T09:00:00", "geojson": places("Nord", "Sud")}
    fake.evaluations[1]["dataset"] = fake.datasets[0]
    assert "org_unit_name" not in client.evaluation_frame(1).columns
