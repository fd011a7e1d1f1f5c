"""Round trips of a dataset through a server, weekly and monthly, shared by the tests on the
embedded service (``tests/client/test_round_trips.py``) and on chap-core
(``tests/peer/test_round_trips.py``), which import the tests below and give them ``server``.

A dataset of three named places is stored; what ``dataset_frame`` and ``dataset_csv`` give back
(its periods read as ``2020-W53``, ``2020-12``) goes back to ``create_dataset``,
``upload_dataset_csv``, ``run_prediction`` and ``chaplab.backtest`` and keeps every value and
place name. The weekly data ends in the last weeks of 2020, a year of 53 ISO weeks, so the
forecasts cross ``2020-W53``."""

from __future__ import annotations

import io
import re
import uuid
from typing import Any

import numpy as np
import pandas as pd
import pytest

import chaplab
from chaplab import ChapClient
from chaplab.frames import format_periods, org_unit_names, parse_periods, period_label
from chaplab.vocabulary import period_range, periods_after, readable_period

PLACES = {"RT_Coast": "São Luís", "RT_Hills": "Ñuñoa", "RT_Plain": "Bo (Southern)"}
KINDS = {
    "weekly": period_range("2018W01", "2020W51"),
    "monthly": period_range("201801", "202010"),
}
"""Each kind's periods: two whole years (what chap-core's naive_model needs) and more, ending
three periods before a year's end so that a three-period forecast crosses it (2020W52, 2020W53,
2021W01)."""
FEATURES = ("disease_cases", "rainfall", "mean_temperature", "population")
DATES = re.compile(r"\d{4}-\d{2}-\d{2}/\d{4}-\d{2}-\d{2}")
"""A week written as its dates, as chap-core 2.5.1 and pandas write it."""


def observations(kind: str) -> pd.DataFrame:
    """The dataset as ``create_dataset`` takes it: one row per place and period, values that
    are not whole numbers where a model's input may be, deterministic."""
    rows = []
    for place_index, place in enumerate(PLACES):
        for index, period in enumerate(KINDS[kind]):
            season = np.sin(2 * np.pi * index / (52 if kind == "weekly" else 12))
            rows.append(
                {
                    "time_period": period,
                    "location": place,
                    "disease_cases": float(30 + 10 * place_index + round(12 * season)),
                    "rainfall": round(80.25 + 40 * season + index % 7, 2),
                    "mean_temperature": round(24.5 + place_index + season, 3),
                    "population": 12_345.0 * (place_index + 1),
                }
            )
    return pd.DataFrame(rows)


def places_geojson() -> dict[str, Any]:
    """A square per place, side by side; ``id`` the place's id, ``name`` its name."""
    features = []
    for index, (place, name) in enumerate(PLACES.items()):
        ring = [[index, 0], [index + 1, 0], [index + 1, 1], [index, 1], [index, 0]]
        features.append(
            {
                "type": "Feature",
                "id": place,
                "properties": {"id": place, "name": name},
                "geometry": {"type": "Polygon", "coordinates": [ring]},
            }
        )
    return {"type": "FeatureCollection", "features": features}


def stored(server: ChapClient, frame: pd.DataFrame, what: str) -> int:
    """The id of ``frame`` stored as a new dataset on ``server``, with the places' polygons."""
    name = f"round trip {what} {uuid.uuid4().hex[:8]}"
    return server.create_dataset(name, frame, places_geojson()).id


def values(frame: pd.DataFrame) -> pd.DataFrame:
    """A dataset frame's features by (period as the wire writes it, place), sorted, to compare
    with what was sent."""
    table = frame.assign(
        time_period=format_periods(parse_periods(frame["time_period"])),
        location=frame["location"].astype(str),
    )
    return table.set_index(["time_period", "location"])[list(FEATURES)].sort_index()


