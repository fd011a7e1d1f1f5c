"""The database's schema version: a new database gets the current layout, an older one is
migrated in place (keeping what it holds), a newer or unknown one and a foreign database are
refused before anything is written."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlalchemy import create_engine

from chaplab.client import ChapClient
from chaplab.service import create_app
from chaplab.service.db import SCHEMA_VERSION, SchemaVersionError
from chaplab.toolkit import BackgroundServer

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
