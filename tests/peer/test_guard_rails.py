"""Guard rails that hold on chap-core 2.5.1 as on our service, each case run on both where it
can happen on both: nothing the client keeps is taken for a record stored later under the
same id (chap-core gives a deleted last row's id again; our service never does), a dataset in
use is deleted only with what uses it, a name stands for one configured model, and times from
the two servers compare.

chap-core keeps none of these rules itself; the client keeps them there (docs/client.md)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pandas as pd
import pytest

from chaplab import ChapClient
from chaplab.client import ConflictError, OrphanedRecordError
from panels import loaded_panel

from .chapkit_services import scaled_mean
from .peer_data import observation_table, org_unit_geojson
from .peer_requests import wait_for_pending_jobs


@pytest.fixture(scope="module")
def ours(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChapClient]:
    """A client of our embedded service on a fresh database (with its demo content, which
    configures naive_model)."""
    from chaplab.service.app import create_app
    from chaplab.toolkit import BackgroundServer

    database = Path(tmp_path_factory.mktemp("guard_rails")) / "chaplab.db"
    with (
        BackgroundServer(create_app(str(database), workers=1)) as server,
        ChapClient(server.url) as client,
    ):
        yield client


@pytest.fixture(scope="module")
def servers(peer_client: ChapClient, ours: ChapClient) -> dict[str, ChapClient]:
    return {"chap-core": peer_client, "ours": ours}


def wide_table() -> pd.DataFrame:
    """The peer tests' observations as a wide frame (``time_period``, ``location``, features)."""
    return observation_table().rename(columns={"period": "time_period", "org_unit": "location"})


def places(*names: str) -> dict[str, Any]:
    """The peer tests' polygons with the org units named ``names``."""
    geojson = org_unit_geojson()
    for feature, name in zip(geojson["features"], names, strict=True):
        feature["properties"]["name"] = name
    return geojson


def names_in(frame: pd.DataFrame) -> dict[str, str]:
    """Org unit -> its name, as a frame pairs them."""
    pairs = frame[["org_unit", "org_unit_name"]].astype(str).drop_duplicates()
    return dict(zip(pairs["org_unit"], pairs["org_unit_name"], strict=True))


def evaluated(client: ChapClient, name: str, dataset_id: int) -> int:
    """The id of a finished evaluation of naive_model on ``dataset_id``, once every job the
    server queued with it (chap-core's baseline runs) has ended."""
    evaluation = client.run_evaluation(name, "naive_model", dataset_id, 3, 2, timeout=600)
    wait_for_pending_jobs(client)
    return evaluation.id


def test_a_dataset_stored_again_under_a_deleted_ones_id_is_named_afresh(
    peer_client: ChapClient,
) -> None:
    """chap-core 2.5.1 gives a deleted last row's id to the next one stored: in the same
    client, the new dataset's evaluation is named by the new places."""
    first = peer_client.create_dataset("guard rails, first", wide_table(), places("Alpha", "Beta"))
    old = evaluated(peer_client, "guard rails, old", first.id)
    assert names_in(peer_client.evaluation_frame(old)) == {"OU_North": "Alpha", "OU_South": "Beta"}
    peer_client.delete_dataset(first.id, force=True)
    second = peer_client.create_dataset("guard rails, second", wide_table(), places("Nord", "Sud"))
    assert second.id == first.id  # the id given again
    new = evaluated(peer_client, "guard rails, new", second.id)
    expected = {"OU_North": "Nord", "OU_South": "Sud"}
    assert names_in(peer_client.evaluation_frame(new)) == expected
    assert names_in(peer_client.actual_cases(new)) == expected
    # kept: chap-core on SQLite keeps a deleted dataset's backtest specification, and lists
    # every specification again only while a dataset has its id (see the next test)


