"""Entries streamed from the stored samples: read split by split from SQLite, the same bytes as
the whole-body writer, and the connection given back however the stream ends."""

from __future__ import annotations

from pathlib import Path

import httpx
import numpy as np
import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.orm import Session

from chaplab.client import ChapClient
from chaplab.service import gridjson
from chaplab.service.entries import (
    EvaluationLayout,
    StoredSplits,
    evaluation_entries_json,
    evaluation_entries_stream,
)
from chaplab.service.storage import samples_from_bytes
from chaplab.service.tables import EvaluationRow

SHAPE = (4, 3, 2, 10)
UNITS = ["OU_A", "Ünïcode", "OU_C"]
SPLITS = ["202001", "202002", "202003", "202004"]
PERIODS = [[f"2020{m + k:02d}" for m in (2, 3)] for k in range(4)]
LAYOUT = EvaluationLayout(UNITS, SPLITS, PERIODS)


@pytest.fixture
def stored(tmp_path: Path) -> tuple:
    """An engine on a SQLite file holding one evaluation's samples, and those samples."""
    samples = np.sort(np.random.default_rng(5).normal(50, 9, SHAPE).astype(np.float32), axis=-1)
    engine = create_engine(f"sqlite:///{tmp_path / 'samples.db'}")
    with engine.begin() as connection:
        connection.execute(text("CREATE TABLE evaluations (id INTEGER PRIMARY KEY, samples BLOB)"))
        connection.execute(
            text("INSERT INTO evaluations VALUES (7, :blob)"), {"blob": samples.tobytes()}
        )
    yield engine, samples
    engine.dispose()


def test_stored_splits_read_each_split_and_give_the_connection_back(stored: tuple) -> None:
    engine, samples = stored
    splits = StoredSplits(engine, "evaluations", 7, SHAPE)
    assert np.array_equal(splits(1, 3), samples[1:3])
    assert engine.pool.checkedout() == 1
    splits.close()
    splits.close()
    assert engine.pool.checkedout() == 0


def test_a_stream_from_stored_splits_is_the_whole_body(
    stored: tuple, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine, samples = stored
    monkeypatch.setattr(gridjson, "BLOCK_ROWS", 4)  # one split of adm0's 2 periods x 2 levels
    expected = evaluation_entries_json(samples, LAYOUT, [0.1, 0.5], None, ["adm0"])
    stream = evaluation_entries_stream(
        StoredSplits(engine, "evaluations", 7, SHAPE),
        LAYOUT,
        [0.1, 0.5],
        requested_org_units=["adm0"],
    )
    chunks = [bytes(chunk) for chunk in stream.chunks]
    assert len(chunks) == 4 and b"".join(chunks) == expected and stream.length is None
    assert engine.pool.checkedout() == 0


def test_an_abandoned_stream_gives_the_connection_back(
    stored: tuple, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine, _ = stored
    monkeypatch.setattr(gridjson, "BLOCK_ROWS", 6)  # one split of 3 org units x 2 periods
    stream = evaluation_entries_stream(StoredSplits(engine, "evaluations", 7, SHAPE), LAYOUT, [0.5])
    next(stream.chunks)
    assert engine.pool.checkedout() == 1
    stream.chunks.close()
    assert engine.pool.checkedout() == 0
    unstarted = evaluation_entries_stream(
        StoredSplits(engine, "evaluations", 7, SHAPE), LAYOUT, [0.5]
    )
    unstarted.chunks.close()
    assert engine.pool.checkedout() == 0


def test_the_evaluation_entry_route_sends_the_stored_entries(
    client: ChapClient, service_url: str, service_database: str
) -> None:
    demo = next(e for e in client.list_evaluations() if e.model_id == "naive_model")
    engine = create_engine(service_database)
    with Session(engine) as session:
        row = session.get_one(EvaluationRow, demo.id)
        shape = (row.n_splits, len(row.org_units), row.n_periods, row.n_samples)
        samples = samples_from_bytes(row.samples, shape)
        args = (samples, EvaluationLayout(row.org_units, row.split_periods, row.periods))
        first_unit, last_split = row.org_units[0], row.split_periods[-1]
    engine.dispose()
    queries = [
        ({"quantiles": [0.1, 0.5, 0.9]}, (), ()),
        ({"quantiles": [0.5], "splitPeriod": last_split}, (last_split,), ()),
        ({"quantiles": [0.25], "orgUnits": ["adm0", first_unit]}, (None,), (["adm0", first_unit],)),
    ]
    for params, split, units in queries:
        answer = httpx.get(
            f"{service_url}/v1/analytics/evaluation-entry",
            params={"backtestId": demo.id, **params},
        )
        assert answer.status_code == 200
        assert answer.headers["content-type"] == "application/json"
        assert answer.content == evaluation_entries_json(*args, params["quantiles"], *split, *units)
