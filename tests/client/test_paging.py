"""Lists in pages: where the server pages a list (its ``/openapi.json`` gives the route
``limit`` and ``offset``) the client asks for the page alone; elsewhere (chap-core 2.5.1) it
reads the whole list and cuts the page; either way the answer says how many records there
are. On chap-core the evaluations of baseline runs are found from the successful evaluation
jobs alone, asked for by status and type, not from every job."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from chaplab.client import ChapClient, Listing
from chaplab.client._evaluations import EVALUATION_JOB_TYPES

from .chap_core_mock import ChapCoreMock, backtest_read, chap_core_with_references, job


def chap_core_listing(count: int) -> ChapCoreMock:
    """chap-core with ``count`` evaluations (ids 1..count) and no reference runs; its job list
    filters by status and type as 2.5.1's does."""
    jobs = [job("create_backtest", str(i)) for i in range(1, count + 1)]
    return ChapCoreMock(
        {
            "GET /v1/crud/backtests": lambda r: httpx.Response(
                200, json=[backtest_read(i, f"e{i}", "naive_model") for i in range(1, count + 1)]
            ),
            "GET /v1/jobs": lambda r: httpx.Response(200, json=filtered(jobs, r)),
        }
    )


def filtered(jobs: list[dict[str, Any]], request: httpx.Request) -> list[dict[str, Any]]:
    """The jobs matching the request's ``status`` and ``type``, compared as 2.5.1 does."""
    statuses = {status.upper() for status in request.url.params.get_list("status")}
    kind = request.url.params.get("type")
    return [
        j
        for j in jobs
        if (not statuses or j["status"].upper() in statuses)
        and (kind is None or j["type"].upper() == kind.upper())
    ]


@pytest.mark.parametrize(
    ("limit", "offset", "ids"),
    [
        (None, 0, [1, 2, 3, 4, 5]),
        (2, 0, [1, 2]),
        (2, 3, [4, 5]),
        (2, -2, [4, 5]),
        (None, -1, [5]),
        (10, 4, [5]),
        (3, 9, []),
    ],
)
def test_on_chap_core_a_page_is_cut_from_the_whole_list(
    limit: int | None, offset: int, ids: list[int]
) -> None:
    mock = chap_core_listing(5)
    with ChapClient("http://chap.test", transport=httpx.MockTransport(mock.handler)) as client:
        page = client.list_evaluations(limit=limit, offset=offset)
    assert isinstance(page, Listing)
    assert ([e.id for e in page], page.total) == (ids, 5)
    listed = [r for r in mock.seen if r.url.path == "/v1/crud/backtests"]
    assert [dict(r.url.params) for r in listed] == [{}]  # 2.5.1 has no pages: the whole list


def test_on_chap_core_only_successful_evaluation_jobs_are_read_for_reference_runs() -> None:
    mock = chap_core_with_references()
    every = mock.answers["GET /v1/jobs"]
    mock.answers["GET /v1/jobs"] = lambda r: httpx.Response(
        200,
        json=filtered(every(r).json(), r),  # type: ignore[operator]
    )
    with ChapClient("http://chap.test", transport=httpx.MockTransport(mock.handler)) as client:
        evaluations = client.list_evaluations()
    assert [(e.id, e.reference) for e in evaluations] == [(12, False), (13, True), (15, True)]
    asked = [sorted(r.url.params.multi_items()) for r in mock.seen if r.url.path == "/v1/jobs"]
    assert asked == [[("status", "SUCCESS"), ("type", kind)] for kind in EVALUATION_JOB_TYPES]


def test_a_page_is_checked_before_anything_is_sent() -> None:
    mock = chap_core_listing(1)
    with ChapClient("http://chap.test", transport=httpx.MockTransport(mock.handler)) as client:
        with pytest.raises(ValueError, match="limit must be >= 1, got 0"):
            client.list_evaluations(limit=0)
        with pytest.raises(TypeError, match="offset must be an int, got str '2'"):
            client.list_jobs(offset="2")  # type: ignore[arg-type]
    assert mock.seen == []


class Recording(httpx.HTTPTransport):
    """A transport that keeps each request's path and query."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[tuple[str, dict[str, str]]] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.asked.append((request.url.path, dict(request.url.params)))
        return super().handle_request(request)


@pytest.fixture
def recorded(service_url: str) -> Iterator[tuple[ChapClient, Recording]]:
    transport = Recording()
    with ChapClient(service_url, transport=transport) as client:
        yield client, transport


@pytest.mark.integration
def test_on_our_service_the_page_alone_is_asked_for(
    recorded: tuple[ChapClient, Recording],
) -> None:
    paged, transport = recorded
    every = [dataset.id for dataset in paged.list_datasets()]
    successful = paged.list_jobs(status="SUCCESS")
    transport.asked.clear()
    newest = paged.list_datasets(limit=2, offset=-2)
    assert ([d.id for d in newest], newest.total) == (every[-2:], len(every))
    assert [asked for asked in transport.asked if asked[0] != "/openapi.json"] == [
        ("/v1/crud/datasets", {"limit": "1"}),
        ("/v1/crud/datasets", {"offset": str(max(0, len(every) - 2)), "limit": "2"}),
    ]
    jobs = paged.list_jobs(status="success", limit=3)
    assert [j.id for j in jobs] == [j.id for j in successful[:3]]
    assert jobs.total == len(successful)
    assert transport.asked[-1] == ("/v1/jobs", {"status": "SUCCESS", "offset": "0", "limit": "3"})
