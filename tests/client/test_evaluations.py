"""Evaluations: create, run, read, delete, entries on the wire, frames, actual cases."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pandas as pd
import pytest

from chaplab.client import (
    ArgumentError,
    ChapDecodeError,
    Evaluation,
    EvaluationEntry,
    Job,
    NotFoundError,
)

from .chap_core_mock import ChapCoreMock, backtest_read, without
from .fake_service import FakeService, last_body


def test_evaluations(client: Any, fake: FakeService) -> None:
    [evaluation] = client.list_evaluations()
    assert isinstance(evaluation, Evaluation)
    assert evaluation.split_periods == ["202307", "202308", "202309"]
    assert evaluation.aggregate_metrics["crps"] == pytest.approx(2.13)
    assert (evaluation.dataset_id, evaluation.model_id) == (1, "naive_model:weekly")
    assert (evaluation.n_periods, evaluation.n_splits, evaluation.stride) == (3, 3, 1)
    assert evaluation.dataset.name == "demo"
    assert client.get_evaluation(1) == evaluation
    assert client.delete_evaluation(1) is None
    assert fake.paths()[-2:] == ["GET /v1/crud/backtests/1/info", "DELETE /v1/crud/backtests/1"]
    assert client.list_evaluations() == []


def test_split_periods_sort_chronologically_across_forms() -> None:
    evaluation = Evaluation.model_validate(
        {"id": 1, "splitPeriods": ["2021W10", "2021W5", "2020W52", "2021-W07"]}
    )
    assert evaluation.split_periods == ["2020W52", "2021W5", "2021-W07", "2021W10"]


def test_a_split_period_that_is_no_period_sorts_last_instead_of_failing() -> None:
    evaluation = Evaluation.model_validate(
        {"id": 1, "splitPeriods": ["latest", "2021-02", "202101", "2021w03"]}
    )
    assert evaluation.split_periods == ["202101", "2021-02", "2021w03", "latest"]


def test_create_evaluation_sends_the_model_name(client: Any, fake: FakeService) -> None:
    [model] = client.list_models()
    job = client.create_evaluation("bt", model, 1, n_periods=3, n_splits=2, stride=1)
    assert isinstance(job, Job)
    assert (job.status, job.name) == ("PENDING", "bt")
    assert job.id in fake.jobs
    assert last_body(fake) == {
        "name": "bt",
        "modelId": "naive_model:weekly",
        "datasetId": 1,
        "nPeriods": 3,
        "nSplits": 2,
        "stride": 1,
    }
    client.create_evaluation("bt2", "naive_model", 1)
    assert last_body(fake) == {"name": "bt2", "modelId": "naive_model", "datasetId": 1}


def test_create_evaluation_refuses_an_integer_model(client: Any, fake: FakeService) -> None:
    with pytest.raises(TypeError, match="NAME") as caught:
        client.create_evaluation("bt", 5, 1)
    assert "not a valid template id" in str(caught.value)
    assert fake.requests == []


def test_evaluation_entries_query_on_the_wire(client: Any, fake: FakeService) -> None:
    entries = client.evaluation_entries(
        1, quantiles=(0.1, 0.9), split_period="2023-07", org_units=["OU_A", "OU_B"]
    )
    assert all(isinstance(entry, EvaluationEntry) for entry in entries)
    assert {(e.org_unit, e.quantile, e.split_period) for e in entries} == {
        ("OU_A", 0.1, "202307"),
        ("OU_A", 0.9, "202307"),
        ("OU_B", 0.1, "202307"),
        ("OU_B", 0.9, "202307"),
    }
    params = fake.requests[-1].url.params
    assert fake.requests[-1].url.path == "/v1/analytics/evaluation-entry"
    assert params.multi_items() == [
        ("backtestId", "1"),
        ("quantiles", "0.1"),
        ("quantiles", "0.9"),
        ("splitPeriod", "202307"),
        ("orgUnits", "OU_A"),
        ("orgUnits", "OU_B"),
    ]


def test_a_split_or_org_unit_the_evaluation_lacks_is_refused_before_sending(
    client: Any, fake: FakeService
) -> None:
    with pytest.raises(ArgumentError, match=r"'2023-06' is not a split of evaluation 1; its"):
        client.evaluation_frame(1, split_period="2023-06")  # the last observed month
    with pytest.raises(ArgumentError, match="'July' is not a period"):
        client.evaluation_entries(1, split_period="July")
    with pytest.raises(ArgumentError, match="'OU_C' is not an org unit of evaluation 1"):
        client.evaluation_entries(1, org_units="OU_C")
    assert "GET /v1/analytics/evaluation-entry" not in fake.paths()  # refused before sending
    assert fake.paths().count("GET /v1/crud/backtests/1/info") == 3  # once per call


def test_evaluation_entries_default_quantiles(client: Any, fake: FakeService) -> None:
    client.evaluation_entries(1, org_units="OU_A")
    params = fake.requests[-1].url.params
    assert params.get_list("quantiles") == ["0.1", "0.25", "0.5", "0.75", "0.9"]
    assert params.get_list("orgUnits") == ["OU_A"]
    assert "splitPeriod" not in params


def test_several_evaluations_are_deleted_by_a_comma_list(call: Callable[..., Any]) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        assert request.method == "DELETE" and request.url.params["ids"] == "3,5"
        return httpx.Response(200, json={"deletedIds": [3, 5]})

    assert call(handler, "delete_evaluations", [3, 5]) == [3, 5]


def test_evaluation_frame(client: Any, fake: FakeService) -> None:
    frame = client.evaluation_frame(1, quantiles=[0.1, 0.9], org_units=["OU_A"])
    columns = ["org_unit", "split_period", "period", "horizon", "quantile", "value"]
    assert list(frame.columns) == columns
    assert len(frame) == 4  # 2 split periods x 1 org unit x 2 quantiles
    # 2023-08 from the splits 2023-06 and 2023-07: 1 is a split's first forecast period
    assert frame.drop_duplicates("split_period")["horizon"].tolist() == [3, 2]
    assert set(frame["quantile"]) == {0.1, 0.9}
    assert fake.requests[-1].url.params.multi_items() == [
        ("backtestId", "1"),
        ("quantiles", "0.1"),
        ("quantiles", "0.9"),
        ("orgUnits", "OU_A"),
    ]


def test_empty_answers_give_frames_with_their_columns(client: Any, fake: FakeService) -> None:
    import httpx

    fake.fail("GET /v1/analytics/evaluation-entry", httpx.Response(200, json=[]))
    fake.fail("GET /v1/analytics/prediction-entry/7", httpx.Response(200, json=[]))
    evaluation = client.evaluation_frame(1)
    columns = ["org_unit", "split_period", "period", "horizon", "quantile", "value"]
    assert list(evaluation.columns) == columns
    assert evaluation.empty
    prediction = client.prediction_frame(7)
    assert list(prediction.columns) == ["org_unit", "period", "horizon", "quantile", "value"]


def test_actual_cases(client: Any, fake: FakeService) -> None:
    frame = client.actual_cases(1, org_units=["OU_B"])
    assert frame["org_unit"].astype(str).tolist() == ["OU_B"]
    assert frame["value"].tolist() == [26.0]
    assert fake.requests[-1].url.path == "/v1/analytics/actual-cases/1"
    assert fake.requests[-1].url.params.get_list("orgUnits") == ["OU_B"]


def test_truncated_entries_are_a_decode_error(client: Any, fake: FakeService) -> None:
    import httpx

    fake.fail(
        "GET /v1/analytics/evaluation-entry",
        httpx.Response(200, content=b'[{"orgUnit": "OU_A", "per'),
    )
    with pytest.raises(ChapDecodeError, match="evaluation-entry"):
        client.evaluation_frame(1)


def test_run_evaluation_reports_its_job_statuses(client: Any, fake: FakeService) -> None:
    seen: list[str] = []
    client.run_evaluation("bt_new", "naive_model:weekly", 1, on_status=seen.append)
    assert seen == ["STARTED", "SUCCESS"]


def test_run_evaluation(client: Any, fake: FakeService) -> None:
    evaluation = client.run_evaluation("bt_new", "naive_model:weekly", 1, n_splits=2, timeout=60)
    assert isinstance(evaluation, Evaluation)
    assert (evaluation.id, evaluation.name) == (2, "bt_new")
    assert fake.paths()[-1] == "GET /v1/crud/backtests/2/info"


def test_run_evaluation_on_a_missing_dataset(client: Any, fake: FakeService) -> None:
    with pytest.raises(NotFoundError, match="Dataset 42 not found"):
        client.run_evaluation("bt", "naive_model", 42)


def test_a_bulk_delete_that_answers_only_a_count(call: Callable[..., Any]) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        deleted = len(request.url.params["ids"].split(",")) if "9" not in str(request.url) else 1
        return httpx.Response(200, json={"message": f"Deleted {deleted} backtests"})

    assert call(handler, "delete_evaluations", [3, 4]) == [3, 4]
    with pytest.raises(NotFoundError, match="deleted 1 of the 2 .* 1 of them did not exist"):
        call(handler, "delete_evaluations", [3, 9])


BACKTEST = backtest_read(12, "E naive", "naive_model")
ACTUALS = {
    "featureId": "disease_cases",
    "dhis2Id": "disease_cases",
    "data": [{"pe": "201901", "ou": "OU_North", "value": 40.0}],
}
DATASET = {"id": 1, "name": "demo", "created": "2026-11-23T19:23:36Z", "observations": []}


def test_the_spelling_the_server_does_not_deprecate_is_sent(call: Callable[..., Any]) -> None:
    mock = ChapCoreMock(
        {
            "GET /v1/crud/backtests/12": httpx.Response(200, json=BACKTEST),
            "GET /v1/crud/datasets/1": httpx.Response(200, json=DATASET),
            "GET /v1/analytics/actual-cases/12": httpx.Response(200, json=ACTUALS),
        }
    )
    assert call(mock.handler, "get_evaluation", 12).name == "E naive"
    frame = call(mock.handler, "actual_cases", 12)
    assert list(frame["value"]) == [40.0]
    assert [r.url.path for r in mock.seen] == [
        "/v1/crud/backtests/12",
        "/v1/crud/backtests/12",
        "/v1/crud/datasets/1",
        "/v1/analytics/actual-cases/12",
    ]


def test_a_server_with_only_the_older_spellings_gets_them(call: Callable[..., Any]) -> None:
    mock = ChapCoreMock(
        {
            "GET /v1/crud/backtests/12/info": httpx.Response(200, json=BACKTEST),
            "GET /v1/crud/datasets/1": httpx.Response(200, json=DATASET),
            "GET /v1/analytics/actualCases/12": httpx.Response(200, json=ACTUALS),
        },
        openapi=without(
            "GET /v1/crud/backtests/{backtestId}", "GET /v1/analytics/actual-cases/{backtestId}"
        ),
    )
    assert call(mock.handler, "get_evaluation", 12).id == 12
    call(mock.handler, "actual_cases", 12)
    assert {r.url.path for r in mock.seen} == {
        "/v1/crud/backtests/12/info",
        "/v1/crud/datasets/1",
        "/v1/analytics/actualCases/12",
    }


@pytest.mark.parametrize("dry_run", [True, False])
def test_an_import_report_is_what_chap_core_answered(
    call: Callable[..., Any], dry_run: bool
) -> None:
    rejection = {
        "reason": "Missing polygon in geojson",
        "orgUnit": "OU_C",
        "featureName": "polygon",
        "timePeriods": [],
    }
    answer = {"id": None if dry_run else "job-7", "importedCount": 2, "rejected": [rejection]}
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        # not ChapCoreMock: 2.5.1's OpenAPI document describes ``rejected`` with FastAPI's own
        # ValidationError (loc, msg, type), whose name its import rows share; it sends these
        seen.append(request)
        assert request.url.path == "/v1/analytics/create-backtest-with-data/"
        return httpx.Response(200, json=answer)

    frame = pd.DataFrame(
        {
            "time_period": ["2024-01", "2024-01", "2024-01"],
            "location": ["OU_A", "OU_B", "OU_C"],
            "disease_cases": [1.0, 2.0, 3.0],
        }
    )
    square = {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 0]]]}
    geojson = {
        "type": "FeatureCollection",
        "features": [
            {"type": "Feature", "id": unit, "properties": {}, "geometry": square}
            for unit in ("OU_A", "OU_B")
        ],
    }
    report = call(
        handler,
        "create_evaluation_with_data",
        "x",
        "naive_model",
        frame,
        geojson,
        dry_run=dry_run,
    )
    assert seen[-1].url.params["dryRun"] == str(dry_run).lower()
    assert (report.dry_run, report.id, report.imported_count) == (
        dry_run,
        None if dry_run else "job-7",
        2,
    )
    [rejected] = report.rejected
    assert (rejected.org_unit, rejected.reason, rejected.feature_name) == (
        "OU_C",
        "Missing polygon in geojson",
        "polygon",
    )
