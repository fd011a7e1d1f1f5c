"""A mock chap-core 2.5.1 for the client's unit tests: it serves 2.5.1's ``/openapi.json``
(so the client sees every 2.5.1 route), checks each JSON request body against the request
schema 2.5.1 publishes for its route, and answers what the test gives for each request."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
from jsonschema import Draft202012Validator

from wire_schemas import assert_matches_chap_core, chap_core_openapi, route_template

Answer = httpx.Response | Callable[[httpx.Request], httpx.Response]


def request_schema(method: str, path: str) -> dict[str, Any] | None:
    """2.5.1's JSON schema of ``method path``'s request body (``None`` when it takes none)."""
    operation = chap_core_openapi()["paths"][route_template(method, path)][method.lower()]
    content = (operation.get("requestBody") or {}).get("content") or {}
    schema: dict[str, Any] | None = (content.get("application/json") or {}).get("schema")
    return schema


def assert_request_matches_chap_core(request: httpx.Request) -> None:
    """The request's JSON body is one 2.5.1 accepts for its route."""
    schema = request_schema(request.method, request.url.path)
    if schema is None:
        return
    document = chap_core_openapi()
    validator = Draft202012Validator({**schema, "components": document["components"]})
    body = json.loads(request.read())
    errors = [error.message for error in validator.iter_errors(body)]
    assert not errors, f"{request.method} {request.url.path}: {errors}"


class ChapCoreMock:
    """``handler`` answers ``GET /openapi.json`` with 2.5.1's document and each
    ``"METHOD /path"`` given with its answer (a response, or a function of the request); an
    answer with status 200 is checked against 2.5.1's response schema. ``seen`` lists the
    requests, ``bodies`` their JSON bodies."""

    def __init__(self, answers: dict[str, Answer], *, openapi: dict[str, Any] | None = None):
        self.answers = answers
        self.openapi = openapi if openapi is not None else chap_core_openapi()
        self.seen: list[httpx.Request] = []
        self.bodies: list[Any] = []

    def handler(self, request: httpx.Request) -> httpx.Response:
        key = f"{request.method} {request.url.path}"
        if key == "GET /openapi.json":
            return httpx.Response(200, json=self.openapi)
        self.seen.append(request)
        content = request.read()
        self.bodies.append(json.loads(content) if content else None)
        if request.headers.get("content-type") == "application/json":
            assert_request_matches_chap_core(request)
        answer = self.answers.get(key)
        assert answer is not None, f"unexpected request {key}"
        response = answer(request) if callable(answer) else answer
        if response.status_code == 200 and "json" in response.headers.get("content-type", ""):
            assert_matches_chap_core(request.method, request.url.path, response.json())
        return response


def without(*routes: str) -> dict[str, Any]:
    """2.5.1's OpenAPI document without ``routes`` (``"GET /path/{param}"``): a server that
    lacks them."""
    document = json.loads(json.dumps(chap_core_openapi()))
    for route in routes:
        method, path = route.split(" ", 1)
        document["paths"].get(path, {}).pop(method.lower(), None)
    return document


DEMO_CREATED = "2026-11-23T19:23:36Z"
"""When dataset 1 ("demo") of these answers was stored."""


def backtest_read(backtest_id: int, name: str, model: str) -> dict[str, Any]:
    """A ``BacktestRead`` as chap-core 2.5.1 answers it, of ``model`` on dataset 1 ("demo"),
    which it nests with its creation time."""
    return {
        "id": backtest_id,
        "datasetId": 1,
        "modelId": model,
        "name": name,
        "created": "2026-11-24T08:00:00Z",
        "specificationId": 1,
        "aggregateMetrics": {"crps": 10.6},
        "configuredModel": None,
        "dataset": {"id": 1, "name": "demo", "created": DEMO_CREATED},
    }


def dataset_list(*datasets: dict[str, Any]) -> dict[str, Answer]:
    """The answer of ``GET /v1/crud/datasets`` listing ``datasets`` (without observations), a
    new response at each request."""
    listed = [
        {key: value for key, value in dataset.items() if key not in ("observations", "geojson")}
        for dataset in datasets
    ]
    return {"GET /v1/crud/datasets": lambda _: httpx.Response(200, json=listed)}


def job(job_type: str, result: str | None, status: str = "SUCCESS") -> dict[str, Any]:
    return {
        "id": f"job-{job_type}-{result}",
        "type": job_type,
        "name": "run",
        "status": status,
        "start_time": "2026-11-26T22:44:38",
        "end_time": None if status == "STARTED" else "2026-11-26T22:45:01",
        "result": result,
        "error": None,
    }


def chap_core_with_references() -> ChapCoreMock:
    """Evaluation 12 listed; 13 (a user's seasonal_median run) and 15 (a baseline run on the
    specification) filed as references; 14 deleted; 16 still running; 2 a dataset."""
    return ChapCoreMock(
        {
            "GET /v1/crud/backtests": lambda r: httpx.Response(
                200, json=[backtest_read(12, "naive", "naive_model")]
            ),
            "GET /v1/jobs": lambda r: httpx.Response(
                200,
                json=[
                    job("create_backtest", "12"),
                    job("create_backtest", "13"),
                    job("create_backtest", "14"),
                    job("run_baseline", "15"),
                    job("create_backtest", None, status="STARTED"),
                    job("create_dataset", "2"),
                ],
            ),
            "GET /v1/crud/backtests/13": lambda r: httpx.Response(
                200, json=backtest_read(13, "my median", "seasonal_median")
            ),
            "GET /v1/crud/backtests/14": lambda r: httpx.Response(
                404, json={"detail": "Backtest not found"}
            ),
            "GET /v1/crud/backtests/15": lambda r: httpx.Response(
                200, json=backtest_read(15, "baseline", "global_median")
            ),
        }
    )
