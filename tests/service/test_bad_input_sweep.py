"""Bad input on every route of ``/openapi.json``: odd path ids, malformed bodies and query
values get a 4xx problem-details answer, never a 500."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest

pytestmark = pytest.mark.integration

BAD_IDS = ("abc", "-1", "99999999999999999999")
BAD_BODIES = ([], {"name": 1}, {"name": "x", "providedData": "x", "modelId": 3})
BAD_QUERIES = (
    {"backtestId": "abc"},
    {"backtestId": "99999999999999999999"},
    {"quantiles": "2"},
    {"predictionId": "-5"},
    {"ids": ",,"},
    {"dryRun": "perhaps"},
)


@pytest.fixture(scope="module")
def http(service_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=service_url, timeout=30) as client:
        yield client


@pytest.fixture(scope="module")
def operations(http: httpx.Client) -> list[tuple[str, str]]:
    paths = http.get("/openapi.json").json()["paths"]
    return [(method.upper(), path) for path, item in paths.items() for method in item]


def _check(answer: httpx.Response, what: str) -> None:
    assert answer.status_code < 500, (what, answer.status_code, answer.text[:300])
    if answer.status_code >= 400:
        assert answer.headers["content-type"].startswith("application/problem+json"), what
        assert answer.json()["detail"], what


def test_odd_path_ids_are_answered_with_problem_details(
    http: httpx.Client, operations: list[tuple[str, str]]
) -> None:
    templated = [(m, p) for m, p in operations if "{" in p]
    assert len(templated) > 30
    for method, path in templated:
        for bad in BAD_IDS:
            url = re.sub(r"\{[^}]+\}", bad, path)
            body = {} if method in ("POST", "PUT", "PATCH") else None
            _check(http.request(method, url, json=body), f"{method} {url}")


def test_malformed_bodies_and_queries_are_answered_with_problem_details(
    http: httpx.Client, operations: list[tuple[str, str]]
) -> None:
    plain = [(m, p) for m, p in operations if "{" not in p and p not in ("/", "/docs", "/redoc")]
    for method, path in plain:
        if method in ("POST", "PUT", "PATCH"):
            for body in BAD_BODIES:
                _check(http.request(method, path, json=body), f"{method} {path} {body!r}")
        for query in BAD_QUERIES if method in ("GET", "DELETE") else ():
            _check(http.request(method, path, params=query), f"{method} {path} {query!r}")
