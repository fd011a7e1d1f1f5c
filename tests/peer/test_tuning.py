"""``client.tune`` on chap-core 2.5.1 and on our service: a real chapkit model (``scaled_mean``,
whose forecast is ``scale`` times each place's mean) tuned over ``scale``, one configured model
per value named by it, run as one batch with chap-core's baselines; both servers answer the same
leaderboard, and a rerun on chap-core reuses the configured models."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pandas as pd
import pytest

from chaplab import ChapClient
from chaplab.client import Dataset
from chaplab.service import create_app
from chaplab.toolkit import BackgroundServer
from chaplab.tuning import Tuning

from .chapkit_services import scaled_mean
from .peer_data import DATASET_NAME, observation_table, org_unit_geojson

GRID = {"scale": [0.5, 1.0, 2.0]}
SETTINGS = {"n_periods": 3, "n_splits": 3, "timeout": 900}
CONFIGURATIONS = ["scale=0.5", "scale=1", "scale=2"]


@pytest.fixture(scope="module")
def ours(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChapClient]:
    database = tmp_path_factory.mktemp("tune-ours") / "chaplab.db"
    with (
        BackgroundServer(create_app(database, workers=2, seed_demo=False), "127.0.0.1") as server,
        ChapClient(server.url) as client,
    ):
        table = observation_table().rename(
            columns={"org_unit": "location", "period": "time_period"}
        )
        client.create_dataset(DATASET_NAME, table, geojson=org_unit_geojson())
        log = tmp_path_factory.mktemp("scaled-mean-tune-ours") / "service.log"
        with scaled_mean(server.url, "scaled-mean-tune", log):
            client.register_template_from_service("scaled-mean-tune")
            yield client


@pytest.fixture(scope="module")
def on_chap_core(
    peer_client: ChapClient,
    peer_url: str,
    peer_dataset: Dataset,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Tuning, Tuning, int]]:
    """The tune on chap-core, its rerun, and how many configured models the rerun added."""
    log = tmp_path_factory.mktemp("scaled-mean-tune-peer") / "service.log"
    with scaled_mean(peer_url, "scaled-mean-tune", log):
        template = peer_client.register_template_from_service("scaled-mean-tune")
        first = peer_client.tune(template.id, peer_dataset.id, GRID, **SETTINGS)
        count = len(peer_client.list_configured_models(include_archived=True))
        again = peer_client.tune(template.id, peer_dataset.id, [{"scale": 2.0}], **SETTINGS)
        added = len(peer_client.list_configured_models(include_archived=True)) - count
        yield first, again, added


def test_a_tune_on_chap_core_ranks_the_configurations_beside_its_baselines(
    on_chap_core: tuple[Tuning, Tuning, int], peer_client: ChapClient
) -> None:
    tuned, again, added = on_chap_core
    assert tuned.configurations["configuration"].tolist() == CONFIGURATIONS
    assert set(tuned.skill["model"]) == {
        *CONFIGURATIONS,
        "persistence",
        "seasonal_median",
        "global_median",
    }
    assert tuned.baseline == "seasonal_median"
    assert tuned.best in CONFIGURATIONS
    names = {model.name for model in peer_client.list_configured_models()}
    assert {f"scaled-mean-tune:{name}" for name in CONFIGURATIONS} <= names
    assert added == 0  # the rerun found its configured model by name
    assert again.configurations["configuration"].tolist() == ["scale=2"]


def test_both_servers_answer_the_same_leaderboard(
    on_chap_core: tuple[Tuning, Tuning, int], ours: ChapClient
) -> None:
    theirs = on_chap_core[0]
    dataset = next(d for d in ours.list_datasets() if d.name == DATASET_NAME)
    mine = ours.tune("scaled-mean-tune", dataset.id, GRID, **SETTINGS)
    columns = ["configuration", "org_unit", "split_period", "period", "quantile", "value"]
    pd.testing.assert_frame_equal(
        mine.forecasts[columns].astype({"org_unit": str}).reset_index(drop=True),
        theirs.forecasts[columns].astype({"org_unit": str}).reset_index(drop=True),
        check_exact=False,
        rtol=1e-6,
    )
    ranked = [name for name in mine.skill["model"] if name in CONFIGURATIONS]
    assert ranked == [name for name in theirs.skill["model"] if name in CONFIGURATIONS]
    assert mine.best == theirs.best
    ours_scores = mine.skill.set_index("model").loc[CONFIGURATIONS, "mean_score"]
    their_scores = theirs.skill.set_index("model").loc[CONFIGURATIONS, "mean_score"]
    assert np.allclose(ours_scores, their_scores, rtol=1e-5)