def test_an_evaluation_left_by_a_delete_made_elsewhere_is_named_with_how_to_remove_it(
    peer_client: ChapClient, peer_http: httpx.Client
) -> None:
    """Another client deletes a dataset under an evaluation, as chap-core 2.5.1 lets it: the
    lists and reads that chap-core answers with a 500 name the evaluation instead."""
    dataset = peer_client.create_dataset("guard rails, elsewhere", wide_table(), org_unit_geojson())
    evaluation_id = evaluated(peer_client, "guard rails, left behind", dataset.id)
    references = {e.id for e in peer_client.list_evaluations(dataset_id=dataset.id)}
    assert peer_http.delete(f"/v1/crud/datasets/{dataset.id}").status_code == 200
    with pytest.raises(OrphanedRecordError) as listing:
        peer_client.list_evaluations()
    # with the baseline runs chap-core made with the first evaluation of the dataset
    assert listing.value.ids == sorted(references) and len(references) > 1
    said = str(listing.value)
    assert said.startswith(
        f"the server cannot list evaluations: evaluations {evaluation_id} ('guard rails, left "
        "behind'), "
    )
    assert said.endswith(
        "refer to datasets that were deleted; remove them with "
        f"client.delete_evaluations({sorted(references)})"
    )
    one = (
        f"evaluation {evaluation_id} refers to a dataset that was deleted, so the server cannot "
        f"read it; remove it with client.delete_evaluation({evaluation_id})"
    )
    for read in (
        peer_client.get_evaluation,
        peer_client.evaluation_frame,
        peer_client.actual_cases,
        lambda evaluation: peer_client.evaluation_plot("evaluation_plot", evaluation),
    ):
        with pytest.raises(OrphanedRecordError) as reading:
            read(evaluation_id)
        assert str(reading.value) == one
    peer_client.delete_evaluations(listing.value.ids)  # as the error says
    assert evaluation_id not in {e.id for e in peer_client.list_evaluations()}
    again = peer_client.create_dataset("guard rails, after", wide_table(), org_unit_geojson())
    assert again.id == dataset.id  # its backtest specification listed again (see below)


@pytest.mark.parametrize("server", ["chap-core", "ours"])
def test_a_dataset_in_use_is_deleted_only_with_what_uses_it(
    servers: dict[str, ChapClient], server: str
) -> None:
    client = servers[server]
    dataset = client.create_dataset("guard rails, in use", wide_table(), org_unit_geojson())
    evaluation_id = evaluated(client, "guard rails, in use", dataset.id)
    users = {evaluation.id for evaluation in client.list_evaluations(dataset_id=dataset.id)}
    assert evaluation_id in users  # with chap-core's baseline runs, which its list leaves out
    with pytest.raises(ConflictError) as refused:
        client.delete_dataset(dataset.id)
    said = str(refused.value)
    assert said.startswith(f"dataset {dataset.id} is used by evaluation")
    assert f"{evaluation_id} ('guard rails, in use')" in said
    assert dataset.id in {listed.id for listed in client.list_datasets()}
    deletion = client.delete_dataset(dataset.id, force=True)
    assert set(deletion.evaluation_ids) == users
    assert dataset.id not in {listed.id for listed in client.list_datasets()}
    assert not users & {evaluation.id for evaluation in client.list_evaluations()}
    client.list_backtest_specifications()  # chap-core keeps the dataset's, and fails to list it
    if server == "chap-core":  # a dataset taking the id back ends that for the tests after this
        again = client.create_dataset("guard rails, after", wide_table(), org_unit_geojson())
        assert again.id == dataset.id


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
@pytest.mark.parametrize("server", ["chap-core", "ours"])
async def test_a_model_whose_service_stopped_is_marked_and_not_launched(
    servers: dict[str, ChapClient], server: str, tmp_path: Path
) -> None:
    """A chapkit model service stops (and deregisters): its configured model is listed as
    missing its service, in the client and the panel, whose launcher refuses it before
    launch."""
    client = servers[server]
    service_id = f"guard-rails-{server}"
    with scaled_mean(client.base_url, service_id, tmp_path / "service.log"):
        template = client.register_template_from_service(service_id)
        model = client.create_configured_model("stopping", template.id, {"scale": 2.0})
        listed = {m.name: m for m in client.list_configured_models()}[model.name]
        assert (listed.health_status, listed.service_missing) == ("live", False)
    deadline = time.monotonic() + 60
    while not {m.name: m for m in client.list_configured_models()}[model.name].service_missing:
        assert time.monotonic() < deadline, "the stopped service is still listed as registered"
        await asyncio.sleep(0.5)
    async with loaded_panel(client.base_url) as panel:
        [row] = [row for row in panel.models.rows if row["name"] == model.name]
        assert row["service"] == "not registered"
        panel.models.select(model.id)
        assert panel.launcher.button.disabled
        assert "runs on a model service that is not registered now" in (
            panel.launcher.problem.value
        )


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
    created = {}
    for server, client in servers.items():
        dataset = client.create_dataset("guard rails, times", wide_table(), org_unit_geojson())
        created[server] = dataset.created
        client.delete_dataset(dataset.id)
    assert all(time is not None and time.utcoffset() is not None for time in created.values())
    assert abs(created["chap-core"] - created["ours"]).total_seconds() < 3600
