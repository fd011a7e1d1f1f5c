"""Small models in chapkit's functional shape for the backtest tests."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd


def samples_frame(future: pd.DataFrame, samples: np.ndarray) -> pd.DataFrame:
    """``future`` with one ``sample_<i>`` column per column of ``samples``."""
    columns = [f"sample_{i}" for i in range(samples.shape[1])]
    return pd.concat([future, pd.DataFrame(samples, columns=columns, index=future.index)], axis=1)


def train_last(config: Any, data: pd.DataFrame, geo: Any) -> pd.Series:
    """The last observed cases of each location."""
    return data.sort_values("time_period").groupby("location")["disease_cases"].last()


def predict_spread(
    config: Any,
    model: pd.Series,
    historic: pd.DataFrame,
    future: pd.DataFrame,
    geo: Any,
    *,
    n_samples: int = 100,
) -> pd.DataFrame:
    """Samples spread evenly from 0 to twice the last observed cases: deterministic."""
    last = future["location"].map(model).fillna(0.0).to_numpy()
    return samples_frame(future, np.outer(last, np.linspace(0.0, 2.0, n_samples)))
