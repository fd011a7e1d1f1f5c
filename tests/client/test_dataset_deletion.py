"""Deleting a dataset that evaluations or forecasts use: refused with their names and ids
before anything is deleted, on every server; ``force=True`` deletes them first and says so.
And the records chap-core 2.5.1 cannot read once their dataset is gone: named, with how to
remove them, instead of its 500."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from chaplab.client import ConflictError, OrphanedRecordError

from .chap_core_mock import ChapCoreMock, backtest_read
from .fake_service import FakeService

FORECAST = {"id": 7, "name": "next quarter", "datasetId": 1, "modelId": "naive_model"}


@pytest.mark.parametrize("server_refuses", [True, False], ids=["ours", "as chap-core"])
def test_a_dataset_in_use_is_refused_naming_its_users_before_anything_is_deleted(
    client: Any, fake: FakeService, server_refuses: bool
) -> None:
    fake.refuses_deleting_used_datasets = server_refuses
    fake.predictions = [dict(FORECAST)]
    with pytest.raises(ConflictError) as refused:
        client.delete_dataset("demo")
    assert str(refused.value) == (
        "dataset 1 is used by evaluation 1 ('bt_naive') and prediction 7 ('next quarter'); "
        "delete those first, or delete_dataset(1, force=True) to delete them with it"
    )
    assert not [path for path in fake.paths() if path.startswith("DELETE")]
    assert [d["id"] for d in fake.datasets] == [1] and list(fake.evaluations) == [1]


def test_force_deletes_the_users_first_and_says_what_it_deleted(
    client: Any, fake: FakeService
) -> None:
    fake.predictions = [dict(FORECAST), {**FORECAST, "id": 8, "datasetId": 2}]
    deletion = client.delete_dataset(1, force=True)
    assert (deletion.dataset_id, deletion.evaluation_ids, deletion.prediction_ids) == (1, [1], [7])
    assert str(deletion) == (
        "deleted evaluation 1 ('bt_naive') and prediction 7 ('next quarter'), then dataset 1"
    )
    assert [path for path in fake.paths() if path.startswith("DELETE")] == [
        "DELETE /v1/crud/predictions/7",
        "DELETE /v1/crud/backtests/1",
        "DELETE /v1/crud/datasets/1",
    ]
    assert (fake.datasets, fake.evaluations) == ([], {})
    assert [p["id"] for p in fake.predictions] == [8]  # another dataset's


def test_a_dataset_nothing_uses_is_deleted(client: Any, fake: FakeService) -> None:
    fake.evaluations = {}
    deletion = client.delete_dataset(1)
    assert (str(deletion), deletion.deleted) == ("deleted dataset 1", ())
    assert fake.datasets == []


def test_a_refusal_midway_says_what_was_deleted_before_it(client: Any, fake: FakeService) -> None:
    fake.predictions = [dict(FORECAST)]
    fake.fail("DELETE /v1/crud/backtests/1", httpx.Response(409, json={"detail": "in use"}))
    with pytest.raises(ConflictError) as refused:
        client.delete_dataset(1, force=True)
    assert str(refused.value).endswith("in use; deleted before this: prediction 7 ('next quarter')")


def server_error(error: str) -> httpx.Response:
    """chap-core 2.5.1's 500 (its error middleware's body)."""
    return httpx.Response(500, json={"detail": "Internal server error", "error": error})


LOST_IN_LIST = (
    "1 validation error:\n  {'type': 'model_attributes_type', 'loc': ('response', 1, 'dataset'),"
    " 'msg': 'Input should be a valid dictionary or object to extract fields from', "
    "'input': None}\n\n  File \"crud.py\", line 294, in get_backtests\n    GET /v1/crud/backtests"
)
LOST_IN_ONE = LOST_IN_LIST.replace("('response', 1, 'dataset')", "('response', 'dataset')")


def job(job_id: str, job_type: str, name: str, result: int) -> dict[str, Any]:
    return {
        "id": job_id,
        "type": job_type,
        "name": name,
        "status": "SUCCESS",
        "start_time": "2026-11-24T08:00:00",
        "end_time": "2026-11-24T08:00:05",
        "result": str(result),
        "error": None,
    }


def chap_core_with_orphans() -> ChapCoreMock:
    """chap-core after dataset 2 was deleted under evaluations 9 ('old one') and 10 and
    prediction 21 ('old forecast'); dataset 1 keeps evaluation 12."""
    good = backtest_read(12, "E naive", "naive_model")

    def evaluations(request: httpx.Request) -> httpx.Response:
        if request.url.params.get("datasetId") == "1":
            return httpx.Response(200, json=[good])
        return server_error(LOST_IN_LIST)

    jobs = [
        job("a", "create_backtest", "old one", 9),
        job("b", "create_backtest", "old two", 10),
        job("c", "create_backtest", "E naive", 12),
        job("d", "create_backtest", "deleted since", 11),
        job("e", "create_prediction", "old forecast", 21),
    ]
    return ChapCoreMock(
        {
            "GET /v1/crud/backtests": evaluations,
            "GET /v1/crud/datasets": lambda _: httpx.Response(200, json=[{"id": 1, "name": "d"}]),
            "GET /v1/jobs": lambda _: httpx.Response(200, json=jobs),
            "GET /v1/crud/backtests/9": lambda _: server_error(LOST_IN_ONE),
            "GET /v1/crud/backtests/10": lambda _: server_error(LOST_IN_ONE),
            "GET /v1/crud/backtests/11": lambda _: httpx.Response(404, json={"detail": "gone"}),
            "GET /v1/crud/predictions": lambda _: server_error(LOST_IN_LIST),
            "GET /v1/crud/predictions/21": lambda _: server_error(LOST_IN_ONE),
            "GET /v1/visualization/backtest-plots/evaluation_plot/9": lambda _: httpx.Response(
                500,
                json={
                    "detail": "Internal server error",
                    "error": "'NoneType' object has no attribute 'observations'",
                    "type": "AttributeError",
                },
            ),
        }
    )


def test_a_list_that_fails_on_records_whose_dataset_is_gone_names_them(
    call: Callable[..., Any],
) -> None:
    mock = chap_core_with_orphans()
    with pytest.raises(OrphanedRecordError) as evaluations:
        call(mock.handler, "list_evaluations")
    assert str(evaluations.value) == (
        "the server cannot list evaluations: evaluations 9 ('old one'), 10 ('old two') refer to "
        "datasets that were deleted; remove them with client.delete_evaluations([9, 10])"
    )
    assert (evaluations.value.ids, evaluations.value.status_code) == ([9, 10], 500)
    with pytest.raises(OrphanedRecordError) as predictions:
        call(mock.handler, "list_predictions")
    assert str(predictions.value) == (
        "the server cannot list predictions: prediction 21 ('old forecast') refers to a "
        "dataset that was deleted; remove it with client.delete_prediction(21)"
    )


def test_a_record_whose_dataset_is_gone_says_how_to_remove_it(call: Callable[..., Any]) -> None:
    mock = chap_core_with_orphans()
    sentence = (
        "evaluation 9 refers to a dataset that was deleted, so the server cannot read it; "
        "remove it with client.delete_evaluation(9)"
    )
    for operation, arguments in [
        ("get_evaluation", (9,)),
        ("evaluation_frame", (9,)),
        ("actual_cases", (9,)),
        ("evaluation_plot", ("evaluation_plot", 9)),
    ]:
        with pytest.raises(OrphanedRecordError) as refused:
            call(mock.handler, operation, *arguments)
        assert str(refused.value) == sentence, operation


def test_specifications_are_listed_dataset_by_dataset_where_a_deleted_ones_break_the_list(
    call: Callable[..., Any],
) -> None:
    specification = {
        "id": 3,
        "datasetId": 1,
        "dataset": {"id": 1, "name": "d"},
        "nPeriods": 3,
        "nSplits": 2,
        "stride": 1,
        "orgUnitCount": 2,
        "backtestCount": 1,
    }

    def specifications(request: httpx.Request) -> httpx.Response:
        if request.url.params.get("datasetId") == "1":
            return httpx.Response(200, json=[specification])
        return server_error(
            "1 validation error for BacktestSpecificationSummary\ndataset\n  Input should be a "
            "valid dictionary [type=model_attributes_type, input_value=None, input_type=NoneType]"
        )

    mock = ChapCoreMock(
        {
            "GET /v1/crud/backtest-specifications": specifications,
            "GET /v1/crud/datasets": lambda _: httpx.Response(200, json=[{"id": 1, "name": "d"}]),
        }
    )
    [listed] = call(mock.handler, "list_backtest_specifications")
    assert listed.id == 3
    assert [dict(r.url.params) for r in mock.seen] == [
        {},
        {},
        {"datasetId": "1"},
    ]
