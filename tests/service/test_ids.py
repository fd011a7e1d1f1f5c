"""Ids are never handed out twice: a row created after another was deleted gets a new id, in
every table of public ids, also after a restart, on SQLite and PostgreSQL (SQLite's own rule, the
highest id + 1, gave a deleted evaluation's id to the next one, so a job's result, ``"2"``, then
named another evaluation than the one the job made). A version-7 database keeps its ids and
counts on after the ids its jobs' results name."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pytest
from sqlalchemy import create_engine, func, select

from chaplab.client import ChapClient
from chaplab.service import create_app
from chaplab.service.db import SCHEMA_VERSION
from chaplab.service.tables import EvaluationRow
from chaplab.toolkit import BackgroundServer

from .helpers import geojson_for, small_frame

pytestmark = pytest.mark.integration

LEVELS = [{"name": "monitor", "thresholdParams": {"type": "seasonal"}, "exceedanceThreshold": 0.5}]


@contextmanager
def serving(database: str, seed_demo: bool = False) -> Iterator[ChapClient]:
    with (
        BackgroundServer(create_app(database, seed_demo=seed_demo, workers=1), "127.0.0.1") as s,
        ChapClient(s.url) as chap,
    ):
        yield chap


@dataclass(frozen=True)
class Kept:
    """What the rows created and deleted hang on, kept for the whole test."""

    dataset_id: int
    evaluation_id: int
    bundle_id: int


def create_and_delete(chap: ChapClient, kept: Kept) -> dict[str, int]:
    """One row of each kind created and deleted again; their ids by kind."""
    frame = small_frame(n_years=2)
    geojson = geojson_for(sorted(set(frame.location)))
    ids = {
        "dataset": chap.create_dataset("passing", frame, geojson=geojson).id,
        "evaluation": chap.create_evaluation_row("passing", "naive_model", kept.dataset_id).id,
        "prediction": chap.create_prediction_row("passing", kept.dataset_id, kept.bundle_id).id,
        "prediction setup": chap.create_prediction_setup(kept.evaluation_id, "passing").id,
        "alert policy": chap.create_alert_policy("passing", LEVELS).id,
    }
    chap.delete_prediction_setup(ids["prediction setup"])
    chap.delete_prediction(ids["prediction"])
    chap.delete_evaluation(ids["evaluation"])
    chap.delete_dataset(ids["dataset"])
    chap.delete_alert_policy(ids["alert policy"])
    return ids


def test_a_deleted_rows_id_is_never_handed_out_again(
    new_database_url: Callable[[str], str],
) -> None:
    database = new_database_url("ids")
    with serving(database, seed_demo=True) as chap:
        (demo,) = chap.list_evaluations()
        bundle = chap.create_configured_model_with_data_source_from_evaluation(demo.id)
        kept = Kept(demo.dataset_id, demo.id, bundle.id)
        first = create_and_delete(chap, kept)
        second = create_and_delete(chap, kept)
    with serving(database) as chap:
        third = create_and_delete(chap, kept)
    for kind, first_id in first.items():
        assert first_id < second[kind] < third[kind], kind


def test_a_database_of_schema_version_7_keeps_its_ids_and_counts_on_after_its_jobs_results(
    new_database_url: Callable[[str], str],
) -> None:
    database = new_database_url("v7ids")
    frame = small_frame(n_years=2)
    with serving(database, seed_demo=True) as chap:
        dataset = chap.create_dataset(
            "kept", frame, geojson=geojson_for(sorted(set(frame.location)))
        )
        evaluation = chap.run_evaluation("made by a job", "naive_model", dataset.id, 2, 2)
        job = next(job for job in chap.list_jobs() if job.result == str(evaluation.id))
        chap.delete_evaluation(evaluation.id)  # the newest: SQLite would hand its id out again
        policy = chap.create_alert_policy("kept", LEVELS)
    engine = create_engine(database)
    with engine.begin() as connection:  # what a version-7 chaplab stored: no counters
        connection.exec_driver_sql("DROP TABLE id_counters")
        connection.exec_driver_sql("UPDATE schema_version SET version = 7")
        highest = connection.execute(select(func.max(EvaluationRow.id))).scalar_one()
    assert highest < evaluation.id
    with serving(database) as chap:
        assert chap.get_alert_policy(policy.id).name == "kept"
        assert chap.get_job(job.id).result == str(evaluation.id)
        after = chap.create_evaluation_row("after the migration", "naive_model", dataset.id)
        assert after.id == evaluation.id + 1
        assert chap.create_alert_policy("after the migration", LEVELS).id == policy.id + 1
    with engine.connect() as connection:
        assert connection.exec_driver_sql("SELECT version FROM schema_version").all() == [
            (SCHEMA_VERSION,)
        ]
    engine.dispose()
