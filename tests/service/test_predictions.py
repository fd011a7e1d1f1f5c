"""Predictions as stored rows, all entries, and the older submit naming the model."""

from __future__ import annotations

import httpx
import pytest

from chaplab.client import ChapClient, ConflictError, NotFoundError, UnprocessableEntityError

from .helpers import Evaluated, geojson_for, small_frame

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def predicted(session_client: ChapClient) -> tuple[int, str]:
    """A finished prediction made with the older submit, and its job id."""
    frame = small_frame(n_years=2)
    job = session_client.make_prediction_for_model(
        "shared: prediction",
        "naive_model",
        frame,
        n_periods=3,
        geojson=geojson_for(sorted(set(frame.location))),
    )
    done = session_client.wait_for_job(job.id, timeout=120)
    return done.result_id, job.id


def test_the_older_submit_makes_a_prediction(
    client: ChapClient, predicted: tuple[int, str]
) -> None:
    prediction = client.get_prediction(predicted[0])
    assert prediction.model_id == "naive_model" and prediction.periods == [
        "201701",
        "201702",
        "201703",
    ]
    assert prediction.id in [p.id for p in client.list_predictions()]
    entries = client.prediction_entries(prediction.id, quantiles=[0.5])
    assert len(entries) == 2 * 3


def test_the_older_submit_checks_its_input(client: ChapClient) -> None:
    frame = small_frame(n_years=2)
    with pytest.raises(NotFoundError, match="model: "):
        client.make_prediction_for_model("x", "no_such_model", frame)
    with pytest.raises(UnprocessableEntityError, match="rainfall"):
        client.make_prediction_for_model("x", "regression_model", frame.drop(columns=["rainfall"]))
    before = len(client.list_configured_models_with_data_source())
    with pytest.raises(UnprocessableEntityError, match="geojson"):
        client.make_prediction_for_model(
            "x", "naive_model", frame, geojson={"type": "FeatureCollection", "features": []}
        )
    assert len(client.list_configured_models_with_data_source()) == before, (
        "a refused submit stores nothing"
    )


def test_all_prediction_entries_name_their_prediction(
    client: ChapClient, predicted: tuple[int, str]
) -> None:
    prediction_id = predicted[0]
    everything = client.list_prediction_entries(quantiles=[0.5])
    assert {e.prediction_id for e in everything} >= {prediction_id}
    mine = client.list_prediction_entries(prediction_id, quantiles=[0.1, 0.9])
    assert {e.prediction_id for e in mine} == {prediction_id} and len(mine) == 2 * 3 * 2
    unit = client.get_prediction(prediction_id).org_units[0]
    one_unit = client.list_prediction_entries(prediction_id, quantiles=[0.5], org_units=[unit])
    assert {e.org_unit for e in one_unit} == {unit} and len(one_unit) == 3
    with pytest.raises(NotFoundError, match="prediction_id"):
        client.list_prediction_entries(987654)
    with pytest.raises(UnprocessableEntityError, match="org_units"):
        client.list_prediction_entries(org_units=["nowhere"])


def test_a_prediction_row_is_created_and_deleted(
    client: ChapClient, evaluated: Evaluated, unique: str, service_url: str
) -> None:
    bundle = client.create_configured_model_with_data_source_from_evaluation(
        evaluated.evaluation.id
    )
    row = client.create_prediction_row(f"row {unique}", evaluated.dataset.id, bundle.id)
    assert row.periods == [] and row.n_periods == 0 and row.dataset_id == evaluated.dataset.id
    assert client.prediction_entries(row.id) == []
    with pytest.raises(ConflictError, match=rf"prediction.* {row.id} \('row {unique}'\)"):
        client.delete_dataset(evaluated.dataset.id)  # refused by the client, before sending
    refused = httpx.delete(f"{service_url}/v1/crud/datasets/{evaluated.dataset.id}")
    assert refused.status_code == 409  # and by the service, for any client
    # the message names at most ten users; the problem lists every one
    assert row.id in refused.json()["predictionIds"]
    client.delete_prediction(row.id)
    assert row.id not in [p.id for p in client.list_predictions()]
    for call in (client.get_prediction, client.delete_prediction):
        with pytest.raises(NotFoundError):
            call(row.id)
    with pytest.raises(NotFoundError, match="configured_model_with_data_source_id"):
        client.create_prediction_row("x", evaluated.dataset.id, 987654)
    with pytest.raises(NotFoundError, match="dataset_id"):
        client.create_prediction_row("x", 987654, bundle.id)


def test_a_prediction_path_id_must_be_an_integer(service_url: str) -> None:
    answer = httpx.get(f"{service_url}/v1/crud/predictions/abc")
    assert answer.status_code == 422 and answer.headers["content-type"].startswith(
        "application/problem+json"
    )
