"""The panel's forecast view on a chap-core server: from a configured model to the forecast's
chart, table, map and outbreak-probability tiles against chap-core's threshold strategies; and a
dataset of points (which chap-core accepts) gets a sentence instead of a map."""

from __future__ import annotations

import html
from typing import Any

import httpx
import pytest

from chaplab import ChapClient
from chaplab.client import Dataset, ModelSpec
from chaplab.vocabulary import SUCCESS
from chaplab.widgets import ChapPanel
from chaplab.widgets.forecast import CELL, NO_MAP

from .peer_data import (
    FIRST_YEAR,
    ORG_UNITS,
    YEARS,
    observation_table,
    observations_payload,
    org_unit_geojson,
)

pytestmark = pytest.mark.anyio

POINTS_DATASET = "chaplab peer tests, points"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def points_dataset(peer_client: ChapClient, peer_http: httpx.Client) -> Dataset:
    """The tests' observations stored with a GeoJSON of points instead of polygons."""
    for dataset in peer_client.list_datasets():
        if dataset.name == POINTS_DATASET:
            return dataset
    geojson = org_unit_geojson()
    for index, feature in enumerate(geojson["features"]):
        feature["geometry"] = {"type": "Point", "coordinates": [index + 0.5, 0.5]}
    body: dict[str, Any] = {
        "name": POINTS_DATASET,
        "type": "evaluation",
        "geojson": geojson,
        "providedData": observations_payload(observation_table()),
        "dataToBeFetched": [],
    }
    response = http_post(peer_http, body)
    job = peer_client.wait_for_job(response["id"])
    assert job.status == SUCCESS, job
    dataset_id = peer_http.get(f"/v1/jobs/{job.id}/database_result").json()["id"]
    return peer_client.get_dataset(dataset_id)


def http_post(http: httpx.Client, body: dict[str, Any]) -> dict[str, Any]:
    response = http.post("/v1/analytics/make-dataset", json=body)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    assert answer["rejected"] == [], answer
    return answer


async def _forecast(panel: ChapPanel, dataset: Dataset, model: ModelSpec) -> None:
    """Press the dataset's and the model's rows, then Forecast forward for three months."""
    panel.datasets.toggle(dataset.id).value = True
    panel.models.toggle(model.id).value = True
    panel.launcher.n_periods.value = 3
    panel.forecasts.button.click()
    await panel.wait_idle()


async def test_a_forecast_reaches_the_map_and_the_outbreak_tiles(
    panel: ChapPanel, peer_dataset: Dataset, naive_model: ModelSpec
) -> None:
    listed = [dataset.id for dataset in panel.dataset_list]
    await _forecast(panel, peer_dataset, naive_model)
    view = panel.forecasts
    (row,) = panel.jobs.rows
    assert (row.kind, row.status, row.error) == ("forecast", SUCCESS, None)
    # chap-core stores the rows the forecast sent as a prediction dataset; the list leaves it out
    assert view.prediction_id is not None
    stored = (await panel.client.get_prediction(view.prediction_id)).dataset_id
    on_server = {dataset.id: dataset for dataset in await panel.client.list_datasets()}
    assert on_server[stored].type == "prediction" and stored not in listed
    await panel.refresh()
    assert [dataset.id for dataset in panel.dataset_list] == listed
    assert view.message.value == ""
    months = [f"{FIRST_YEAR + YEARS}-{month:02d}" for month in (1, 2, 3)]
    assert [str(period) for period in sorted(view.frame["period"].unique())] == months
    assert sorted(view.shown_panels) == sorted(ORG_UNITS.values())
    for name in ORG_UNITS.values():
        assert f"<td{CELL}>{name}</td>" in view.table.value
    assert view.map_message.value == ""
    assert bytes(view.map_image.value).startswith(b"\x89PNG")
    assert {"seasonal", "percentile"} <= {value for _, value in view.strategy.options}
    assert view.tiles_message.value == ""
    assert bytes(view.tiles_image.value).startswith(b"\x89PNG")
    outbreaks = view.outbreaks
    assert len(outbreaks) == len(ORG_UNITS) * 3
    assert outbreaks["probability"].between(0, 1).all()
    view.strategy.value = "percentile"
    await panel.wait_idle()
    assert view.tiles_message.value == ""
    assert len(view.outbreaks) == len(ORG_UNITS) * 3


async def test_a_dataset_of_points_gets_a_sentence_instead_of_a_map(
    panel: ChapPanel, points_dataset: Dataset, naive_model: ModelSpec
) -> None:
    await panel.refresh()  # the points dataset may be newer than the panel
    await _forecast(panel, points_dataset, naive_model)
    view = panel.forecasts
    assert view.message.value == ""
    assert html.unescape(view.map_message.value).endswith(f"{NO_MAP}</div>")
    assert view.map_image.value == b""
    assert bytes(view.tiles_image.value).startswith(b"\x89PNG")  # the tiles need no polygons
