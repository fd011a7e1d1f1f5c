"""``GET /v1/crud/datasets/{id}`` written by orjson straight from the stored arrays keeps the
shape of ``DatasetWithObservations``: the same fields in the same order, one observation per
stored value (a missing value has none), and the polygons as sent."""

from __future__ import annotations

import json

import httpx
import numpy as np
import pytest

from chaplab.client import ChapClient
from chaplab.service.wire.datasets import DatasetWithObservations

from .helpers import geojson_for, observations, small_frame

pytestmark = pytest.mark.integration


def test_a_dataset_read_has_the_documented_shape_and_every_stored_value(
    client: ChapClient, unique: str
) -> None:
    frame = small_frame(n_years=1)
    frame.loc[3, "rainfall"] = np.nan
    geojson = geojson_for(sorted(set(frame.location)))
    dataset = client.create_dataset(f"shape {unique}", frame, geojson=geojson)
    response = httpx.get(f"{client.base_url}/v1/crud/datasets/{dataset.id}")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    model = DatasetWithObservations.model_validate(body)
    assert body == model.model_dump(mode="json", by_alias=True)
    assert list(body) == list(model.model_dump(by_alias=True))
    sent = [row for row in observations(frame) if row["value"] is not None]
    key = lambda row: (row["featureName"], row["orgUnit"], row["period"])  # noqa: E731
    assert sorted(body["observations"], key=key) == sorted(sent, key=key)
    n_features = frame.shape[1] - 2
    assert len(body["observations"]) == len(sent) == frame.shape[0] * n_features - 1
    assert json.loads(body["geojson"]) == geojson  # JSON text, as chap-core 2.5.1 answers it
    assert body["createdManually"] is True
    assert body["orgUnits"] == dataset.org_units
    assert body["firstPeriod"] == dataset.first_period and body["id"] == dataset.id


def test_a_dataset_without_polygons_reads_null_geojson_and_an_unknown_one_404(
    client: ChapClient, unique: str
) -> None:
    dataset = client.create_dataset(f"no polygons {unique}", small_frame(n_years=1))
    body = httpx.get(f"{client.base_url}/v1/crud/datasets/{dataset.id}").json()
    assert body["geojson"] is None and body["observations"]
    missing = httpx.get(f"{client.base_url}/v1/crud/datasets/987654321")
    assert missing.status_code == 404
