"""Reference runs: chap-core 2.5.1 leaves the evaluations of its baseline models out of
``GET /v1/crud/backtests``; ``list_evaluations`` lists them too, marked ``reference``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

from chaplab.client import ChapClient

from .chap_core_mock import backtest_read, chap_core_with_references, job


def test_reference_runs_are_listed_and_marked(call: Callable[..., Any]) -> None:
    mock = chap_core_with_references()
    evaluations = call(mock.handler, "list_evaluations")
    assert [(e.id, e.name, e.reference) for e in evaluations] == [
        (12, "naive", False),
        (13, "my median", True),
        (15, "baseline", True),
    ]


def test_a_deleted_reference_is_looked_for_once() -> None:
    mock = chap_core_with_references()
    with ChapClient("http://chap.test", transport=httpx.MockTransport(mock.handler)) as client:
        first = client.list_evaluations()
        second = client.list_evaluations()
    assert [e.id for e in first] == [e.id for e in second] == [12, 13, 15]
    paths = [request.url.path for request in mock.seen]
    assert paths.count("/v1/crud/backtests/14") == 1
    assert paths.count("/v1/crud/backtests/13") == 2  # a reference may be renamed meanwhile


def test_a_later_evaluation_under_a_deleted_ones_id_is_listed() -> None:
    """chap-core's SQLite gives a new evaluation the id of a deleted last row: the new job's
    evaluation is looked for although the old job's was gone under the same id."""
    mock = chap_core_with_references()
    with ChapClient("http://chap.test", transport=httpx.MockTransport(mock.handler)) as client:
        assert [e.id for e in client.list_evaluations()] == [12, 13, 15]
        later = job("create_backtest", "14") | {"id": "job-later-14"}
        mock.answers["GET /v1/jobs"] = lambda r: httpx.Response(
            200, json=[later, job("create_backtest", "12"), job("create_backtest", "14")]
        )
        mock.answers["GET /v1/crud/backtests/14"] = lambda r: httpx.Response(
            200, json=backtest_read(14, "peer seasonal median", "seasonal_median")
        )
        evaluations = client.list_evaluations()
    assert [(e.id, e.name, e.reference) for e in evaluations] == [
        (12, "naive", False),
        (14, "peer seasonal median", True),
    ]


def test_the_filters_reach_the_server_and_hold_for_the_references() -> None:
    """chap-core filters its own list by specificationId and datasetId; the references the
    client adds are filtered by the same fields."""
    mock = chap_core_with_references()
    mock.answers["GET /v1/crud/backtests/15"] = lambda r: httpx.Response(
        200, json=backtest_read(15, "baseline", "global_median") | {"specificationId": 2}
    )
    with ChapClient("http://chap.test", transport=httpx.MockTransport(mock.handler)) as client:
        filed = client.list_evaluations(specification_id=1)
        elsewhere = client.list_evaluations(dataset_id=7)
    assert [(e.id, e.reference) for e in filed] == [(12, False), (13, True)]
    assert [e.id for e in elsewhere] == [12]  # the mock lists 12 whatever the filter
    queries = [
        dict(request.url.params)
        for request in mock.seen
        if request.url.path == "/v1/crud/backtests"
    ]
    assert queries == [{"specificationId": "1"}, {"datasetId": "7"}]
