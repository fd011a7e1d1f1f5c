"""The database's schema version: a new database gets the current layout, an older one is
migrated in place (keeping what it holds), a newer or unknown one and a foreign database are
refused before anything is written."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import create_engine
from sqlalchemy.orm import Session

from chaplab.client import ChapClient
from chaplab.service import create_app
from chaplab.service.db import SchemaVersionError
from chaplab.toolkit import BackgroundServer

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("version, reason", [(99, "newer chaplab"), (0, "no migration")])
def test_another_schema_version_is_refused_with_a_clear_message(
    tmp_path: Path, version: int, reason: str
) -> None:
    database = tmp_path / "versioned.db"
    create_app(database, seed_demo=False)
    with Session(create_engine(f"sqlite:///{database}")) as session, session.begin():
        session.connection().exec_driver_sql(f"UPDATE schema_version SET version = {version}")
    with pytest.raises(SchemaVersionError, match=reason):
        create_app(database)


def test_a_foreign_database_is_refused(tmp_path: Path) -> None:
    database = tmp_path / "foreign.db"
    with sqlite3.connect(database) as connection:
        connection.execute("CREATE TABLE something (x INTEGER)")
    with pytest.raises(SchemaVersionError, match="not a chaplab database"):
        create_app(database)


def test_a_database_of_schema_version_1_gains_the_new_tables(tmp_path) -> None:
    database = tmp_path / "v1.db"
    create_app(database, seed_demo=False)
    with sqlite3.connect(database) as connection:
        for table in ("registered_templates", "model_runners", "debug_entries"):
            connection.execute(f"DROP TABLE {table}")
        connection.execute("UPDATE schema_version SET version = 1")
    with (
        BackgroundServer(create_app(database, seed_demo=False, workers=1), "127.0.0.1") as server,
        ChapClient(server.url) as chap,
    ):
        assert chap.list_model_runners() == []
        assert chap.create_debug_entry("migrated").id == 1
    with sqlite3.connect(database) as connection:
        assert connection.execute("SELECT version FROM schema_version").fetchone() == (2,)
