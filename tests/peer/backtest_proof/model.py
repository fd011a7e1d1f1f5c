"""The proof's model, deterministic (chapkit passes no seed): each place's mean of its training
cases, moved halfway to the last case before the forecast, spread over 11 samples from 0.8 to
1.2 times that. Plain pandas functions in chaplab.backtest's shape, imported by the chapkit
service beside it and by the test that backtests them locally."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd


def train(config: Any, data: pd.DataFrame, geo: Any) -> dict[str, float]:
    means = data.groupby("location")["disease_cases"].mean()
    return {str(place): float(value) for place, value in means.items()}


def predict(
    config: Any, model: dict[str, float], historic: pd.DataFrame, future: pd.DataFrame, geo: Any
) -> pd.DataFrame:
    ordered = historic.assign(location=historic["location"].astype(str))
    last = ordered.sort_values("time_period").groupby("location")["disease_cases"].last()
    places = future["location"].astype(str)
    centre = 0.5 * places.map(model).to_numpy() + 0.5 * places.map(last).to_numpy()
    samples = np.outer(centre, np.linspace(0.8, 1.2, 11))
    columns = [f"sample_{i}" for i in range(11)]
    return pd.concat([future, pd.DataFrame(samples, columns=columns, index=future.index)], axis=1)
