"""The client against the embedded service over loopback: the wire contract end to end."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from chaplab.client import (
    AsyncChapClient,
    AuthenticationError,
    ChapClient,
    ConflictError,
    NameResolutionError,
    NotFoundError,
)

pytestmark = pytest.mark.integration

KEY = "sk_test_client0123456789abcdef"


@pytest.fixture(scope="module")
def service_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from chaplab.service.app import create_app
    from chaplab.toolkit import BackgroundServer

    database = Path(tmp_path_factory.mktemp("client_service")) / "chaplab.db"
    with BackgroundServer(create_app(str(database), api_keys=[KEY], workers=1)) as server:
        yield server.url


def test_evaluation_round_trip(service_url: str) -> None:
    with ChapClient(service_url, api_key=KEY) as client:
        template = client.list_model_templates()[0]
        model = client.create_configured_model("client_it", template.id)
        assert model.name == f"{template.name}:client_it"
        dataset = client.list_datasets()[0]
        evaluation = client.run_evaluation("client_it", model, dataset.id, n_splits=2, timeout=120)
        assert evaluation.split_periods == sorted(evaluation.split_periods)
        assert "crps" in evaluation.aggregate_metrics
        frame = client.evaluation_frame(
            evaluation.id, quantiles=[0.5], split_period=evaluation.split_periods[0]
        )
        assert set(frame["quantile"]) == {0.5}
        assert len(client.actual_cases(evaluation.id)) > 0
        with pytest.raises(NotFoundError, match="'no-such-job'"):
            client.wait_for_job("no-such-job")


def test_async_client_and_auth(service_url: str) -> None:
    async def run() -> int:
        async with AsyncChapClient(service_url, api_key=KEY) as client:
            return len(await client.list_evaluations())

    assert asyncio.run(run()) >= 1
    with ChapClient(service_url) as anonymous, pytest.raises(AuthenticationError):
        anonymous.list_datasets()


def test_a_template_is_named_and_a_misspelt_name_gets_did_you_mean(service_url: str) -> None:
    with ChapClient(service_url, api_key=KEY) as client:
        model = client.create_configured_model("by_name", "seasonal_naive")
        assert model.name == "seasonal_naive:by_name"
        with pytest.raises(ValueError) as refused:
            client.create_configured_model("by_name", "regresion_model")
        assert str(refused.value) == (
            "model_template_id: no model template named 'regresion_model'; "
            "did you mean 'regression_model'?"
        )
        with pytest.raises(ValueError, match="the templates are .*naive_model"):
            client.create_configured_model("by_name", "xyz")
        before = {item.name for item in client.list_configured_models()}
        assert "regression_model:by_name" not in before


def test_a_dataset_is_named_where_its_id_is_asked(service_url: str) -> None:
    frame = pd.DataFrame(
        {
            "time_period": ["2024-01", "2024-02"],
            "location": ["OU_X", "OU_X"],
            "disease_cases": [3.0, 4.0],
        }
    )
    with ChapClient(service_url, api_key=KEY) as client:
        demo = next(dataset for dataset in client.list_datasets() if dataset.name == "demo")
        assert client.get_dataset("demo").id == demo.id
        assert client.list_backtest_specifications(dataset_id="demo") == (
            client.list_backtest_specifications(dataset_id=demo.id)
        )
        with pytest.raises(NameResolutionError, match=r"named 'dmeo'; did you mean 'demo'"):
            client.dataset_frame("dmeo")
        twins = [client.create_dataset("twin", frame) for _ in range(2)]
        try:
            with pytest.raises(ValueError) as refused:
                client.delete_dataset("twin")
            first, second = twins
            assert str(refused.value).startswith(
                f"dataset_id: 2 datasets are named 'twin' (id {first.id}, created "
                f"{first.created:%Y-%m-%d %H:%M}; id {second.id}, created "
            )
            assert {d.id for d in client.list_datasets()} >= {first.id, second.id}
        finally:
            for twin in twins:
                client.delete_dataset(twin.id)

    async def by_name() -> int:
        async with AsyncChapClient(service_url, api_key=KEY) as client:
            return (await client.get_dataset("demo")).id

    assert asyncio.run(by_name()) == demo.id


def test_a_dataset_frame_goes_back_to_a_prediction_keeping_place_names(service_url: str) -> None:
    with ChapClient(service_url, api_key=KEY) as client:
        dataset = next(d for d in client.list_datasets() if d.org_units)
        frame = client.dataset_frame(dataset.id)
        features = [name for name in frame.columns if name not in ("time_period", "location")]
        assert features and {str(frame[name].dtype) for name in features} == {"float64"}
        geojson = client.get_dataset(dataset.id).geojson
        prediction = client.run_prediction("round trip", "naive_model", frame, 2, geojson)
        forecast = client.prediction_frame(prediction.id)
        assert set(forecast["org_unit"]) == set(dataset.org_units)
        assert forecast["org_unit_name"].notna().all()


def test_a_cancel_of_a_queued_job_says_it_is_cancelled(service_url: str) -> None:
    with ChapClient(service_url, api_key=KEY) as client:
        dataset = client.list_datasets()[0]
        ahead = client.create_evaluation("ahead", "naive_model", dataset.id, n_splits=4)
        queued = client.create_evaluation("queued", "naive_model", dataset.id, n_splits=4)
        cancellation = client.cancel_job(queued.id)
        assert cancellation.cancelled and not cancellation.may_still_run
        assert (cancellation.job_id, cancellation.status) == (queued.id, "REVOKED")
        assert client.job_status(queued.id) == "REVOKED"
        client.wait_for_job(ahead.id, timeout=120)


def test_a_dataset_in_use_is_deleted_only_with_force(service_url: str) -> None:
    """Refused naming the evaluations and forecasts made from it; ``force=True`` deletes them
    first and says so (on chap-core 2.5.1 the same: tests/peer/test_guard_rails.py)."""
    with ChapClient(service_url, api_key=KEY) as client:
        source = next(d for d in client.list_datasets() if d.org_units)
        forecast = client.run_prediction(
            "made from it", "naive_model", client.dataset_frame(source.id), 2
        )
        dataset_id = forecast.dataset_id
        evaluation = client.run_evaluation(
            "run on it", "naive_model", dataset_id, n_splits=1, n_periods=2, timeout=120
        )
        with pytest.raises(ConflictError) as refused:
            client.delete_dataset(dataset_id)
        assert str(refused.value) == (
            f"dataset {dataset_id} is used by evaluation {evaluation.id} ('run on it') and "
            f"prediction {forecast.id} ('made from it'); delete those first, or "
            f"delete_dataset({dataset_id}, force=True) to delete them with it"
        )
        assert dataset_id in {d.id for d in client.list_datasets()}
        deletion = client.delete_dataset(dataset_id, force=True)
        assert (deletion.evaluation_ids, deletion.prediction_ids) == (
            [evaluation.id],
            [forecast.id],
        )
        assert dataset_id not in {d.id for d in client.list_datasets()}
        with pytest.raises(NotFoundError):
            client.get_evaluation(evaluation.id)
        with pytest.raises(NotFoundError):
            client.get_prediction(forecast.id)
