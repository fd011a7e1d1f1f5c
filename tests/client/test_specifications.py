"""Batch evaluations and backtest specifications on a mock transport (both drivers): the
requests in chap-core 2.5.1's shape, its answers read, bad arguments refused before sending."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from chaplab.client import AsyncChapClient, ChapClient, JobTimeoutError

from .fake_service import BASE_URL, FakeClock

TEMPLATE = {"name": "seasonal_median", "version": "1", "id": 4, "role": "baseline"}
BASELINE = {
    "id": 4,
    "name": "seasonal_median",
    "configurationDigest": "ab12",
    "userOptionValues": {},
    "additionalContinuousCovariates": [],
    "modelTemplate": TEMPLATE,
}
NAIVE = {
    **BASELINE,
    "id": 1,
    "name": "naive_model",
    "modelTemplate": {"name": "naive_model", "version": "1", "id": 1},
}
DATASET = {"id": 7, "name": "demo", "createdManually": True}
SPECIFICATION = {
    "nPeriods": 3,
    "nSplits": 7,
    "stride": 1,
    "nRetrain": 1,
    "futureWeatherProvider": "climatology",
    "targetColumn": "disease_cases",
    "id": 2,
    "dataset": DATASET,
}
LEADERBOARD = {
    **SPECIFICATION,
    "orgUnits": ["OU_North", "OU_South"],
    "backtests": [
        {
            "id": 12,
            "datasetId": 7,
            "modelId": "naive_model",
            "name": "batch/naive_model",
            "splitPeriods": ["202210", "202209"],
            "specificationId": 2,
            "aggregateMetrics": {"crps": 6.0},
            "configuredModel": NAIVE,
            "dataset": DATASET,
            "comparisons": [{"configuredModelId": 4, "values": {"crps": 0.25, "mape": None}}],
        }
    ],
    "baselines": [
        {
            "configuredModel": BASELINE,
            "status": "done",
            "backtestId": 13,
            "aggregateMetrics": {"crps": 8.0},
        },
        {"configuredModel": {**BASELINE, "id": 3, "name": "persistence"}, "status": "pending"},
    ],
    "comparisonModels": None,
    "metrics": [{"id": "crps", "displayName": "CRPS", "comparisonOp": "skill_ratio"}],
}


def test_a_batch_sends_ids_names_and_parameters_and_reads_the_jobs(
    call: Callable[..., Any],
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        assert (request.method, request.url.path) == ("POST", "/v1/analytics/create-backtests")
        assert json.loads(request.read()) == {
            "name": "batch",
            "modelIds": [1, "seasonal_median"],
            "datasetId": 7,
            "nPeriods": 3,
            "nSplits": 7,
            "nRetrain": 2,
        }
        jobs = [{"configuredModelId": 1, "jobId": "a1"}, {"configuredModelId": 4, "jobId": "b2"}]
        return httpx.Response(200, json={"specificationId": 2, "jobs": jobs})

    class Named:
        name = "seasonal_median"

    batch = call(handler, "create_backtests", "batch", [1, Named()], 7, 3, 7, n_retrain=2)
    assert batch.specification_id == 2
    assert [(job.configured_model_id, job.job_id) for job in batch.jobs] == [(1, "a1"), (4, "b2")]


def test_specifications_are_listed_with_the_filters_given(call: Callable[..., Any]) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url.path == "/v1/crud/backtest-specifications"
        assert dict(request.url.params) == {"datasetId": "7", "nSplits": "7", "nRetrain": "1"}
        return httpx.Response(200, json=[{**SPECIFICATION, "orgUnitCount": 2, "backtestCount": 3}])

    [listed] = call(handler, "list_backtest_specifications", dataset_id=7, n_splits=7, n_retrain=1)
    assert (listed.id, listed.org_unit_count, listed.backtest_count) == (2, 2, 3)
    assert listed.dataset is not None and listed.dataset.name == "demo"


def test_a_leaderboard_is_read_with_its_comparisons_and_references(
    call: Callable[..., Any],
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url.path == "/v1/crud/backtest-specifications/2"
        assert request.url.params["includeComparisonModels"] == "true"
        return httpx.Response(200, json=LEADERBOARD)

    detail = call(handler, "get_backtest_specification", 2, include_comparison_models=True)
    [evaluation] = detail.backtests
    assert evaluation.model_id == "naive_model" and evaluation.specification_id == 2
    assert evaluation.split_periods == ["202209", "202210"]
    assert evaluation.configured_model.model_template_id == 1
    [comparison] = evaluation.comparisons
    assert comparison.configured_model_id == 4 and comparison.values == {"crps": 0.25, "mape": None}
    assert [(b.configured_model.name, b.status) for b in detail.references()] == [
        ("seasonal_median", "done"),
        ("persistence", "pending"),
    ]
    assert detail.baselines[0].aggregate_metrics == {"crps": 8.0}
    assert detail.comparison_models is None
    assert detail.metrics[0].comparison_op == "skill_ratio"


@pytest.mark.parametrize(
    "args, error, message",
    [
        (("b", [], 1), ValueError, "non-empty list"),
        (("b", "naive_model", 1), ValueError, "non-empty list"),
        (("b", [1.5], 1), TypeError, "models: each must be"),
        (("b", ["naive_model"], 1.5), TypeError, "dataset_id must be an int"),
        (("b", ["naive_model"], " "), ValueError, "dataset_id must be a non-empty string"),
        (("", ["naive_model"], 1), ValueError, "name must be a non-empty string"),
    ],
)
def test_bad_batch_arguments_are_refused_before_sending(
    call: Callable[..., Any], args: tuple[Any, ...], error: type[Exception], message: str
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise AssertionError(f"sent {request.url}")

    with pytest.raises(error, match=message):
        call(handler, "create_backtests", *args)


def test_a_specification_id_and_the_flag_are_checked(call: Callable[..., Any]) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise AssertionError(f"sent {request.url}")

    with pytest.raises(TypeError, match="specification_id must be an int"):
        call(handler, "get_backtest_specification", "2")
    with pytest.raises(TypeError, match="include_comparison_models must be a bool"):
        call(handler, "get_backtest_specification", 2, "yes")


def _baselines_pending_for(reads: int) -> tuple[Callable[..., Any], list[str]]:
    """A handler whose leaderboard has ``persistence`` pending for its first ``reads`` reads
    (done as evaluation 14 after), and the paths it was asked for."""
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.path)
        done = len(seen) > reads
        persistence = {"configuredModel": {**BASELINE, "id": 3, "name": "persistence"}}
        persistence |= {"status": "done", "backtestId": 14} if done else {"status": "pending"}
        return httpx.Response(200, json={**LEADERBOARD, "baselines": [BASELINE_RUN, persistence]})

    return handler, seen


BASELINE_RUN = LEADERBOARD["baselines"][0]


@pytest.mark.parametrize("driver", ["sync", "async"])
def test_waiting_for_the_baselines_says_which_are_pending_until_all_are_done(
    driver: str,
) -> None:
    handler, seen = _baselines_pending_for(reads=2)
    clock, heard = FakeClock(), []
    detail = _run(driver, handler, clock, "wait_for_baselines", 2, on_pending=heard.append)
    assert detail.baseline_runs() == {"seasonal_median": 13, "persistence": 14}
    assert heard == [["persistence"], ["persistence"]]
    assert seen == ["/v1/crud/backtest-specifications/2"] * 3 and clock.sleeps == [1.0, 1.0]


@pytest.mark.parametrize("driver", ["sync", "async"])
def test_waiting_for_the_baselines_ends_at_the_timeout_naming_one_pending(driver: str) -> None:
    handler, _ = _baselines_pending_for(reads=100)
    clock = FakeClock()
    with pytest.raises(JobTimeoutError, match="baseline persistence"):
        _run(driver, handler, clock, "wait_for_baselines", 2, timeout=3.0)
    assert clock.now - 1000.0 == 3.0


def _run(
    driver: str, handler: Callable[..., Any], clock: FakeClock, name: str, *args: Any, **kwargs: Any
) -> Any:
    """Call a client method on a mock transport with the fake clock, on either driver."""
    transport = httpx.MockTransport(handler)
    if driver == "sync":
        with ChapClient(BASE_URL, transport=transport, clock=clock, sleep=clock.sleep) as client:
            return getattr(client, name)(*args, **kwargs)

    async def main() -> Any:
        async with AsyncChapClient(
            BASE_URL, transport=transport, clock=clock, sleep=clock.asleep
        ) as client:
            return await getattr(client, name)(*args, **kwargs)

    return asyncio.run(main())
