"""chaplab.backtest on its own: splits and what a model sees, sync and async functions run
concurrently, seeds, and an error naming the split period and the function for every way a
model can fail."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import numpy as np
import pandas as pd
import pytest

import chaplab
from chaplab import BacktestError, backtest
from chaplab.vocabulary import BacktestPlan

from .models import LOCATIONS, PERIODS, monthly_data, predict_spread, samples_frame, train_last


def run(train: Any = train_last, predict: Any = predict_spread, **settings: Any) -> pd.DataFrame:
    options = {"n_splits": 3, "n_periods": 2, "stride": 2, "progress": False, **settings}
    return backtest(train, predict, monthly_data(), **options)


def test_the_splits_are_the_services_and_named_by_their_first_forecast_period() -> None:
    frame = run()
    windows = BacktestPlan(n_periods=2, n_splits=3, stride=2).split_windows(PERIODS)
    assert [str(p).replace("-", "") for p in frame["split_period"].unique()] == [
        w.split_period for w in windows
    ]
    assert frame["org_unit"].cat.categories.tolist() == ["A", "B", "C"]
    assert frame.columns.tolist() == [
        "org_unit",
        "split_period",
        "period",
        "horizon",
        "quantile",
        "value",
    ]
    assert (
        frame["horizon"] == (frame["period"] - frame["split_period"]).apply(lambda d: d.n) + 1
    ).all()
    assert (frame["period"] >= frame["split_period"]).all()
    assert len(frame) == 3 * 3 * 2 * 5


def test_a_model_sees_only_the_history_and_the_futures_covariates() -> None:
    seen: list[tuple[str, str, str, list[str], bool, int]] = []
    lock = threading.Lock()

    def train(config: Any, data: pd.DataFrame, geo: Any) -> str:
        return str(data["time_period"].max())

    def predict(
        config: Any, model: str, historic: pd.DataFrame, future: pd.DataFrame, geo: Any
    ) -> pd.DataFrame:
        with lock:
            seen.append(
                (
                    model,
                    str(historic["time_period"].max()),
                    str(future["time_period"].min()),
                    sorted(future.columns),
                    bool(future["rainfall"].notna().all()),
                    len(future),
                )
            )
        return samples_frame(future, np.ones((len(future), 3)))

    run(train, predict, n_retrain=3)  # trained at every split
    for last_trained, last_history, first_future, columns, covariates, rows in seen:
        assert last_trained == last_history < first_future
        assert first_future.startswith("2020-")  # spelt as the data spells its periods
        assert columns == ["location", "rainfall", "time_period"]  # no disease_cases
        assert covariates and rows == 3 * 2


@pytest.mark.parametrize(
    ("n_retrain", "trained", "used"),
    [
        (1, ["2020-04"], ["2020-04"] * 4),
        (2, ["2020-04", "2020-08"], ["2020-04"] * 2 + ["2020-08"] * 2),
    ],
)
def test_the_model_is_trained_as_the_service_trains_a_model_services_model(
    n_retrain: int, trained: list[str], used: list[str]
) -> None:
    """Once at the first split by default; with n_retrain at evenly spaced splits, each split
    predicted by the latest training at or before it, from its own copy of the model."""
    calls: list[str] = []
    by_split: dict[str, str] = {}
    lock = threading.Lock()

    def train(config: Any, data: pd.DataFrame, geo: Any) -> dict[str, str]:
        with lock:
            calls.append(str(data["time_period"].max()))
        return {"trained on": str(data["time_period"].max())}

    def predict(
        config: Any, model: dict[str, str], historic: Any, future: pd.DataFrame, geo: Any
    ) -> pd.DataFrame:
        with lock:
            by_split[str(future["time_period"].min())] = model["trained on"]
        model["trained on"] = "changed by a prediction"  # its own copy
        return samples_frame(future, np.ones((len(future), 2)))

    run(train, predict, n_splits=4, n_periods=2, stride=2, n_retrain=n_retrain)
    assert sorted(calls) == trained
    # the splits start forecasting 2020-05, -07, -09 and -11
    assert [by_split[f"2020-{month}"] for month in ("05", "07", "09", "11")] == used


def test_n_retrain_must_be_a_count_of_at_most_the_splits() -> None:
    with pytest.raises(ValueError, match="^n_retrain must be a whole number from 1 to "):
        run(n_retrain=0)
    with pytest.raises(ValueError, match="^n_retrain is 4, more than the 3 splits"):
        run(n_retrain=4)


@pytest.mark.parametrize(("weather", "expected"), [("climatology", 3.5), ("observed", 8.0)])
def test_future_covariates_are_the_services_weather(weather: str, expected: float) -> None:
    """By default a covariate's mean of the same month over the history (no history of August
    here: the location's mean, 3.5 over months 0-7 of one year); 'observed' is the window's."""
    seen: dict[str, float] = {}
    lock = threading.Lock()

    def predict(config: Any, model: Any, historic: Any, future: pd.DataFrame, geo: Any) -> Any:
        first = future[(future["location"] == "A") & (future["time_period"] == "2020-09")]
        with lock:
            if len(first):
                seen["rainfall"] = float(first["rainfall"].iloc[0])
        return samples_frame(future, np.ones((len(future), 2)))

    run(predict=predict, n_splits=1, n_periods=4, weather=weather)
    assert seen == {"rainfall": expected}
    with pytest.raises(ValueError, match="weather must be one of climatology, observed"):
        run(weather="forecast")


def test_quantiles_interpolate_the_samples_as_the_service_does() -> None:
    frame = run(n_samples=5, quantiles=[0.1, 0.5, 0.9])
    first = frame[
        (frame["org_unit"] == "A") & (frame["split_period"] == frame["split_period"].min())
    ]
    # A's last case before the first split (month index 5, 202006) is 10 + 5 = 15: samples 0..30
    samples = np.linspace(0.0, 2.0, 5) * 15
    expected = np.quantile(samples, [0.1, 0.5, 0.9])
    assert first["value"].iloc[:3].to_numpy() == pytest.approx(expected)


def test_async_functions_of_every_split_run_at_once() -> None:
    started = 0
    all_started = asyncio.Event()

    async def train(config: Any, data: pd.DataFrame, geo: Any) -> None:
        return None

    async def predict(config: Any, model: Any, historic: Any, future: Any, geo: Any) -> Any:
        nonlocal started
        started += 1
        if started == 3:
            all_started.set()
        await asyncio.wait_for(all_started.wait(), 60)  # a split run alone would wait forever
        return samples_frame(future, np.ones((len(future), 2)))

    assert len(run(train, predict)) == 90


def test_sync_functions_run_off_the_calling_thread_and_need_no_pickling() -> None:
    """A closure over a lock and a dict works as it is (how many run at once:
    test_executors.py)."""
    threads: set[str] = set()
    closure_state = {"calls": 0}
    lock = threading.Lock()

    def train(config: Any, data: pd.DataFrame, geo: Any) -> None:
        with lock:
            threads.add(threading.current_thread().name)
            closure_state["calls"] += 1

    predict = lambda config, model, historic, future, geo: samples_frame(  # noqa: E731
        future, np.ones((len(future), 2))
    )
    assert len(run(train, predict, n_retrain=3)) == 90
    assert closure_state["calls"] == 3
    assert threads and threading.current_thread().name not in threads


def test_config_and_geojson_reach_both_functions_and_name_the_places() -> None:
    geojson = {
        "type": "FeatureCollection",
        "features": [
            {
                "type": "Feature",
                "id": name,
                "properties": {"name": f"Place {name}"},
                "geometry": None,
            }
            for name in LOCATIONS
        ],
    }
    received: list[tuple[Any, Any]] = []

    def train(config: Any, data: pd.DataFrame, geo: Any) -> None:
        received.append((config, geo))

    def predict(config: Any, model: Any, historic: Any, future: Any, geo: Any) -> pd.DataFrame:
        received.append((config, geo))
        return samples_frame(future, np.ones((len(future), 2)))

    frame = run(train, predict, config={"alpha": 1}, geojson=geojson)
    assert received == [({"alpha": 1}, geojson)] * 4  # trained once, three predictions
    assert frame.columns[1] == "org_unit_name"
    assert frame["org_unit_name"].cat.categories.tolist() == ["Place A", "Place B", "Place C"]


def test_a_seed_gives_each_split_its_own_reproducible_generator() -> None:
    def predict(
        config: Any, model: Any, historic: Any, future: Any, geo: Any, rng: np.random.Generator
    ) -> pd.DataFrame:
        return samples_frame(future, rng.gamma(2.0, 5.0, (len(future), 50)))

    first, again, other = (run(predict=predict, seed=seed) for seed in (1, 1, 2))
    pd.testing.assert_frame_equal(first, again)
    assert not np.allclose(first["value"], other["value"])
    by_split = first.groupby("split_period", observed=True)["value"].apply(tuple)
    assert len(set(by_split)) == 3  # the splits' draws differ


def test_a_function_that_raises_is_named_with_its_split_and_message() -> None:
    def train(config: Any, data: pd.DataFrame, geo: Any) -> pd.Series:
        if data["time_period"].max() >= "2020-08":
            raise KeyError("rainfall_lag")
        return train_last(config, data, geo)

    with pytest.raises(BacktestError) as raised:
        run(train, n_retrain=3)
    error = raised.value
    name = "test_a_function_that_raises_is_named_with_its_split_and_message.<locals>.train"
    assert error.split_period in {"202009", "202011"}  # the splits trained on August
    split = f"{error.split_period[:4]}-{error.split_period[4:]}"  # as people read it
    assert str(error) == f"split {split}: train ({name}) raised KeyError: 'rainfall_lag'"
    assert isinstance(error.__cause__, KeyError)


async def failing_predict(config: Any, model: Any, historic: Any, future: Any, geo: Any) -> Any:
    raise RuntimeError("the model diverged")


def test_an_async_function_that_raises_is_named_too() -> None:
    with pytest.raises(
        BacktestError,
        match=r"^split 2020-\d\d: predict \(failing_predict\) raised "
        r"RuntimeError: the model diverged$",
    ):
        run(predict=failing_predict)


def answering(change: Any) -> Any:
    """A predict function answering ``change(future with samples)``."""

    def predict(config: Any, model: Any, historic: Any, future: Any, geo: Any) -> Any:
        return change(samples_frame(future, np.ones((len(future), 4))))

    return predict


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda f: f.iloc[1:],
            r"returned 5 rows for the 6 future rows; it lacks e.g. location 'B'",
        ),
        (
            lambda f: pd.concat([f, f.iloc[:1]]),
            "returned more than one row for a location and period",
        ),
        (
            lambda f: f.assign(location=f["location"].replace("A", "Z")),
            r"returned a row for location 'Z', .* that is not among the future rows",
        ),
        (
            lambda f: f.drop(columns=[c for c in f if c.startswith("sample_")]),
            r"returned no sample columns \(sample_0, sample_1, \.\.\.\); its columns are \[",
        ),
        (
            lambda f: f.assign(sample_2=np.nan),
            r"returned NaN or infinite samples, e.g. for location",
        ),
        (lambda f: f.assign(sample_0=-1.0), r"returned negative samples, e\.g\. for location"),
        (lambda f: f.drop(columns="location"), r"returned no \['location'\] column"),
        (lambda f: f["sample_0"], r"returned Series, not a DataFrame"),
    ],
)
def test_a_wrong_answer_is_named_with_the_split_and_function(change: Any, message: str) -> None:
    with pytest.raises(
        BacktestError, match=r"^split 2020-\d\d: predict \(answering.<locals>.predict\) " + message
    ):
        run(predict=answering(change))


def test_a_model_asked_for_n_samples_must_answer_that_many() -> None:
    def predict(
        config: Any, model: Any, historic: Any, future: Any, geo: Any, n_samples: int
    ) -> Any:
        return samples_frame(future, np.ones((len(future), n_samples - 1)))

    with pytest.raises(BacktestError, match="returned 9 sample columns but was asked for 10"):
        run(predict=predict, n_samples=10)


def test_too_few_periods_and_bad_data_are_named() -> None:
    with pytest.raises(ValueError, match=r"^stride is 2, too long for the data: .* at least 13 "):
        run(n_splits=5, n_periods=4, stride=2)
    with pytest.raises(ValueError, match=r"^n_splits must be a whole number from 1 to 1000"):
        run(n_splits=0)
    with pytest.raises(ValueError, match=r"data lacks column\(s\) \['disease_cases'\]"):
        backtest(
            train_last,
            predict_spread,
            monthly_data().drop(columns="disease_cases"),
            n_splits=1,
            n_periods=1,
        )
    with pytest.raises(ValueError, match="data has more than one row for location 'B', 2020-01"):
        backtest(
            train_last, predict_spread, pd.concat([monthly_data()] * 2), n_splits=1, n_periods=1
        )


def test_progress_is_a_bar_over_the_splits(capsys: pytest.CaptureFixture[str]) -> None:
    run(progress=True)
    shown = capsys.readouterr().err
    assert "backtest: 100%" in shown and "3/3" in shown


def test_backtest_is_a_lazy_top_level_name() -> None:
    assert chaplab.backtest is backtest
    assert "backtest" in dir(chaplab)


def test_a_weekly_error_names_its_weeks_as_people_read_them() -> None:
    """A weekly model's failure names its split and week as ``2020-W53`` (the data as
    ``dataset_frame`` gives it: weeks as periods), never the wire's ``2020W53`` or pandas'
    ``2020-12-28/2021-01-03``."""
    weeks = chaplab.frames.parse_periods([f"2020W{week:02d}" for week in range(40, 54)])
    data = pd.DataFrame(
        {
            "time_period": np.tile(weeks.array, 2),
            "location": np.repeat(["A", "B"], len(weeks)),
            "disease_cases": np.arange(2.0 * len(weeks)),
        }
    )
    with pytest.raises(BacktestError) as raised:
        backtest(
            train_last,
            answering(lambda f: f.assign(sample_0=-1.0)),
            data,
            n_splits=1,
            n_periods=2,
            progress=False,
        )
    assert str(raised.value).startswith("split 2020-W52: predict")
    assert "for location 'A', 2020-W52; case counts" in str(raised.value)
