"""Batch evaluations under one backtest specification and the specification routes, through
the client over loopback: chap-core's baselines run as the references, every evaluation is
compared with them as 2.5.1 computes it, and the answers fit 2.5.1's published schemas."""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator
from sqlalchemy import select
from sqlalchemy.orm import Session

from chaplab.client import (
    BacktestSpecificationDetail,
    ChapClient,
    Dataset,
    NotFoundError,
    UnprocessableEntityError,
)
from chaplab.service import create_app
from chaplab.service.comparisons import compare_metrics
from chaplab.service.db import make_engine
from chaplab.service.domain.specifications import resolve_specification
from chaplab.service.tables import BacktestSpecificationRow, DatasetRow
from chaplab.toolkit import BackgroundServer
from chaplab.vocabulary import BacktestPlan, PlanError

from .helpers import Evaluated, geojson_for, small_frame

SCHEMAS = Path(__file__).parent / "data" / "chap_core_2_5_1_specification_schemas.json"
MODELS = ["naive_model", "persistence", "seasonal_naive", "seasonal_median"]
BASELINES = ["persistence", "seasonal_median", "global_median"]


@pytest.fixture(scope="module")
def batch_dataset(session_client: ChapClient) -> Dataset:
    """A dataset of the batch's own: an evaluation run on the shared dataset with the same
    parameters (by another test) would file under the batch's specification."""
    return _own_dataset(session_client, f"leaderboard {uuid.uuid4().hex[:8]}")


@pytest.fixture(scope="module")
def batch(session_client: ChapClient, batch_dataset: Dataset) -> BacktestSpecificationDetail:
    """Two models and two baselines on the batch's dataset, run as one batch."""
    return session_client.run_backtests(
        "leaderboard", MODELS, batch_dataset.id, n_periods=2, n_splits=3, timeout=300
    )


def test_a_batch_answers_its_specification_and_one_job_per_model_in_order(
    client: ChapClient, batch_dataset: Dataset, batch: BacktestSpecificationDetail
) -> None:
    ids = {model.name: model.id for model in client.list_configured_models()}
    again = client.create_backtests(
        "again", [ids["naive_model"], "seasonal_naive"], batch_dataset.id, 2, 3
    )
    assert again.specification_id == batch.id  # the same parameters: the same specification
    assert [job.configured_model_id for job in again.jobs] == [
        ids["naive_model"],
        ids["seasonal_naive"],
    ]
    for job in again.jobs:
        assert client.wait_for_job(job.job_id, timeout=120).result_id is not None
    after = client.get_backtest_specification(batch.id)
    assert len(after.backtests) == len(batch.backtests) + 2
    assert [b.backtest_id for b in after.baselines] == [b.backtest_id for b in batch.baselines]


def test_the_models_are_evaluations_and_the_baselines_references(
    client: ChapClient, batch: BacktestSpecificationDetail
) -> None:
    assert sorted(b.model_id for b in batch.backtests) == ["naive_model", "seasonal_naive"]
    assert {b.name for b in batch.backtests} == {
        "leaderboard/naive_model",
        "leaderboard/seasonal_naive",
    }
    assert [b.configured_model.name for b in batch.baselines] == BASELINES
    assert {b.status for b in batch.baselines} == {"done"}
    by_name = {b.configured_model.name: b for b in batch.baselines}
    # a baseline asked for in the batch is its reference run, named after the batch
    assert client.get_evaluation(by_name["persistence"].backtest_id).name == (
        "leaderboard/persistence"
    )
    assert client.get_evaluation(by_name["global_median"].backtest_id).name == "baseline"
    assert batch.comparison_models is None


def test_each_evaluation_is_compared_with_every_reference_as_chap_core_computes_it(
    batch: BacktestSpecificationDetail,
) -> None:
    references = {b.configured_model.id: b.aggregate_metrics for b in batch.baselines}
    for evaluation in batch.backtests:
        assert [c.configured_model_id for c in evaluation.comparisons] == list(references)
        for comparison in evaluation.comparisons:
            reference = references[comparison.configured_model_id]
            model = evaluation.aggregate_metrics
            crps = (reference["crps"] - model["crps"]) / reference["crps"]
            assert comparison.values["crps"] == pytest.approx(crps)
            coverage = max(0.8 - reference["coverage_10_90"], 0) - max(
                0.8 - model["coverage_10_90"], 0
            )
            assert comparison.values["coverage_10_90"] == pytest.approx(coverage)
            assert set(comparison.values) == set(model)
    metrics = {metric.id: metric for metric in batch.metrics}
    assert metrics["crps"].comparison_op == "skill_ratio"
    assert metrics["coverage_25_75"].target == 0.5


