"""``client.tune`` against the embedded service: a template configured once per configuration
of a grid (or of its option schema), run as one batch with the baselines, ranked into the
``Tuning`` that ``chaplab.tune`` answers; a rerun reuses the configured models, a name taken by
other options is refused, and a configuration the schema refuses creates nothing. Both drivers
run the one operation."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from chaplab.client import AsyncChapClient, ChapClient, ConflictError, NameResolutionError
from chaplab.errors import ArgumentError
from chaplab.tuning import Tuning

pytestmark = pytest.mark.integration

SETTINGS = {"n_periods": 2, "n_splits": 3, "timeout": 300}


@pytest.fixture(scope="module")
def service_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from chaplab.service.app import create_app
    from chaplab.toolkit import BackgroundServer

    database = Path(tmp_path_factory.mktemp("tune_service")) / "chaplab.db"
    with BackgroundServer(create_app(str(database), workers=2)) as server:
        yield server.url


@pytest.fixture(scope="module")
def client(service_url: str) -> Iterator[ChapClient]:
    with ChapClient(service_url) as connected:
        yield connected


@pytest.fixture(scope="module")
def tuned(client: ChapClient) -> Tuning:
    dataset = client.list_datasets()[0]
    return client.tune("seasonal_naive", dataset.id, {"n_seasons": [1, 2]}, **SETTINGS)


def test_each_configuration_becomes_a_configured_model_named_by_its_options(
    client: ChapClient, tuned: Tuning
) -> None:
    names = {model.name: model for model in client.list_configured_models()}
    assert {"seasonal_naive:n_seasons=1", "seasonal_naive:n_seasons=2"} <= set(names)
    assert names["seasonal_naive:n_seasons=2"].user_option_values == {"n_seasons": 2}
    assert tuned.configurations["configuration"].tolist() == ["n_seasons=1", "n_seasons=2"]
    assert tuned.configurations["status"].tolist() == ["done", "done"]


def test_the_configurations_and_baselines_share_one_leaderboard(tuned: Tuning) -> None:
    assert tuned.baseline == "seasonal_median"
    assert set(tuned.skill["model"]) == {
        "n_seasons=1",
        "n_seasons=2",
        "persistence",
        "seasonal_median",
        "global_median",
    }
    assert tuned.best in {"n_seasons=1", "n_seasons=2"}
    assert tuned.best_options == {"n_seasons": int(tuned.best[-1])}
    targets = tuned.scores.groupby("model", observed=True).size()
    assert targets.nunique() == 1  # every model scored on the same forecast targets
    assert tuned.forecasts["configuration"].cat.categories.tolist() == [
        "n_seasons=1",
        "n_seasons=2",
    ]
    assert set(tuned.forecasts["split_period"].astype(str).unique()) == set(
        tuned.scores["split_period"].astype(str).unique()
    )
    assert "best: n_seasons=" in repr(tuned)


def test_a_rerun_reuses_the_configured_models(client: ChapClient, tuned: Tuning) -> None:
    before = {model.name: model.id for model in client.list_configured_models()}
    dataset = client.list_datasets()[0]

    async def rerun() -> Tuning:
        async with AsyncChapClient(client.base_url) as async_client:
            return await async_client.tune(
                "seasonal_naive", dataset.id, [{"n_seasons": 2}], **SETTINGS
            )

    again = asyncio.run(rerun())
    after = {model.name: model.id for model in client.list_configured_models()}
    assert after == before
    assert again.configurations["configuration"].tolist() == ["n_seasons=2"]


def test_a_schema_grid_and_the_name_rule_and_the_schemas_refusal(client: ChapClient) -> None:
    dataset = client.list_datasets()[0]
    template = next(t for t in client.list_model_templates() if t.name == "naive_model")
    client.create_configured_model(
        "distribution=poisson", template.id, {"distribution": "negative_binomial"}
    )
    with pytest.raises(ConflictError, match="'naive_model:distribution=poisson'"):
        client.tune("naive_model", dataset.id, None, **SETTINGS)
    count = len(client.list_configured_models(include_archived=True))
    with pytest.raises(ArgumentError, match="configuration n_seasons=30 does not fit"):
        client.tune("seasonal_naive", dataset.id, {"n_seasons": [2, 30]}, **SETTINGS)
    assert len(client.list_configured_models(include_archived=True)) == count
    with pytest.raises(ArgumentError, match="no model template 'no_such_model'"):
        client.tune("no_such_model", dataset.id, **SETTINGS)


def test_a_dataset_name_no_dataset_has_configures_nothing(client: ChapClient) -> None:
    count = len(client.list_configured_models(include_archived=True))
    with pytest.raises(NameResolutionError, match="dataset_id"):
        client.tune("seasonal_naive", "no such dataset", {"n_seasons": [3, 4]}, **SETTINGS)
    assert len(client.list_configured_models(include_archived=True)) == count
