"""The dataset list: the same datasets as reading each one, read from the columns it shows
only, and current after every write (a dataset stored by a job, a deletion, a reused id)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import event

from chaplab.client import ChapClient
from chaplab.service import create_app
from chaplab.toolkit import BackgroundServer

from .helpers import geojson_for, small_frame

pytestmark = pytest.mark.integration
UNLISTED_FIELDS = ("observations", "geojson")


@pytest.fixture
def own_service(tmp_path: Path) -> Iterator[tuple[ChapClient, Any]]:
    """A service of its own (no demo content, so its ids are known); a client and the app."""
    app = create_app(tmp_path / "list.db", workers=1, seed_demo=False)
    with BackgroundServer(app, "127.0.0.1") as server, ChapClient(server.url) as client:
        yield client, app


def listed(client: ChapClient) -> list[dict[str, Any]]:
    """The list as the service sends it."""
    response = httpx.get(f"{client.base_url}/v1/crud/datasets")
    response.raise_for_status()
    return response.json()


def test_the_list_shows_what_reading_each_dataset_shows(
    own_service: tuple[ChapClient, Any],
) -> None:
    client, _ = own_service
    frame = small_frame(n_years=2)
    client.create_dataset("with polygons", frame, geojson=geojson_for(sorted(set(frame.location))))
    client.create_dataset("two features", frame[["time_period", "location", "rainfall"]])
    datasets = listed(client)
    assert [d["name"] for d in datasets] == ["with polygons", "two features"]
    for dataset in datasets:
        read = httpx.get(f"{client.base_url}/v1/crud/datasets/{dataset['id']}").json()
        assert dataset == {k: v for k, v in read.items() if k not in UNLISTED_FIELDS}
    assert datasets[1]["covariates"] == ["rainfall"]


def test_the_list_shows_a_dataset_stored_by_a_job_and_drops_a_deleted_one_at_once(
    own_service: tuple[ChapClient, Any],
) -> None:
    client, _ = own_service
    assert listed(client) == []
    job = client.wait_for_job(client.make_dataset("built", small_frame(n_years=2)).id, timeout=60)
    assert [(d["id"], d["name"]) for d in listed(client)] == [(int(job.result_id), "built")]
    client.delete_dataset(int(job.result_id))
    assert listed(client) == []


def test_a_dataset_stored_under_a_reused_id_is_listed_as_itself(
    own_service: tuple[ChapClient, Any],
) -> None:
    """SQLite may give a new row the id of the deleted last one: the count and the highest id
    are then what they were before, and the list must still show the new dataset."""
    client, _ = own_service
    frame = small_frame(n_years=2)
    first = client.create_dataset("first", frame)
    second = client.create_dataset("second", frame)
    assert [d["name"] for d in listed(client)] == ["first", "second"]
    client.delete_dataset(second.id)
    client.create_dataset("third", frame[["time_period", "location", "rainfall"]])
    datasets = listed(client)
    assert [d["name"] for d in datasets] == ["first", "third"]
    assert datasets[0]["id"] == first.id
    assert datasets[1]["covariates"] == ["rainfall"]


def test_the_list_reads_neither_feature_values_nor_polygons(
    own_service: tuple[ChapClient, Any],
) -> None:
    """A dataset's values and polygons are megabytes for many org units; the list needs
    neither, so it must not read them (this is what made it slow)."""
    client, app = own_service
    frame = small_frame(n_years=2)
    client.create_dataset("with polygons", frame, geojson=geojson_for(sorted(set(frame.location))))
    engine = app.state.service.factory.kw["bind"]
    statements: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    try:
        assert [d["name"] for d in listed(client)] == ["with polygons"]
    finally:
        event.remove(engine, "before_cursor_execute", record)
    reads = [s for s in statements if "FROM datasets" in s]
    assert len(reads) == 1
    assert "geojson" not in reads[0]
    assert "dataset_features.values" not in reads[0]
