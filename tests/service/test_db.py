"""The database's schema version: a new database gets the current layout, an older one is
migrated in place (keeping what it holds), a newer or unknown one and a foreign database are
refused before anything is written."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest
from sqlalchemy import create_engine, update

from chaplab.client import ChapClient
from chaplab.service import create_app
from chaplab.service.db import SCHEMA_VERSION, SchemaVersionError
from chaplab.service.tables import EvaluationRow
from chaplab.toolkit import BackgroundServer
from chaplab.vocabulary import previous_period

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("version, reason", [(99, "newer chaplab"), (0, "no migration")])
def test_another_schema_version_is_refused_with_a_clear_message(
    new_database_url: Callable[[str], str], version: int, reason: str
) -> None:
    database = new_database_url("versioned")
    create_app(database, seed_demo=False)
    engine = create_engine(database)
    with engine.begin() as connection:
        connection.exec_driver_sql(f"UPDATE schema_version SET version = {version}")
    engine.dispose()
    with pytest.raises(SchemaVersionError, match=reason):
        create_app(database)


def test_a_foreign_database_is_refused(new_database_url: Callable[[str], str]) -> None:
    database = new_database_url("foreign")
    engine = create_engine(database)
    with engine.begin() as connection:
        connection.exec_driver_sql("CREATE TABLE something (x INTEGER)")
    engine.dispose()
    with pytest.raises(SchemaVersionError, match="not a chaplab database"):
        create_app(database)


def test_a_database_of_schema_version_1_gains_the_new_tables(
    new_database_url: Callable[[str], str],
) -> None:
    database = new_database_url("v1")
    create_app(database, seed_demo=False)
    engine = create_engine(database)
    with engine.begin() as connection:
        for table in ("registered_templates", "model_runners", "debug_entries"):
            connection.exec_driver_sql(f"DROP TABLE {table}")
        connection.exec_driver_sql("UPDATE schema_version SET version = 1")
    with (
        BackgroundServer(create_app(database, seed_demo=False, workers=1), "127.0.0.1") as server,
        ChapClient(server.url) as chap,
    ):
        assert chap.list_model_runners() == []
        assert chap.create_debug_entry("migrated").id == 1
    with engine.connect() as connection:
        assert connection.exec_driver_sql("SELECT version FROM schema_version").all() == [
            (SCHEMA_VERSION,)
        ]
    engine.dispose()


def test_a_database_of_schema_version_4_names_its_splits_by_their_first_forecast_period(
    new_database_url: Callable[[str], str],
) -> None:
    """Version 4 named a split by the last period its model saw; version 5 by the first period
    it forecasts (as chap-core does). The migration renames the splits and keeps every entry."""
    database = new_database_url("v4splits")
    with (
        BackgroundServer(create_app(database, workers=1), "127.0.0.1") as server,
        ChapClient(server.url) as chap,
    ):
        (demo,) = chap.list_evaluations()  # the demo's evaluation, run while seeding
        unrun = chap.create_evaluation_row("never run", demo.model_id, demo.dataset_id)
        entries = chap.evaluation_entries(demo.id, [0.1, 0.5, 0.9])
    first_periods = {
        split: min(e.period for e in entries if e.split_period == split)
        for split in demo.split_periods
    }
    assert first_periods == {split: split for split in demo.split_periods}
    engine = create_engine(database)
    evaluations = EvaluationRow.__table__
    version_4_labels = [previous_period(split) for split in demo.split_periods]
    with engine.begin() as connection:  # the labels and version a version-4 chaplab wrote
        connection.execute(
            update(evaluations)
            .where(evaluations.c.id == demo.id)
            .values(split_periods=version_4_labels)
        )
        connection.exec_driver_sql("UPDATE schema_version SET version = 4")
    with (
        BackgroundServer(create_app(database, seed_demo=False, workers=1), "127.0.0.1") as server,
        ChapClient(server.url) as chap,
    ):
        migrated = chap.get_evaluation(demo.id)
        assert migrated.split_periods == demo.split_periods
        assert chap.evaluation_entries(demo.id, [0.1, 0.5, 0.9]) == entries
        assert chap.get_evaluation(unrun.id).split_periods == []
        assert [e.id for e in chap.list_evaluations()] == [demo.id, unrun.id]
        newest = demo.split_periods[-1]
        assert {e.split_period for e in chap.evaluation_entries(demo.id, [0.5], newest)} == {newest}
        # on the wire, the first split's version-4 label (the period before it) matches nothing
        old_filter = {"backtestId": demo.id, "quantiles": 0.5, "splitPeriod": version_4_labels[0]}
        answer = httpx.get(f"{server.url}/v1/analytics/evaluation-entry", params=old_filter)
        assert answer.status_code == 200 and answer.json() == []
        # an evaluation run now with the same settings has the same splits, so the two compare
        again = chap.run_evaluation(
            "after the migration",
            demo.model_id,
            demo.dataset_id,
            n_periods=demo.n_periods,
            n_splits=demo.n_splits,
            stride=demo.stride,
            timeout=120,
        )
        assert again.split_periods == migrated.split_periods
        assert chap.evaluation_overlap(demo.id, again.id).split_periods == demo.split_periods
        assert demo.id in [e.id for e in chap.compatible_evaluations(again.id)]
    with engine.connect() as connection:
        assert connection.exec_driver_sql("SELECT version FROM schema_version").all() == [
            (SCHEMA_VERSION,)
        ]
    engine.dispose()