def test_specifications_are_listed_with_2_5_1s_filters(
    client: ChapClient, batch_dataset: Dataset, batch: BacktestSpecificationDetail
) -> None:
    [listed] = client.list_backtest_specifications(
        dataset_id=batch_dataset.id, n_periods=2, n_splits=3
    )
    assert listed.id == batch.id and listed.org_unit_count == 2
    assert listed.backtest_count is not None and listed.backtest_count >= 2
    assert client.list_backtest_specifications(dataset_id=batch_dataset.id, n_periods=5) == []
    assert (
        client.get_backtest_specification(
            batch.id, include_comparison_models=True
        ).comparison_models
        == []
    )


def test_evaluations_are_listed_with_2_5_1s_filters(
    service_url: str,
    client: ChapClient,
    batch_dataset: Dataset,
    batch: BacktestSpecificationDetail,
) -> None:
    def listed(**query: int) -> dict[int, dict[str, Any]]:
        answer = httpx.get(f"{service_url}/v1/crud/backtests", params=query)
        answer.raise_for_status()
        return {evaluation["id"]: evaluation for evaluation in answer.json()}

    batch_ids = {evaluation.id for evaluation in batch.backtests}
    of_batch = listed(specificationId=batch.id)
    assert batch_ids <= set(of_batch)
    assert {evaluation["specificationId"] for evaluation in of_batch.values()} == {batch.id}
    of_dataset = listed(datasetId=batch_dataset.id)
    assert {evaluation["dataset"]["id"] for evaluation in of_dataset.values()} == {batch_dataset.id}
    assert set(of_batch) <= set(of_dataset) < set(listed())
    assert listed(specificationId=batch.id, datasetId=batch_dataset.id) == of_batch
    assert listed(specificationId=batch.id, datasetId=batch_dataset.id + 10_000) == {}
    from_client = client.list_evaluations(specification_id=batch.id)
    assert {evaluation.id for evaluation in from_client} == set(of_batch)
    assert {evaluation.specification_id for evaluation in from_client} == {batch.id}
    assert {e.id for e in client.list_evaluations(dataset_id=batch_dataset.id)} == set(of_dataset)


def test_a_baseline_that_cannot_run_on_the_data_is_filed_not_applicable(
    client: ChapClient, unique: str
) -> None:
    frame = small_frame(n_years=2)
    short = frame[frame.time_period.isin(sorted(set(frame.time_period))[:14])]  # 14 months
    units = sorted(set(short.location))
    dataset = client.create_dataset(f"short {unique}", short, geojson=geojson_for(units))
    detail = client.run_backtests("short", ["naive_model"], dataset.id, 1, 2, timeout=120)
    status = {b.configured_model.name: b for b in detail.baselines}
    assert status["persistence"].status == "not_applicable"
    assert "13" in (status["persistence"].message or "")
    assert status["seasonal_median"].status == "done"
    assert [c.configured_model_id for c in detail.backtests[0].comparisons] == [
        status["seasonal_median"].configured_model.id,
        status["global_median"].configured_model.id,
    ]


def test_bad_batches_are_refused_naming_the_field(client: ChapClient, evaluated: Evaluated) -> None:
    dataset_id = evaluated.dataset.id
    with pytest.raises(NotFoundError, match="no_such_model"):
        client.create_backtests("bad", ["no_such_model"], dataset_id)
    with pytest.raises(NotFoundError, match="dataset"):
        client.create_backtests("bad", ["naive_model"], 999_999)
    with pytest.raises(PlanError, match="^n_retrain is 3, more than the 2 splits"):
        client.create_backtests("bad", ["naive_model"], dataset_id, n_splits=2, n_retrain=3)
    body = {"name": "bad", "modelIds": ["naive_model"], "datasetId": dataset_id}
    answer = httpx.post(
        f"{client.base_url}/v1/analytics/create-backtests", json={**body, "nRetrain": 8}
    )
    assert answer.status_code == 422
    assert answer.json()["errors"][0]["loc"] == ["body", "nRetrain"]
    assert answer.json()["errors"][0]["msg"].startswith("is 8, more than the 7 splits")
    with pytest.raises(UnprocessableEntityError, match="more than once"):
        client.create_backtests("bad", ["naive_model", "naive_model"], dataset_id)
    with pytest.raises(NotFoundError):
        client.get_backtest_specification(999_999)


