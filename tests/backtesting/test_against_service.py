"""chaplab.backtest against the embedded service's evaluation of the same data and settings:
the same (split_period, period) rows, in the frame evaluation_frame returns."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import chaplab
from chaplab.client import ChapClient
from chaplab.quantiles import quantiles_from_sorted

from .models import predict_spread, train_last

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChapClient]:
    from chaplab.service.app import create_app
    from chaplab.toolkit import BackgroundServer

    database = Path(tmp_path_factory.mktemp("backtest_service")) / "chaplab.db"
    with (
        BackgroundServer(create_app(str(database), workers=1)) as server,
        ChapClient(server.url) as connected,
    ):
        yield connected


@pytest.mark.parametrize(("n_splits", "n_periods", "stride"), [(4, 3, 2), (2, 1, 1)])
def test_the_same_rows_as_the_services_evaluation(
    client: ChapClient, n_splits: int, n_periods: int, stride: int
) -> None:
    dataset = client.list_datasets()[0]
    data = client.dataset_frame(dataset.id)
    geojson = client.get_dataset(dataset.id).geojson
    model = client.create_configured_model(f"rows_{n_splits}_{stride}", "naive_model")
    evaluation = client.run_evaluation(
        "rows",
        model,
        dataset.id,
        n_periods=n_periods,
        n_splits=n_splits,
        stride=stride,
        timeout=120,
    )
    served = client.evaluation_frame(evaluation.id)
    local = chaplab.backtest(
        train_last,
        predict_spread,
        data,
        n_splits=n_splits,
        n_periods=n_periods,
        stride=stride,
        geojson=geojson,
        progress=False,
    )
    assert len(local) == len(served) > 0
    pd.testing.assert_frame_equal(local.drop(columns="value"), served.drop(columns="value"))
    assert [str(p) for p in local["split_period"].unique()] == [
        str(p) for p in served["split_period"].unique()
    ]


def test_quantiles_are_the_services_interpolation_of_the_samples(client: ChapClient) -> None:
    dataset = client.list_datasets()[0]
    data = client.dataset_frame(dataset.id)
    local = chaplab.backtest(
        train_last,
        predict_spread,
        data,
        n_splits=2,
        n_periods=2,
        n_samples=7,
        n_retrain=2,  # each split trained on its own history
        progress=False,
    )
    row = local.iloc[len(local) // 2]
    history = data[
        data["time_period"].astype(str).str.replace("-", "") < row["split_period"].strftime("%Y%m")
    ]
    last = history[history["location"] == row["org_unit"]].sort_values("time_period")
    samples = np.linspace(0.0, 2.0, 7) * last["disease_cases"].iloc[-1]
    expected = quantiles_from_sorted(np.sort(samples.astype(np.float32)), [row["quantile"]])[0]
    assert row["value"] == np.float64(np.float32(expected))
