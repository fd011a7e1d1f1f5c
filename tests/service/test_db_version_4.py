"""Schema version 4: a version-3 database gains the tables new in version 4 (prediction setups,
their forecast history, jobs' requests, alert policies, alerts) and its evaluations their
future-weather provider, and keeps what it held."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest
from sqlalchemy import create_engine, inspect

from chaplab.service import create_app
from chaplab.service.db import SCHEMA_VERSION
from chaplab.toolkit import BackgroundServer

pytestmark = pytest.mark.integration

VERSION_4_TABLES = (  # dependents first, so that they can be dropped in this order
    "alerts",
    "alert_policies",
    "job_requests",
    "prediction_setup_forecasts",
    "prediction_setups",
)


def test_a_database_of_schema_version_3_gains_the_version_4_tables(
    new_database_url: Callable[[str], str],
) -> None:
    database = new_database_url("v3")
    create_app(database, seed_demo=False)
    engine = create_engine(database)
    with engine.begin() as connection:
        for table in VERSION_4_TABLES:
            connection.exec_driver_sql(f"DROP TABLE {table}")
        connection.exec_driver_sql("ALTER TABLE evaluations DROP COLUMN future_weather_provider")
        connection.exec_driver_sql(
            "INSERT INTO debug_entries (id, message, details, created) "
            "VALUES (7, 'kept', '{}', '2026-01-01 00:00:00')"
        )
        connection.exec_driver_sql("UPDATE schema_version SET version = 3")
    assert not set(VERSION_4_TABLES) & set(inspect(engine).get_table_names())
    with (
        BackgroundServer(create_app(database, seed_demo=False, workers=1), "127.0.0.1") as server,
        httpx.Client(base_url=server.url) as http,
    ):
        assert http.get("/v1/crud/debug/7").json()["message"] == "kept"
        assert http.get("/v1/crud/prediction-setups").json() == []
    assert set(VERSION_4_TABLES) <= set(inspect(engine).get_table_names())
    columns = {column["name"]: column for column in inspect(engine).get_columns("evaluations")}
    assert "future_weather_provider" in columns
    assert "climatology" in str(columns["future_weather_provider"]["default"])
    with engine.connect() as connection:
        assert connection.exec_driver_sql("SELECT version FROM schema_version").all() == [
            (SCHEMA_VERSION,)
        ]
    assert SCHEMA_VERSION >= 4
    engine.dispose()
