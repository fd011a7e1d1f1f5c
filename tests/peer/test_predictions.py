"""A forward prediction on a chap-core server, as a user reads it: listed, its forecast
quantiles for the periods after the data as a frame and a fan chart, then deleted."""

from __future__ import annotations

import httpx
import matplotlib.pyplot as plt
import pandas as pd
import pytest

from chaplab import ChapClient
from chaplab.client import NotFoundError
from chaplab.plotting import fan_chart

from .peer_data import ORG_UNITS
from .peer_requests import make_prediction

FORECAST_MONTHS = [pd.Period(month, freq="M") for month in ("2023-01", "2023-02", "2023-03")]


def test_a_finished_prediction_job_gives_the_listed_prediction(
    peer_client: ChapClient, naive_prediction_job: str
) -> None:
    prediction = peer_client.job_prediction_result(naive_prediction_job)
    assert prediction.name == "peer naive forecast"
    assert prediction.n_periods == 3
    assert sorted(prediction.org_units) == sorted(ORG_UNITS)
    assert prediction.id in {listed.id for listed in peer_client.list_predictions()}
    assert peer_client.get_prediction(prediction.id).name == "peer naive forecast"


def test_the_prediction_frame_forecasts_the_months_after_the_data(
    peer_client: ChapClient, naive_prediction_job: str
) -> None:
    prediction = peer_client.job_prediction_result(naive_prediction_job)
    frame = peer_client.prediction_frame(prediction.id)
    assert set(frame["org_unit"]) == set(ORG_UNITS)
    assert sorted(frame["period"].unique()) == FORECAST_MONTHS
    assert sorted(frame["quantile"].unique()) == [0.1, 0.25, 0.5, 0.75, 0.9]
    for _, forecast in frame.groupby(["org_unit", "period"], observed=True):
        assert forecast.sort_values("quantile")["value"].is_monotonic_increasing
    assert len(peer_client.prediction_entries(prediction.id)) == len(frame)
    figure = fan_chart(frame)
    try:
        # panels titled with the places' names, which the frames carry from the GeoJSON
        assert [axes.get_title() for axes in figure.axes] == sorted(ORG_UNITS.values())
    finally:
        plt.close(figure)


def test_a_deleted_prediction_is_gone(
    peer_client: ChapClient, peer_http: httpx.Client, dataset_table: pd.DataFrame
) -> None:
    """On a prediction of its own: the shared one stays for the other tests, in any order."""
    job = make_prediction(
        peer_client, peer_http, "peer doomed forecast", "naive_model", dataset_table, n_periods=1
    )
    prediction = peer_client.job_prediction_result(job)
    peer_client.delete_prediction(prediction.id)
    assert prediction.id not in {listed.id for listed in peer_client.list_predictions()}
    with pytest.raises(NotFoundError):
        peer_client.get_prediction(prediction.id)