def assert_same_dataset(server: ChapClient, dataset_id: int, kind: str) -> None:
    """The stored dataset holds every value of ``observations(kind)`` and names every place."""
    frame = server.dataset_frame(dataset_id)
    pd.testing.assert_frame_equal(values(frame), values(observations(kind)), check_exact=True)
    assert org_unit_names(server.get_dataset(dataset_id).geojson) == PLACES


@pytest.fixture(params=list(KINDS))
def kind(request: pytest.FixtureRequest) -> str:
    kind: str = request.param
    return kind


@pytest.fixture
def dataset_id(server: ChapClient, kind: str) -> int:
    return stored(server, observations(kind), kind)


def test_a_dataset_frame_reads_its_periods_and_goes_back_as_it_came(
    server: ChapClient, kind: str, dataset_id: int
) -> None:
    frame = server.dataset_frame(dataset_id)
    assert isinstance(frame["time_period"].dtype, pd.PeriodDtype)
    shown = frame.to_string() + frame.to_csv()
    assert readable_period(KINDS[kind][-1]) in shown and not DATES.search(shown)
    assert_same_dataset(server, dataset_id, kind)
    assert_same_dataset(server, stored(server, frame, f"{kind} frame"), kind)
    # and forecasts the three periods after it, across the year's end, naming the places
    geojson = server.get_dataset(dataset_id).geojson
    prediction = server.run_prediction(f"round trip {kind}", "naive_model", frame, 3, geojson)
    forecast = server.prediction_frame(prediction.id)
    expected = periods_after(KINDS[kind][-1], 3)
    assert sorted(set(forecast["period"].astype(str))) == [readable_period(p) for p in expected]
    named = dict(zip(forecast["org_unit"].astype(str), forecast["org_unit_name"], strict=True))
    assert named == PLACES


def test_a_dataset_csv_says_periods_as_people_read_them_and_uploads_again(
    server: ChapClient, kind: str, dataset_id: int
) -> None:
    text = server.dataset_csv(dataset_id)
    assert readable_period(KINDS[kind][0]) in text and not DATES.search(text)
    read = pd.read_csv(io.StringIO(text))
    assert set(read["time_period"]) == {readable_period(p) for p in KINDS[kind]}
    frame = server.dataset_frame(dataset_id)  # says the same periods, as periods
    assert isinstance(frame["time_period"].dtype, pd.PeriodDtype)
    assert list(read["time_period"]) == list(frame["time_period"].astype(str))
    assert_same_dataset(server, stored(server, read, f"{kind} csv frame"), kind)
    uploaded = server.upload_dataset_csv(f"round trip {kind} csv", text, places_geojson())
    assert_same_dataset(server, uploaded.id, kind)


def train_mean(config: Any, historic: pd.DataFrame, geojson: Any) -> dict[str, float]:
    """Each place's mean of the cases it has seen."""
    assert isinstance(historic["time_period"].dtype, pd.PeriodDtype)
    return historic.groupby("location")["disease_cases"].mean().to_dict()


def predict_mean(
    config: Any, model: dict[str, float], historic: pd.DataFrame, future: pd.DataFrame, geojson: Any
) -> pd.DataFrame:
    """The place's mean as every sample; the future's periods are periods, as the history's."""
    assert future["time_period"].dtype == historic["time_period"].dtype
    samples = future["location"].map(model).to_numpy()
    return future[["time_period", "location"]].assign(sample_0=samples, sample_1=samples + 1)


def test_a_dataset_frame_backtests_in_the_notebook(
    server: ChapClient, kind: str, dataset_id: int
) -> None:
    frame = server.dataset_frame(dataset_id)
    geojson = server.get_dataset(dataset_id).geojson
    local = chaplab.backtest(
        train_mean, predict_mean, frame, n_splits=2, n_periods=3, geojson=geojson, progress=False
    )
    splits = [period_label(p) for p in local["split_period"].unique()]
    assert splits == [readable_period(p) for p in KINDS[kind][-4:-2]]
    assert dict(zip(local["org_unit"].astype(str), local["org_unit_name"], strict=True)) == PLACES
    assert not DATES.search(local.to_string())
