"""Guard rails that hold on chap-core 2.5.1 as on our service, each case run on both: a name
stands for one configured model, and times from the two servers compare.

chap-core keeps none of these rules itself; the client keeps them there (docs/client.md)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from chaplab import ChapClient
from chaplab.client import ConflictError

from .peer_data import observation_table, org_unit_geojson


@pytest.fixture(scope="module")
def ours(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChapClient]:
    """A client of our embedded service on a fresh database, without the demo content."""
    from chaplab.service.app import create_app
    from chaplab.toolkit import BackgroundServer

    database = Path(tmp_path_factory.mktemp("guard_rails")) / "chaplab.db"
    with (
        BackgroundServer(create_app(str(database), workers=1, seed_demo=False)) as server,
        ChapClient(server.url) as client,
    ):
        yield client


@pytest.fixture(scope="module")
def servers(peer_client: ChapClient, ours: ChapClient) -> dict[str, ChapClient]:
    return {"chap-core": peer_client, "ours": ours}


@pytest.mark.parametrize("server", ["chap-core", "ours"])
def test_a_configured_model_name_stands_for_one_configuration(
    servers: dict[str, ChapClient], server: str
) -> None:
    client = servers[server]
    template = next(t for t in client.list_model_templates() if t.name == "naive_model")
    first = client.create_configured_model("guard-rails", template.id, {})
    again = client.create_configured_model("guard-rails", template.id, {})
    assert again.id == first.id
    with pytest.raises(ConflictError) as refused:
        client.create_configured_model("guard-rails", template.id, {}, ["rainfall"])
    assert str(refused.value) == (
        f"configured model 'naive_model:guard-rails' (id {first.id}) exists with "
        "additional_continuous_covariates [] (asked for ['rainfall']); choose another name for "
        "other options"
    )
    named = [m for m in client.list_configured_models() if m.name == "naive_model:guard-rails"]
    assert [(m.id, m.additional_continuous_covariates) for m in named] == [(first.id, [])]


def test_times_from_both_servers_compare(servers: dict[str, ChapClient]) -> None:
    """chap-core sends UTC without an offset, our service with one: both read as aware times."""
    table = observation_table().rename(columns={"period": "time_period", "org_unit": "location"})
    created = {}
    for server, client in servers.items():
        dataset = client.create_dataset("guard rails, times", table, org_unit_geojson())
        created[server] = dataset.created
        client.delete_dataset(dataset.id)
    assert all(time is not None and time.utcoffset() is not None for time in created.values())
    assert abs(created["chap-core"] - created["ours"]).total_seconds() < 3600
