"""Figure 12, a local backtest: ``chaplab.backtest`` of a vectorised pandas model (two functions
in chapkit's shape) over 558 org units x 20 years of months, 12 splits of 3 periods, 100
samples, against the model's own compute: the wall-clock time spent inside its ``train`` and
``predict`` calls, summed over the splits. Target: the backtest costs at most 1.5x that (its
own work, slicing each split's history and future, checking the answer, sorting samples into
quantiles and building the evaluation frame, is the difference). Medians of 3 runs.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pandas as pd

from benchmarks.results import Result, within
from benchmarks.timing import median_time
from chaplab import backtest
from chaplab.vocabulary import BacktestPlan

ORG_UNITS = 558
YEARS = 20
SPLITS = 12
PERIODS = 3
SAMPLES = 100
FACTOR = 1.5
REPEATS = 3


def data() -> pd.DataFrame:
    """Monthly cases and two covariates of ``ORG_UNITS`` org units, as dataset_frame gives
    them."""
    rng = np.random.default_rng(12)
    periods = pd.period_range("2000-01", periods=12 * YEARS, freq="M").strftime("%Y-%m")
    locations = [f"OU{unit:04d}" for unit in range(ORG_UNITS)]
    season = 1.0 + 0.5 * np.sin(np.arange(len(periods)) * 2 * np.pi / 12)
    level = rng.gamma(3.0, 30.0, ORG_UNITS)
    cases = rng.poisson(level[:, None] * season[None, :])
    return pd.DataFrame(
        {
            "time_period": np.tile(periods, ORG_UNITS),
            "location": np.repeat(locations, len(periods)),
            "disease_cases": cases.ravel().astype(np.float64),
            "rainfall": rng.gamma(2.0, 50.0, cases.size),
            "mean_temperature": rng.normal(25.0, 3.0, cases.size),
        }
    )


def train(config: Any, history: pd.DataFrame, geo: Any) -> pd.DataFrame:
    """Each org unit's mean cases per calendar month and its overall dispersion."""
    month = history["time_period"].str[-2:]
    by_month = history.groupby(["location", month])["disease_cases"].mean()
    spread = history.groupby("location")["disease_cases"].std()
    return by_month.rename("mean").reset_index().merge(spread.rename("sd").reset_index())


def predict(
    config: Any,
    model: pd.DataFrame,
    historic: pd.DataFrame,
    future: pd.DataFrame,
    geo: Any,
    *,
    rng: np.random.Generator,
) -> pd.DataFrame:
    """Gamma samples around each row's monthly mean."""
    keyed = future.assign(time_period=future["time_period"].str[-2:])
    rows = keyed.merge(model, on=["location", "time_period"], how="left")
    mean = rows["mean"].to_numpy()[:, None]
    sd = np.maximum(rows["sd"].to_numpy()[:, None], 1.0)
    shape = np.maximum(mean, 1.0) ** 2 / sd**2
    samples = rng.gamma(shape, np.maximum(mean, 1.0) / shape, (len(future), SAMPLES))
    columns = [f"sample_{i}" for i in range(SAMPLES)]
    return pd.concat([future, pd.DataFrame(samples, columns=columns, index=future.index)], axis=1)


def model_compute(frame: pd.DataFrame) -> float:
    """Seconds inside ``train`` and ``predict`` called one split after another on one thread,
    with each split's inputs made beforehand (untimed): the model's own compute."""
    periods = sorted(frame["time_period"].unique())
    inputs = []
    for window in BacktestPlan(n_periods=PERIODS, n_splits=SPLITS).split_windows(periods):
        seen = frame["time_period"] < window.split_period
        ahead = frame["time_period"].isin(list(window.forecast_periods))
        history = frame[seen].reset_index(drop=True)
        inputs.append((history, frame[ahead].drop(columns="disease_cases").reset_index(drop=True)))
    rng = np.random.default_rng(1)
    start = time.perf_counter()
    for history, future in inputs:
        predict(None, train(None, history, None), history, future, None, rng=rng)
    return time.perf_counter() - start


def backtest_time(frame: pd.DataFrame) -> tuple[float, int]:
    """Seconds of the whole backtest and the rows it answers."""
    start = time.perf_counter()
    answer = backtest(
        train, predict, frame, n_splits=SPLITS, n_periods=PERIODS, seed=1, progress=False
    )
    return time.perf_counter() - start, len(answer)


def run() -> list[Result]:
    frame = data()
    backtest_time(frame)  # warm-up: imports, first-call costs
    total = median_time(lambda: backtest_time(frame), REPEATS)
    model = median_time(lambda: model_compute(frame), REPEATS)
    rows = backtest_time(frame)[1]
    return [
        within(
            f"12 backtest of a pandas model, {ORG_UNITS} org units x {SPLITS} splits",
            total,
            model,
            FACTOR,
            "s",
            "the model's own compute",
            note=f"{rows:,} rows answered; {SAMPLES} samples; no executor (one worker thread)",
        )
    ]
