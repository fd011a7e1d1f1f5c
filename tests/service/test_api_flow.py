"""Endpoints of every resource through ChapClient and AsyncChapClient against the running
service: whole flows from a dataset to a prediction, and both drivers reading the same service."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from chaplab.client import AsyncChapClient, ChapClient, NotFoundError

from .helpers import Evaluated, geojson_for, observations, small_frame

pytestmark = pytest.mark.integration


def test_system_info_and_health_answer(client: ChapClient) -> None:
    info = client.system_info()
    assert info.chap_core_version and info.python_version and info.server_time_zone_id
    assert client.health().status == "success"


def test_a_new_service_shows_demo_data_models_and_a_finished_evaluation(client: ChapClient) -> None:
    datasets = client.list_datasets()
    assert {"evaluation", "prediction"} <= {dataset.type for dataset in datasets}
    templates = client.list_model_templates()
    assert {t.name for t in templates} >= {"naive_model", "seasonal_naive", "regression_model"}
    assert all(isinstance(t.user_options, dict) for t in templates)
    models = client.list_models()
    assert [m.model_dump() for m in models] == [
        m.model_dump() for m in client.list_configured_models()
    ]
    template_ids = {t.id for t in templates}
    assert not {m.id for m in models} & template_ids, (
        "a configured-model id must not be a template id"
    )
    assert {m.model_template_id for m in models} <= template_ids
    demo = [e for e in client.list_evaluations() if e.model_id == "naive_model"]
    assert demo and {
        "crps",
        "mae",
        "rmse",
        "coverage_10_90",
        "coverage_25_75",
        "winkler_score_10_90",
        "winkler_score_25_75",
    } <= set(demo[0].aggregate_metrics)


def test_dataset_round_trip_keeps_every_observation(client: ChapClient, unique: str) -> None:
    frame = small_frame(n_years=1)
    created = client.create_dataset(
        f"round-trip {unique}", frame, geojson=geojson_for(sorted(set(frame.location)))
    )
    stored = client.get_dataset(created.id)
    assert stored.first_period == "201501" and stored.last_period == "201512"
    assert sorted(stored.org_units) == sorted(set(frame.location))
    expected = {
        (o["featureName"], o["orgUnit"], o["period"]): o["value"] for o in observations(frame)
    }
    got = {(o.feature_name, o.org_unit, o.period): o.value for o in stored.observations or []}
    assert got == pytest.approx(expected)
    assert created.id in [dataset.id for dataset in client.list_datasets()]


def test_full_flow_from_configured_model_to_prediction_entries(
    client: ChapClient, unique: str
) -> None:
    template = next(t for t in client.list_model_templates() if t.name == "seasonal_naive")
    model = client.create_configured_model(f"flow{unique}", template.id, {})
    assert model.name == f"seasonal_naive:flow{unique}" and model.model_template_id == template.id
    dataset = client.create_dataset(f"flow {unique}", small_frame(n_years=3))
    job = client.create_evaluation(
        f"flow {unique}", model.name, dataset.id, n_periods=2, n_splits=3
    )
    assert job.id not in [str(e.id) for e in client.list_evaluations()]
    finished = client.wait_for_job(job.id, timeout=120)
    assert finished.status == "SUCCESS" and finished.start_time and finished.end_time
    evaluation = client.get_evaluation(int(finished.result))
    assert evaluation.id in [e.id for e in client.list_evaluations()]
    assert evaluation.model_id == model.name and len(evaluation.split_periods) == 3
    assert (
        "json" not in client.job_status(job.id).lower() and client.job_status(job.id) == "SUCCESS"
    )

    entries = client.evaluation_entries(evaluation.id, quantiles=[0.1, 0.5, 0.9])
    assert len(entries) == 3 * 2 * 2 * 3  # splits x org units x periods x quantiles
    by_cell: dict[tuple, list[float]] = {}
    for entry in entries:
        by_cell.setdefault((entry.split_period, entry.org_unit, entry.period), []).append(
            entry.value
        )
    assert all(values == sorted(values) for values in by_cell.values()), "quantiles must not cross"
    one_split = client.evaluation_entries(
        evaluation.id, [0.5], split_period=evaluation.split_periods[0]
    )
    assert {e.split_period for e in one_split} == {evaluation.split_periods[0]} and len(
        one_split
    ) == 4
    total = client.evaluation_entries(evaluation.id, [0.5], org_units=["adm0"])
    assert {e.org_unit for e in total} == {"adm0"} and len(total) == 3 * 2

    actual = client.actual_cases(evaluation.id)
    assert len(actual) == 2 * 36 and actual["value"].notna().all()

    bundle = client.create_configured_model_with_data_source_from_evaluation(evaluation.id)
    assert bundle.configured_model.name == model.name and sorted(bundle.org_units) == sorted(
        evaluation.org_units
    )
    assert bundle.id in [b.id for b in client.list_configured_models_with_data_source()]
    assert client.get_configured_model_with_data_source(bundle.id).name == bundle.name

    frame = small_frame(n_years=2)
    prediction_job = client.make_prediction(
        {
            "name": f"forecast {unique}",
            "geojson": geojson_for(sorted(set(frame.location))),
            "providedData": observations(frame),
            "dataSources": [],
            "configuredModelWithDataSourceId": bundle.id,
            "nPeriods": 3,
        }
    )
    done = client.wait_for_job(prediction_job.id, timeout=120)
    predicted = client.prediction_entries(int(done.result), quantiles=[0.25, 0.75])
    assert {e.period for e in predicted} == {"201701", "201702", "201703"}
    assert len(predicted) == 2 * 3 * 2
    lows = {(e.org_unit, e.period): e.value for e in predicted if e.quantile == 0.25}
    highs = {(e.org_unit, e.period): e.value for e in predicted if e.quantile == 0.75}
    assert all(lows[key] <= highs[key] for key in lows)


def test_evaluation_entries_match_quantiles_of_the_stored_samples(client: ChapClient) -> None:
    demo = next(e for e in client.list_evaluations() if e.model_id == "naive_model")
    levels = [0.05, 0.5, 0.95]
    entries = client.evaluation_entries(
        demo.id, levels, split_period=demo.split_periods[-1], org_units=[demo.org_units[0]]
    )
    assert [e.quantile for e in entries[:3]] == levels
    values = np.array([e.value for e in entries]).reshape(-1, 3)
    assert np.all(np.diff(values, axis=1) >= 0)


def test_deleting_an_evaluation_removes_it(client: ChapClient, unique: str) -> None:
    dataset = client.create_dataset(f"delete {unique}", small_frame(n_years=2))
    evaluation = client.run_evaluation(
        f"delete {unique}", "naive_model", dataset.id, 1, 1, timeout=120
    )
    client.delete_evaluation(evaluation.id)
    assert evaluation.id not in [e.id for e in client.list_evaluations()]


def test_async_client_reads_the_same_service(
    async_client: AsyncChapClient, async_runner: asyncio.Runner, client: ChapClient
) -> None:
    async def read() -> tuple:
        datasets = await async_client.list_datasets()
        demo = next(e for e in await async_client.list_evaluations() if e.model_id == "naive_model")
        entries = await async_client.evaluation_entries(demo.id, [0.5])
        return datasets, entries

    datasets, entries = async_runner.run(read())
    assert [d.id for d in datasets][:2] == [d.id for d in client.list_datasets()][:2]
    assert entries and all(e.quantile == 0.5 for e in entries)


def test_the_async_client_reaches_files_metrics_and_plots(
    async_client: AsyncChapClient, async_runner: asyncio.Runner, evaluated: Evaluated, unique: str
) -> None:
    async def scenario() -> None:
        dataset = await async_client.upload_dataset_csv(f"async {unique}", small_frame(n_years=1))
        frame, metrics, image = await asyncio.gather(
            async_client.dataset_frame(dataset.id),
            async_client.evaluation_metrics(evaluated.evaluation.id),
            async_client.evaluation_plot("last_split", evaluated.evaluation.id),
        )
        assert len(frame) == 24 and len(metrics.by_horizon) == 2
        assert image.data.startswith(b"\x89PNG")
        await async_client.delete_dataset(dataset.id)
        with pytest.raises(NotFoundError):
            await async_client.dataset_csv(dataset.id)

    async_runner.run(scenario())
