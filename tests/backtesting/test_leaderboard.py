"""One leaderboard: a local backtest, the service's evaluations and an ensemble of them scored,
ranked and charted together."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import matplotlib
import pandas as pd
import pytest

import chaplab
from chaplab import scoring
from chaplab.client import ChapClient
from chaplab.plotting import leaderboard_chart, score_heatmap

from .models import predict_spread, train_last

matplotlib.use("Agg")

pytestmark = pytest.mark.integration

SETTINGS = {"n_splits": 3, "n_periods": 2, "stride": 1}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChapClient]:
    from chaplab.service.app import create_app
    from chaplab.toolkit import BackgroundServer

    database = Path(tmp_path_factory.mktemp("leaderboard_service")) / "chaplab.db"
    with (
        BackgroundServer(create_app(str(database), workers=1)) as server,
        ChapClient(server.url) as connected,
    ):
        yield connected


def test_local_served_and_ensembled_forecasts_share_one_leaderboard(client: ChapClient) -> None:
    dataset = client.list_datasets()[0]
    served: dict[str, pd.DataFrame] = {}
    actuals = None
    for template in ("naive_model", "seasonal_naive"):
        model = client.create_configured_model("board", template)
        evaluation = client.run_evaluation(template, model, dataset.id, **SETTINGS, timeout=120)
        served[template] = client.evaluation_frame(evaluation.id)
        actuals = client.actual_cases(evaluation.id)
    assert actuals is not None
    local = chaplab.backtest(
        train_last,
        predict_spread,
        client.dataset_frame(dataset.id),
        geojson=client.get_dataset(dataset.id).geojson,
        progress=False,
        **SETTINGS,
    )
    members = {**served, "mine": local}
    forecasts = {
        **members,
        "ensemble": scoring.ensemble(members),
        "skill_ensemble": scoring.ensemble(members, weights="skill", actuals=actuals),
    }
    scores = scoring.score(forecasts, actuals)
    assert scores.groupby("model", observed=True).size().nunique() == 1  # the same targets
    skill = scoring.relative_skill(scores, baseline="naive_model", n_bootstrap=50)
    assert sorted(skill["model"]) == sorted(forecasts)
    assert skill["relative_skill"].notna().all()
    board = leaderboard_chart(skill)
    labels = [label.get_text() for label in board.axes[0].get_yticklabels()]
    assert sorted(label.split(". ", 1)[1] for label in labels) == sorted(forecasts)
    heatmap = score_heatmap(scores, "wis")
    assert len([ax for ax in heatmap.axes if ax.get_images()]) == len(forecasts)