def test_comparisons_follow_2_5_1s_operators() -> None:
    model = {"crps": 6.0, "coverage_10_90": 0.7, "coverage_25_75": 0.6, "mae": 1.0}
    reference = {"crps": 8.0, "coverage_10_90": 0.5, "coverage_25_75": 0.9, "mae": 0.0}
    assert compare_metrics(model, reference) == {
        "crps": pytest.approx(0.25),  # 25 % better than the reference
        "coverage_10_90": pytest.approx(0.2),  # 0.1 short of 0.8 instead of 0.3
        "coverage_25_75": 0.0,  # both reach the 0.5 target
        "mae": None,  # a reference scoring 0: undefined
    }


def _schema_validator(name: str) -> Draft202012Validator:
    """A validator of 2.5.1's component schema ``name`` (its OpenAPI 3.1 schemas are JSON
    Schema 2020-12)."""
    components = json.loads(SCHEMAS.read_text())["components"]
    return Draft202012Validator({"$ref": f"#/components/schemas/{name}", "components": components})


@pytest.mark.parametrize(
    "path, schema",
    [
        ("/v1/crud/backtest-specifications", "BacktestSpecificationSummary"),
        ("/v1/crud/backtest-specifications/{id}", "BacktestSpecificationRead"),
        (
            "/v1/crud/backtest-specifications/{id}?includeComparisonModels=true",
            "BacktestSpecificationRead",
        ),
    ],
)
def test_the_answers_fit_2_5_1s_schemas(
    service_url: str, batch: BacktestSpecificationDetail, path: str, schema: str
) -> None:
    answer = httpx.get(service_url + path.replace("{id}", str(batch.id))).json()
    validator = _schema_validator(schema)
    for item in answer if isinstance(answer, list) else [answer]:
        errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(item)]
        assert errors == []


def test_the_batch_request_and_answer_fit_2_5_1s_schemas(
    service_url: str, evaluated: Evaluated
) -> None:
    request: dict[str, Any] = {
        "name": "schema",
        "modelIds": ["naive_model"],
        "datasetId": evaluated.dataset.id,
        "nPeriods": 2,
        "nSplits": 3,
    }
    assert list(_schema_validator("MakeBacktestsRequest").iter_errors(request)) == []
    answer = httpx.post(service_url + "/v1/analytics/create-backtests", json=request)
    assert answer.status_code == 200
    assert list(_schema_validator("MakeBacktestsResponse").iter_errors(answer.json())) == []


def test_the_async_client_reads_the_same_leaderboard(
    async_client: Any, async_runner: Any, batch: BacktestSpecificationDetail
) -> None:
    detail = async_runner.run(async_client.get_backtest_specification(batch.id))
    assert detail.baselines == batch.baselines
    assert [b.id for b in detail.backtests][-2:] == [b.id for b in batch.backtests]


def test_deleting_a_dataset_deletes_its_specifications(client: ChapClient, unique: str) -> None:
    frame = small_frame(n_years=2)
    units = sorted(set(frame.location))
    dataset = client.create_dataset(f"doomed {unique}", frame, geojson=geojson_for(units))
    detail = client.run_backtests("doomed", ["naive_model"], dataset.id, 2, 2, timeout=120)
    for evaluation_id in [
        *(evaluation.id for evaluation in detail.backtests),
        *(reference.backtest_id for reference in detail.baselines if reference.backtest_id),
    ]:
        client.delete_evaluation(evaluation_id)
    assert client.get_backtest_specification(detail.id).backtests == []
    client.delete_dataset(dataset.id)
    assert client.list_backtest_specifications(dataset_id=dataset.id) == []
    with pytest.raises(NotFoundError):
        client.get_backtest_specification(detail.id)


def test_a_service_without_demo_models_runs_the_baselines_by_name(
    new_database_url: Callable[[str], str], unique: str
) -> None:
    """A database seeded without models (or older than the baselines) gains their models."""
    app = create_app(new_database_url("bare"), seed_demo=False, workers=1)
    with BackgroundServer(app, "127.0.0.1") as server, ChapClient(server.url) as bare:
        assert bare.list_configured_models() == []
        frame = small_frame(n_years=2)
        units = sorted(set(frame.location))
        dataset = bare.create_dataset(f"bare {unique}", frame, geojson=geojson_for(units))
        detail = bare.run_backtests("bare", ["seasonal_median"], dataset.id, 2, 2, timeout=120)
        assert detail.backtests == []
        assert [(b.configured_model.name, b.status) for b in detail.baselines] == [
            ("persistence", "done"),
            ("seasonal_median", "done"),
            ("global_median", "done"),
        ]


