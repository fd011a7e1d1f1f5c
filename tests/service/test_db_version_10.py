"""Schema version 11: a job's type is chap-core 2.5.1's name for it, its payload the model of its
type (an evaluation's settings one plan), and a run of a prediction setup names the setup in a
column of its own. A version-10 database's jobs are renamed and their payloads rewritten, and a job
it left queued runs after the migration; its datasets and evaluations read back as before."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pandas.testing as pdt
import pytest
from sqlalchemy import create_engine, select, update

from chaplab.client import ChapClient
from chaplab.service import create_app
from chaplab.service.db import SCHEMA_VERSION
from chaplab.service.job_types import PAYLOADS
from chaplab.service.tables import JobRow, table_of
from chaplab.toolkit import BackgroundServer
from chaplab.vocabulary import PENDING, SUCCESS, BacktestPlan, JobType

from .helpers import geojson_for, small_frame

pytestmark = pytest.mark.integration

VERSION_10_TYPES = {
    JobType.CREATE_BACKTEST: "create_backtest",
    JobType.CREATE_BACKTEST_FROM_DATA: "create_backtest",
    JobType.RUN_BASELINE: "create_backtest",
    JobType.CREATE_PREDICTION: "make_prediction",
    JobType.CREATE_DATASET: "create_dataset",
}
"""What version 10 named each job type."""


def version_10_payload(job_type: str, payload: dict[str, Any], setup_id: int | None) -> Any:
    """A payload as version 10 wrote it: an evaluation's settings flat, a run's setup inside."""
    if job_type in ("create_backtest", "create_backtest_from_data", "run_baseline"):
        flat = {key: value for key, value in payload.items() if key != "plan"}
        plan = payload["plan"]
        return flat | {name: plan[name] for name in ("n_periods", "n_splits", "stride")}
    if job_type == "create_prediction":
        return payload | {"prediction_setup_id": setup_id}
    return payload


def test_a_database_of_schema_version_10_names_its_jobs_as_chap_core_does(
    new_database_url: Callable[[str], str],
) -> None:
    database = new_database_url("v10jobs")
    frame = small_frame(n_years=2)
    geojson = geojson_for(sorted(set(frame.location)))
    with (
        BackgroundServer(create_app(database, workers=1), "127.0.0.1") as server,
        ChapClient(server.url) as chap,
    ):
        dataset = chap.create_dataset("jobs", frame, geojson=geojson)
        batch = chap.create_backtests("batch", ["naive_model"], dataset.id, 2, 2, n_retrain=2)
        inline = chap.create_evaluation_with_data(
            "inline", "naive_model", frame, geojson=geojson, n_periods=2, n_splits=2
        )
        evaluation = chap.wait_for_job(inline.id, timeout=300)
        setup = chap.create_prediction_setup(evaluation.result_id or 0, "repeated")
        run = chap.run_prediction_setup(setup.id, "run", frame, geojson, n_periods=2)
        built = chap.make_dataset("built", frame)
        for job in chap.list_jobs():
            chap.wait_for_job(job.id, timeout=300)
        expected = {job.id: JobType(job.type) for job in chap.list_jobs()}
        stored = (chap.dataset_frame(dataset.id), chap.evaluation_frame(evaluation.result_id or 0))
    assert expected[batch.jobs[0].job_id] == JobType.CREATE_BACKTEST
    assert expected[inline.id] == JobType.CREATE_BACKTEST_FROM_DATA
    assert expected[run.id] == JobType.CREATE_PREDICTION
    assert expected[built.id] == JobType.CREATE_DATASET
    assert JobType.RUN_BASELINE in expected.values()  # the specification's baselines

    engine = create_engine(database)
    jobs = table_of(JobRow)
    with engine.begin() as connection:  # what a version-10 chaplab stored
        current = connection.execute(
            select(jobs.c.id, jobs.c.type, jobs.c.payload, jobs.c.prediction_setup_id)
        ).all()
        for job_id, job_type, payload, setup_id in current:
            connection.execute(
                update(jobs)
                .where(jobs.c.id == job_id)
                .values(
                    type=VERSION_10_TYPES[JobType(job_type)],
                    payload=version_10_payload(job_type, payload, setup_id),
                    prediction_setup_id=None,
                )
            )
        queued = connection.execute(
            select(jobs.c.payload).where(jobs.c.id == batch.jobs[0].job_id)
        ).scalar_one()
        connection.execute(  # an evaluation a version-10 service left queued
            jobs.insert().values(
                id="queued-by-version-10",
                type="create_backtest",
                name="queued",
                status=PENDING,
                payload=queued | {"name": "queued", "seed": 0},
            )
        )
        connection.exec_driver_sql("DROP INDEX ix_jobs_prediction_setup_id")
        connection.exec_driver_sql("ALTER TABLE jobs DROP COLUMN prediction_setup_id")
        connection.exec_driver_sql("UPDATE schema_version SET version = 10")
    with (
        BackgroundServer(create_app(database, seed_demo=False, workers=1), "127.0.0.1") as server,
        ChapClient(server.url) as chap,
    ):
        migrated = {job.id: JobType(job.type) for job in chap.list_jobs()}
        assert {job_id: migrated[job_id] for job_id in expected} == expected
        runs = httpx.get(f"{server.url}/v1/jobs", params={"predictionSetupId": setup.id}).json()
        assert [job["id"] for job in runs] == [run.id]
        done = chap.wait_for_job("queued-by-version-10", timeout=300)
        assert done.status == SUCCESS
        assert len(chap.get_evaluation(done.result_id or 0).split_periods) == 2
        # what was stored before the step reads back as it did
        pdt.assert_frame_equal(chap.dataset_frame(dataset.id), stored[0])
        pdt.assert_frame_equal(chap.evaluation_frame(evaluation.result_id or 0), stored[1])
    with engine.connect() as connection:
        for job_type, payload in connection.execute(select(jobs.c.type, jobs.c.payload)):
            PAYLOADS[JobType(job_type)].model_validate(payload)  # every payload reads as its type
        batch_payload = connection.execute(
            select(jobs.c.payload).where(jobs.c.id == batch.jobs[0].job_id)
        ).scalar_one()
        assert batch_payload["plan"] == {"n_periods": 2, "n_splits": 2, "stride": 1, "n_retrain": 2}
        assert BacktestPlan(**batch_payload["plan"]).retrain_splits() == (0, 1)
        assert connection.exec_driver_sql("SELECT version FROM schema_version").all() == [
            (SCHEMA_VERSION,)
        ]
    engine.dispose()
