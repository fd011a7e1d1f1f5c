"""Schema version 7: an evaluation names the backtest specification it is filed under, set when
it is stored. A version-6 database's evaluations (and its queued evaluation jobs) are filed once,
by the migration, as reading them filed them before: under the run that produced one, else under
the specification of its dataset and parameters (created when there is none)."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest
from sqlalchemy import create_engine, func, select, update

from chaplab.client import ChapClient
from chaplab.service import create_app
from chaplab.service.db import SCHEMA_VERSION
from chaplab.service.tables import BacktestSpecificationRow, EvaluationRow
from chaplab.toolkit import BackgroundServer

from .helpers import geojson_for, small_frame

pytestmark = pytest.mark.integration


def test_a_database_of_schema_version_6_files_its_evaluations_once(
    new_database_url: Callable[[str], str],
) -> None:
    database = new_database_url("v6filing")
    frame = small_frame(n_years=3)
    geojson = geojson_for(sorted(set(frame.location)))
    with (
        BackgroundServer(create_app(database, workers=1), "127.0.0.1") as server,
        ChapClient(server.url) as chap,
    ):
        (demo,) = chap.list_evaluations()  # the demo's, filed when the seed stored it
        demo_specification = read(server.url, demo.id)["specificationId"]
        assert demo_specification is not None
        dataset = chap.create_dataset("filed", frame, geojson=geojson)
        batch = chap.create_backtests("batch", ["naive_model"], dataset.id, 2, 3)
        [batch_job] = batch.jobs
        batch_evaluation = chap.wait_for_job(batch_job.job_id, timeout=300).result_id
        imported = chap.create_evaluation_with_data(
            "inline", "naive_model", frame, geojson=geojson, n_periods=2, n_splits=2
        )
        inline_evaluation = chap.wait_for_job(imported.id, timeout=300).result_id
        unrun = chap.create_evaluation_row("never run", "naive_model", dataset.id)
        inline_specification = read(server.url, inline_evaluation)["specificationId"]
        assert read(server.url, batch_evaluation)["specificationId"] == batch.specification_id
    engine = create_engine(database)
    evaluations = EvaluationRow.__table__
    with engine.begin() as connection:  # what a version-6 chaplab stored: nothing filed
        connection.execute(update(evaluations).values(specification_id=None))
        connection.execute(
            BacktestSpecificationRow.__table__.delete().where(
                BacktestSpecificationRow.id == inline_specification
            )
        )
        if connection.dialect.name == "postgresql":  # SQLite cannot drop a foreign-key column
            connection.exec_driver_sql("ALTER TABLE evaluations DROP COLUMN specification_id")
        connection.exec_driver_sql("UPDATE schema_version SET version = 6")
        specifications = connection.scalar(
            select(func.count()).select_from(BacktestSpecificationRow)
        )
    with (
        BackgroundServer(create_app(database, seed_demo=False, workers=1), "127.0.0.1") as server,
        ChapClient(server.url) as chap,
    ):
        assert read(server.url, batch_evaluation)["specificationId"] == batch.specification_id
        refiled = read(server.url, inline_evaluation)["specificationId"]
        assert refiled not in (None, batch.specification_id)
        assert read(server.url, unrun.id)["specificationId"] is None
        assert read(server.url, demo.id)["specificationId"] == demo_specification
    with engine.connect() as connection:
        assert connection.scalar(select(func.count()).select_from(BacktestSpecificationRow)) == (
            specifications + 1
        )
        assert connection.exec_driver_sql("SELECT version FROM schema_version").all() == [
            (SCHEMA_VERSION,)
        ]
    engine.dispose()


def read(service_url: str, evaluation_id: int | None) -> dict:
    """The evaluation as ``GET /v1/crud/backtests/{id}`` answers it."""
    answer = httpx.get(f"{service_url}/v1/crud/backtests/{evaluation_id}")
    assert answer.status_code == 200, answer.text
    return answer.json()
