"""Small models in chapkit's functional shape for the backtest tests, their data, and a model
defined in a notebook cell (only its value can reach another process)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from IPython.core.interactiveshell import InteractiveShell

PERIODS = [f"2020{month:02d}" for month in range(1, 13)]
LOCATIONS = ["B", "A", "C"]


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


def monthly_data() -> pd.DataFrame:
    """Three locations over twelve months, wire-spelt periods, one covariate."""
    rows = [
        {
            "time_period": f"{period[:4]}-{period[4:]}",
            "location": location,
            "disease_cases": float(10 * index + month),
            "rainfall": float(month),
        }
        for index, location in enumerate(LOCATIONS)
        for month, period in enumerate(PERIODS)
    ]
    return pd.DataFrame(rows)


# A model as a notebook defines it: in a cell, so that only its value can reach another process.
MODEL_CELL = """\
import os, signal
import numpy as np
import pandas as pd


def train(config, data, geo):
    return data.groupby("location")["disease_cases"].mean() * (config or {}).get("scale", 1)


def predict(config, model, historic, future, geo, *, rng, n_samples=100):
    config = config or {}
    split = str(future["time_period"].min())
    if split in config.get("fail_at", ()):
        raise KeyError("rainfall")
    if split in config.get("kill_at", ()):
        marker = config.get("once")
        if marker is None or not os.path.exists(marker):
            if marker is not None:
                open(marker, "w").close()
            os.kill(os.getpid(), signal.SIGKILL)
    mean = future["location"].map(model).to_numpy()
    draws = rng.poisson(np.maximum(mean, 0)[:, None], (len(future), n_samples))
    columns = [f"sample_{i}" for i in range(n_samples)]
    return pd.concat([future, pd.DataFrame(draws, index=future.index, columns=columns)], axis=1)
"""


def cell_model() -> tuple[Any, Any]:
    """``train`` and ``predict`` defined in a notebook cell (IPython's ``__main__``)."""
    shell = InteractiveShell.instance()
    assert shell.run_cell(MODEL_CELL).success
    return shell.user_ns["train"], shell.user_ns["predict"]