def _own_dataset(client: ChapClient, name: str) -> Dataset:
    frame = small_frame(n_years=2)
    return client.create_dataset(name, frame, geojson=geojson_for(sorted(set(frame.location))))


def test_a_single_evaluation_is_filed_under_its_specification_as_2_5_1_files_it(
    client: ChapClient, unique: str
) -> None:
    dataset = _own_dataset(client, f"single {unique}")
    before = _baseline_jobs(client)
    single = client.run_evaluation(
        "single", "seasonal_naive", dataset.id, n_periods=1, n_splits=3, timeout=120
    )
    [specification] = client.list_backtest_specifications(dataset_id=dataset.id)
    assert (specification.n_periods, specification.n_splits, specification.stride) == (1, 3, 1)
    assert specification.backtest_count == 1
    assert _baseline_jobs(client) == before  # a single evaluation queues nothing more
    # reading the specification queues its baselines, as 2.5.1 does; reading again does not
    read = client.get_backtest_specification(specification.id)
    assert [b.id for b in read.backtests] == [single.id]
    assert {b.status for b in read.baselines} == {"pending"}
    queued = _baseline_jobs(client) - before
    assert len(queued) == 3
    client.get_backtest_specification(specification.id)
    assert _baseline_jobs(client) - before == queued
    for job_id in queued:
        client.wait_for_job(job_id, timeout=120)
    # a batch with the same parameters files under it, and its leaderboard holds both
    detail = client.run_backtests("later", ["naive_model"], dataset.id, 1, 3, timeout=120)
    assert detail.id == specification.id
    assert [b.name for b in detail.backtests] == ["later/naive_model", "single"]
    assert detail.backtests[1].id == single.id
    assert {b.status for b in detail.baselines} == {"done"}
    assert [c.configured_model_id for c in detail.backtests[1].comparisons] == [
        b.configured_model.id for b in detail.baselines
    ]


def _baseline_jobs(client: ChapClient) -> set[str]:
    """The ids of the baselines' jobs."""
    return {job.id for job in client.list_jobs() if job.name == "baseline"}


def test_batches_racing_to_create_one_specification_all_file_under_it(
    service_url: str, client: ChapClient, unique: str
) -> None:
    dataset = _own_dataset(client, f"race {unique}")
    racers = 4
    start = threading.Barrier(racers)
    answers: list[httpx.Response] = []

    def post(index: int) -> None:
        body = {
            "name": f"race {index}",
            "modelIds": ["naive_model"],
            "datasetId": dataset.id,
            "nPeriods": 1,
            "nSplits": 2,
        }
        start.wait()
        answers.append(httpx.post(f"{service_url}/v1/analytics/create-backtests", json=body))

    threads = [threading.Thread(target=post, args=(index,)) for index in range(racers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [answer.status_code for answer in answers] == [200] * racers
    [specification] = client.list_backtest_specifications(dataset_id=dataset.id)
    assert {answer.json()["specificationId"] for answer in answers} == {specification.id}
    for answer in answers:
        [job] = answer.json()["jobs"]
        client.wait_for_job(job["jobId"], timeout=120)
    names = {b.name for b in client.get_backtest_specification(specification.id).backtests}
    assert names == {f"race {index}/naive_model" for index in range(racers)}


def test_the_request_that_loses_the_race_files_under_the_winners_specification(
    service_database: str, evaluated: Evaluated, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The loser looked before the winner committed (its first lookup finds nothing), so its
    insert meets the winner's row on the unique constraint: it takes the winner's row."""
    engine = make_engine(service_database)
    plan = BacktestPlan(n_periods=1, n_splits=5, stride=2)
    try:
        with Session(engine) as winner, Session(engine) as loser:
            lookups = 0
            lookup = loser.scalar

            def looked_too_early(statement: Any, *args: Any, **kwargs: Any) -> Any:
                nonlocal lookups
                lookups += 1
                return None if lookups == 1 else lookup(statement, *args, **kwargs)

            monkeypatch.setattr(loser, "scalar", looked_too_early)
            first = resolve_specification(
                winner, winner.get_one(DatasetRow, evaluated.dataset.id), plan, "climatology"
            )
            second = resolve_specification(
                loser, loser.get_one(DatasetRow, evaluated.dataset.id), plan, "climatology"
            )
            assert lookups == 2 and second.id == first.id
            rows = loser.scalars(
                select(BacktestSpecificationRow).filter_by(
                    dataset_id=evaluated.dataset.id, n_periods=1, n_splits=5, stride=2
                )
            ).all()
            assert [row.id for row in rows] == [first.id]
    finally:
        engine.dispose()
