"""``/health/ready`` and ``/health/probe`` in 2.5.1's ReadinessResponse shape: they really check
the database, the job runner and a worker's round trip to the database, and a failing check
answers 503 naming the check and why."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest
from sqlalchemy import create_engine

from asgi_test_client import TestClient
from chaplab.service import create_app
from chaplab.toolkit import BackgroundServer
from wire_schemas import assert_matches_chap_core

pytestmark = pytest.mark.integration


def test_a_working_service_is_ready_and_its_worker_reaches_the_database(service_url: str) -> None:
    ready = httpx.get(f"{service_url}/health/ready", timeout=30)
    assert ready.status_code == 200
    assert ready.json() == {"status": "success", "checks": {"db": "ok", "job_runner": "ok"}}
    assert_matches_chap_core("GET", "/health/ready", ready.json())
    probe = httpx.get(f"{service_url}/health/probe", timeout=30)
    assert probe.status_code == 200
    assert probe.json() == {"status": "success", "checks": {"worker_db_roundtrip": "ok"}}
    assert_matches_chap_core("GET", "/health/probe", probe.json())


def test_a_job_runner_that_is_not_running_makes_the_service_not_ready(
    new_database_url: Callable[[str], str],
) -> None:
    app = create_app(new_database_url("norunner"), seed_demo=False, workers=1)
    client = TestClient(app)  # not entered: no lifespan, so the job runner never starts
    answer = client.get("/health/ready")
    assert answer.status_code == 503
    body = answer.json()
    assert_matches_chap_core("GET", "/health/ready", body, 503)
    assert body["status"] == "unhealthy"
    assert body["checks"]["db"] == "ok"
    assert body["checks"]["job_runner"] == "error: the job runner has not been started"


def test_a_database_that_lost_its_schema_fails_the_db_check_and_the_probe(
    new_database_url: Callable[[str], str],
) -> None:
    database = new_database_url("lostschema")
    app = create_app(database, seed_demo=False, workers=1)
    with BackgroundServer(app, "127.0.0.1") as server:
        engine = create_engine(database)
        with engine.begin() as connection:
            connection.exec_driver_sql("DROP TABLE schema_version")
        engine.dispose()
        ready = httpx.get(f"{server.url}/health/ready", timeout=30)
        probe = httpx.get(f"{server.url}/health/probe", timeout=30)
    assert ready.status_code == 503
    assert_matches_chap_core("GET", "/health/ready", ready.json(), 503)
    assert ready.json()["checks"]["db"].startswith("error: ")
    assert "schema_version" in ready.json()["checks"]["db"]
    assert ready.json()["checks"]["job_runner"] == "ok"
    assert probe.status_code == 503
    assert_matches_chap_core("GET", "/health/probe", probe.json(), 503)
    assert probe.json()["checks"]["worker_db_roundtrip"].startswith(
        "error: a worker process could not read the database"
    )
