"""Datasets: listing, reading, creating from a frame, CSV uploads as multipart forms."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pandas as pd
import pytest

from chaplab.client import (
    Dataset,
)

from .fake_service import FakeService


def test_datasets(client: Any, fake: FakeService) -> None:
    [dataset] = client.list_datasets()
    assert isinstance(dataset, Dataset)
    assert (dataset.first_period, dataset.last_period, dataset.period_type) == (
        "202101", "202312", "month")
    assert dataset.org_units == ["OU_A", "OU_B"]
    assert dataset.data_sources[0].data_element_id == "DE_RAIN"
    assert dataset.model_extra == {"sourceSystem": "dhis2"}
    assert dataset.observations is None
    full = client.get_dataset(1)
    assert full.observations[0].feature_name == "disease_cases"
    assert full.observations[0].org_unit == "OU_A"
    assert fake.paths()[-1] == "GET /v1/crud/datasets/1"


def test_a_csv_upload_is_a_multipart_form(call: Callable[..., Any]) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"id": 7, "name": "up", "orgUnits": ["A"]})

    dataset = call(
        handler,
        "upload_dataset_csv",
        "up",
        "time_period,location,x\n202101,A,1\n",
        geojson={"type": "FeatureCollection", "features": []},
        type="prediction",
    )
    assert dataset.id == 7 and dataset.org_units == ["A"]
    [request] = [r for r in seen if r.method == "POST"]
    assert request.method == "POST" and request.url.path == "/v1/crud/datasets/csvFile"
    assert request.headers["X-API-Key"] == "sk_test_0123456789abcdef"
    assert request.headers["content-type"].startswith("multipart/form-data; boundary=")
    body = request.read()
    for part in (
        b'name="csvFile"; filename="data.csv"',
        b"202101,A,1",
        b'name="geojsonFile"',
        b'"FeatureCollection"',
        b'name="name"\r\n\r\nup',
        b'name="type"\r\n\r\nprediction',
    ):
        assert part in body


def test_a_one_line_csv_string_is_taken_for_a_file_name_and_refused(
    call: Callable[..., Any],
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise AssertionError("nothing is sent")

    with pytest.raises(ValueError, match="pathlib.Path"):
        call(handler, "upload_dataset_csv", "up", "data.csv")


def test_create_dataset(client: Any, fake: FakeService) -> None:
    frame = pd.DataFrame({"time_period": ["2021-01", "2021-02"], "location": ["OU_A", "OU_A"],
                          "rainfall": [1.0, 2.0]})
    geojson = {"type": "FeatureCollection", "features": []}
    dataset = client.create_dataset("mine", frame, geojson=geojson)
    assert (dataset.id, dataset.name, dataset.type) == (2, "mine", "evaluation")
    body = json.loads(fake.requests[-1].content)
    assert fake.paths()[-1] == "POST /v1/crud/datasets"
    assert body == {"name": "mine", "type": "evaluation", "geojson": geojson, "dataSources": [],
                    "observations": [
                        {"featureName": "rainfall", "orgUnit": "OU_A", "period": "202101",
                         "value": 1.0},
                        {"featureName": "rainfall", "orgUnit": "OU_A", "period": "202102",
                         "value": 2.0}]}
    with pytest.raises(ValueError, match="type must be"):
        client.create_dataset("mine", frame, type="training")


def test_polygons_sent_as_json_text_read_as_a_dict(call: Callable[..., Any]) -> None:
    geojson = {"type": "FeatureCollection", "features": []}

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"id": 1, "name": "d", "geojson": json.dumps(geojson)})

    assert call(handler, "get_dataset", 1).geojson == geojson
