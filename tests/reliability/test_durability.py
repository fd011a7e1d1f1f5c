"""Durability settings of the service's SQLite file: WAL with synchronous writes (every answered
write survives a kill), and a database of another schema version is refused with a clear message
and left untouched."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import httpx
import pytest

from .serve_process import ServeProcess

JOURNAL_MODE_WAL = "wal"
SYNCHRONOUS_FULL = 2


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def new_database(tmp_path: Path) -> Path:
    from chaplab.service.db import make_engine, prepare_database

    database = tmp_path / "chaplab.db"
    engine = make_engine(f"sqlite:///{database}")
    prepare_database(engine)
    engine.dispose()
    return database


def test_connections_use_wal_and_full_synchronous_writes(tmp_path: Path) -> None:
    from chaplab.service.db import make_engine

    engine = make_engine(f"sqlite:///{tmp_path / 'chaplab.db'}")
    with engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == JOURNAL_MODE_WAL
        assert connection.exec_driver_sql("PRAGMA synchronous").scalar() == SYNCHRONOUS_FULL
        assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar() > 0
    engine.dispose()


def test_an_answered_write_survives_an_immediate_kill(tmp_path: Path) -> None:
    with ServeProcess(tmp_path / "chaplab.db", tmp_path, "--no-demo") as service:
        service.start()
        created = httpx.post(
            f"{service.url}/v1/crud/configured-models",
            timeout=30,
            json={"name": "durable", "modelTemplateId": 1},
        ).json()
        service.kill()
        with sqlite3.connect(tmp_path / "chaplab.db") as connection:
            assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        service.start()
        listed = httpx.get(f"{service.url}/v1/crud/configured-models", timeout=30).json()
    assert [model["name"] for model in listed if model["id"] == created["id"]] == [created["name"]]


@pytest.mark.parametrize("version, reason", [(0, "no migration"), (99, "newer chaplab")])
def test_a_database_of_another_schema_version_is_refused_and_left_untouched(
    new_database: Path, tmp_path: Path, version: int, reason: str
) -> None:
    with sqlite3.connect(new_database) as connection:
        connection.execute("UPDATE schema_version SET version = ?", (version,))
    connection.close()
    before = digest(new_database)
    with ServeProcess(new_database, tmp_path) as service, pytest.raises(RuntimeError) as caught:
        service.start()
    message = str(caught.value)
    assert f"schema version {version}" in message and reason in message
    assert "Traceback" not in message
    assert digest(new_database) == before


def test_a_file_that_is_not_a_chaplab_database_is_refused_and_left_untouched(
    tmp_path: Path,
) -> None:
    foreign = tmp_path / "other.db"
    with sqlite3.connect(foreign) as connection:
        connection.execute("CREATE TABLE patients (id INTEGER PRIMARY KEY, name TEXT)")
        connection.execute("INSERT INTO patients (name) VALUES ('kept')")
    connection.close()
    before = digest(foreign)
    with ServeProcess(foreign, tmp_path) as service, pytest.raises(RuntimeError) as caught:
        service.start()
    assert "not a chaplab database" in str(caught.value)
    assert digest(foreign) == before, "refusing the file changed it (journal mode set to WAL?)"
