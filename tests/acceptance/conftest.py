"""Fixtures of the acceptance suite: fresh modeling services on temporary SQLite files, served by
uvicorn on loopback (the suite's shared helpers are in ``helpers.py``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import httpx
import pytest

from .helpers import job_record, wait_until_terminal


@contextmanager
def running_service(database_url: str, **options: Any) -> Iterator[str]:
    """Serve a new modeling service on ``database_url`` and yield its base URL."""
    from chaplab.service import create_app
    from chaplab.toolkit import BackgroundServer

    app = create_app(database_url=database_url, **options)
    with BackgroundServer(app, "127.0.0.1") as server:
        yield server.url


@contextmanager
def service_starter(new_database_url: Callable[[str], str]) -> Iterator[Callable[..., str]]:
    """A function that starts fresh services (each on its own database); all stop on exit."""
    stack: list[AbstractContextManager[str]] = []

    def start(**options: Any) -> str:
        manager = running_service(new_database_url("acceptance"), **options)
        stack.append(manager)
        return manager.__enter__()

    try:
        yield start
    finally:
        for manager in reversed(stack):
            manager.__exit__(None, None, None)


@pytest.fixture(scope="module")
def start_service(new_database_url: Callable[[str], str]) -> Iterator[Callable[..., str]]:
    """Start fresh services for one module, e.g. with keys or to see a new instance."""
    with service_starter(new_database_url) as start:
        yield start


@pytest.fixture(scope="package")
def base_url(new_database_url: Callable[[str], str]) -> Iterator[str]:
    """One modeling service (with the demo content) shared by the suite; tests that write
    use unique names, and a test that needs a new instance starts its own."""
    with service_starter(new_database_url) as start:
        yield start()


@pytest.fixture(scope="package")
def http(base_url: str) -> Iterator[httpx.Client]:
    """A raw httpx client on the shared service, for wire-level checks."""
    with httpx.Client(base_url=base_url, timeout=30.0) as raw:
        yield raw


@pytest.fixture(scope="package")
def evaluation_dataset(http: httpx.Client) -> dict[str, Any]:
    """The first stored dataset of type ``evaluation``."""
    datasets = [d for d in http.get("/v1/crud/datasets").json() if d["type"] == "evaluation"]
    assert datasets, "the service holds no dataset of type evaluation"
    return datasets[0]


@pytest.fixture(scope="package")
def finished_evaluation(http: httpx.Client, evaluation_dataset: dict[str, Any]) -> dict[str, Any]:
    """An evaluation run through create-backtest (its ``/info`` record), once its job is SUCCESS."""
    model_name = http.get("/v1/crud/configured-models").json()[0]["name"]
    created = http.post(
        "/v1/analytics/create-backtest",
        json={
            "name": "acceptance shared",
            "modelId": model_name,
            "datasetId": evaluation_dataset["id"],
            "nPeriods": 2,
            "nSplits": 2,
        },
    )
    assert created.status_code < 300, created.text
    job_id = created.json()["id"]
    assert wait_until_terminal(http, job_id) == "SUCCESS", job_record(http, job_id)
    evaluation_id = int(job_record(http, job_id)["result"])
    return http.get(f"/v1/crud/backtests/{evaluation_id}/info").json()
