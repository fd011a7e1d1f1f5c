"""Reading never writes: every GET route the service lists in ``/openapi.json``, called with real
ids on a service holding one of everything, leaves every table of its database as it was.

Runs on SQLite, and on PostgreSQL under ``make test-postgres`` (or
``scripts/postgres/with-postgres .venv/bin/python -m pytest <this file>``).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from sqlalchemy import MetaData, create_engine, select

from chaplab.client import AlertLevel, ChapClient, SeasonalParams
from chaplab.service import create_app
from chaplab.service.domain.runners import TTL_VARIABLE
from chaplab.toolkit import BackgroundServer
from chaplab.vocabulary import JobType, is_terminal_status

from .helpers import geojson_for, small_frame

pytestmark = pytest.mark.integration

QUANTILES = [0.1, 0.5, 0.9]


def database_dump(url: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, each table's rows in primary-key order."""
    engine = create_engine(url)
    try:
        metadata = MetaData()
        metadata.reflect(engine)
        with engine.connect() as connection:
            return {
                name: [
                    tuple(row)
                    for row in connection.execute(
                        select(table).order_by(*(table.primary_key.columns or table.columns))
                    )
                ]
                for name, table in sorted(metadata.tables.items())
            }
    finally:
        engine.dispose()


def wait_until_every_job_ended(chap: ChapClient, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while any(not is_terminal_status(job.status) for job in chap.list_jobs()):
        assert time.monotonic() < deadline, "jobs still running after the timeout"
        time.sleep(0.5)


def populate(chap: ChapClient, service_url: str) -> dict[str, Any]:
    """One of each kind of record (the demo's are there too); the ids a GET route takes."""
    frame = small_frame(n_years=3)
    geojson = geojson_for(sorted(set(frame.location)))
    dataset = chap.create_dataset("pure reads", frame, geojson=geojson)
    evaluation = chap.run_evaluation(
        "pure naive", "naive_model", dataset.id, n_periods=2, n_splits=3, timeout=300
    )
    batch = chap.create_backtests("pure batch", ["seasonal_naive"], dataset.id, 2, 4)
    imported = chap.create_evaluation_with_data(
        "pure import", "naive_model", frame, geojson=geojson, n_periods=2, n_splits=2
    )
    prediction = chap.run_prediction(
        "pure forecast", "naive_model", frame, n_periods=2, geojson=geojson, timeout=300
    )
    level = AlertLevel(name="alert", threshold_params=SeasonalParams(), exceedance_threshold=0.8)
    policy = chap.create_alert_policy("pure policy", [level])
    alert = chap.create_alert(
        policy.id, "alert", prediction.org_units[0], prediction.periods[0], prediction.id
    )
    setup = chap.create_prediction_setup(evaluation.id, "pure setup", alert_policy_id=policy.id)
    entry = chap.create_debug_entry("pure")
    registered = httpx.post(
        f"{service_url}/v2/services/$register",
        json={
            "id": "pure-runner",
            "url": "http://127.0.0.1:9/",
            "info": {
                "id": "pure-runner",
                "display_name": "Mean model",
                "version": "1.0.0",
                "description": "each place's mean",
                "model_metadata": {"author": "chaplab", "author_assessed_status": "orange"},
                "period_type": "monthly",
                "required_covariates": [],
            },
        },
    )
    assert registered.status_code == 200, registered.text
    wait_until_every_job_ended(chap)
    jobs = {job.type: job for job in chap.list_jobs() if job.status == "SUCCESS"}
    stored = httpx.get(f"{service_url}/v1/crud/backtests/{evaluation.id}").json()
    assert stored["specificationId"] is not None
    # 2.5.1 queues a specification's missing baselines when it is read (documented there);
    # that happens here, before the reads under test, and its jobs finish first
    for specification in chap.list_backtest_specifications():
        httpx.get(f"{service_url}/v1/crud/backtest-specifications/{specification.id}")
    wait_until_every_job_ended(chap)
    # the imported evaluation's id as its job says it, without reading the evaluation
    imported_evaluation_id = chap.get_job(imported.id).result_id
    bundles = httpx.get(f"{service_url}/v1/crud/configured-models-with-data-source").json()
    return {
        "dataset_id": dataset.id,
        "model_id": stored["configuredModel"]["id"],
        "bundle_id": bundles[0]["id"],
        "backtest_id": evaluation.id,
        "backtestId": evaluation.id,
        "quantiles": QUANTILES,
        "id1": evaluation.id,
        "id2": imported_evaluation_id,
        "specification_id": stored["specificationId"],
        "batch_specification_id": batch.specification_id,
        "prediction_id": prediction.id,
        "predictionSetupId": setup.id,
        "alertPolicyId": policy.id,
        "alertId": alert.id,
        "job_id": imported.id,
        "prediction_job_id": jobs[JobType.CREATE_PREDICTION].id,
        "service_id": "pure-runner",
        "entry_id": entry.id,
    }


def get_requests(service_url: str, ids: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Every GET route of /openapi.json, its path parameters filled with real ids (a chart's
    name from its catalog), with its required query parameters."""
    spec = httpx.get(f"{service_url}/openapi.json").json()
    catalogs = {
        kind: httpx.get(f"{service_url}/v1/visualization/{kind}-plots/").json()
        for kind in ("backtest", "dataset")
    }
    metric_catalog = httpx.get(
        f"{service_url}/v1/visualization/metric-plots/{ids['backtest_id']}"
    ).json()
    paths = []
    for path, operations in spec["paths"].items():
        if "get" not in operations:
            continue
        values = dict(ids)
        if path.endswith("/prediction_result"):
            values["job_id"] = ids["prediction_job_id"]
        if path.startswith("/v1/visualization/metric-plots/"):
            values["visualization_name"] = metric_catalog["visualizations"][0]
            values["metric_id"] = metric_catalog["metrics"][0]
        for kind, catalog in catalogs.items():
            if path.startswith(f"/v1/visualization/{kind}-plots/"):
                values["visualization_name"] = catalog[0]["id"]
        filled = re.sub(r"{(\w+)}", lambda match, given=values: str(given[match.group(1)]), path)
        required = [
            parameter["name"]
            for parameter in operations["get"].get("parameters", [])
            if parameter["in"] == "query" and parameter.get("required")
        ]
        paths.append((filled, {name: values[name] for name in required}))
        if path == "/v1/crud/backtest-specifications/{specification_id}":
            batch = path.replace("{specification_id}", str(ids["batch_specification_id"]))
            paths.append((batch, {}))
    return paths


def test_no_get_route_writes_to_the_database(
    new_database_url: Callable[[str], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # the model service registered below stays registered through the test, however slow
    monkeypatch.setenv(TTL_VARIABLE, "3600")
    database = new_database_url("pure")
    with (
        BackgroundServer(create_app(database, workers=2), "127.0.0.1") as server,
        ChapClient(server.url) as chap,
    ):
        ids = populate(chap, server.url)
        requests = get_requests(server.url, ids)
        before = database_dump(database)
        failed = []
        for path, params in requests:
            answer = httpx.get(server.url + path, params=params, timeout=60)
            if answer.status_code != 200:
                failed.append(f"GET {path} {params}: {answer.status_code} {answer.text[:300]}")
        after = database_dump(database)
    assert failed == []
    assert len(requests) >= 55
    changed = {
        table: {"before": rows, "after": after.get(table)}
        for table, rows in before.items()
        if after.get(table) != rows
    }
    assert changed == {}
    assert set(after) == set(before)
    assert before["evaluations"] and before["backtest_specifications"] and before["jobs"]
