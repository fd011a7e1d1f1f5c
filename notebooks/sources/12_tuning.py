# %% [markdown]
# # Tuning a model over a grid of options
#
# A model has options: how many recent months set its level, how wide its forecasts are.
# Which values forecast best? `chaplab.tune` backtests every configuration of a grid on the same
# splits, with the same random draws, and ranks them by relative skill with intervals. The work
# runs beside the notebook, on a process pool, or on a Dask cluster, and gives the same
# answer on each. This notebook:
#
# 1. writes a model with two options as two functions (chapkit's shape, as in notebook 09);
# 2. tunes it over a grid of six configurations on real data (dengue in Acre, Brazil);
# 3. runs the same tune on a process pool and gets the same forecasts;
# 4. puts the best configuration beside the service's models, its baselines and an ensemble;
# 5. tunes one of the service's own models on the server, as configured models in one batch.

# %%
from demo_data import real_dataset

import chaplab

client = chaplab.connect()
dataset = real_dataset(client)  # "dengue Brazil (Acre)", uploaded first if the server lacks it
data = client.dataset_frame(dataset.id)
geojson = client.get_dataset(dataset.id).geojson

# %% [markdown]
# ## 1. A model with options
#
# The model forecasts each microregion's usual cases for the calendar month, scaled by how the
# last `recent_months` compare with their usual level, with negative binomial noise whose spread
# is the one seen in training times `spread`. A configuration is a dict of these options; it
# reaches both functions as `config`.

# %%
import numpy as np
import pandas as pd


def with_usual(frame, usual):
    """``frame`` with each row's calendar month and the usual cases of that month."""
    month = frame["time_period"].astype(str).str[-2:]
    return frame.assign(month=month).join(usual, on=["location", "month"])


def train(config, data, geo):
    """Each microregion's mean cases per calendar month and how much the cases vary around it."""
    month = data["time_period"].astype(str).str[-2:]
    usual = data.groupby(["location", month])["disease_cases"].mean().rename("usual")
    usual.index.names = ["location", "month"]
    seen = with_usual(data, usual)
    ratio = seen["disease_cases"] / seen["usual"].clip(lower=1.0)
    return {"usual": usual, "spread": ratio.groupby(seen["location"]).std().fillna(1.0)}


def predict(config, model, historic, future, geo, *, rng=None, n_samples=100):
    """Negative binomial samples around the usual cases of the month times the recent level."""
    rng = rng if rng is not None else np.random.default_rng()
    recent = with_usual(historic, model["usual"]).sort_values("time_period")
    recent = recent.groupby("location").tail(config["recent_months"]).groupby("location")
    level = (recent["disease_cases"].sum() / recent["usual"].sum().clip(lower=1.0)).clip(0.2, 5)
    ahead = with_usual(future, model["usual"])
    mean = np.maximum(ahead["usual"].fillna(0.0) * ahead["location"].map(level), 0.1).to_numpy()
    spread = future["location"].map(model["spread"]).to_numpy() * config["spread"]
    dispersion = 1.0 / np.maximum(spread, 0.05) ** 2
    draws = rng.negative_binomial(
        dispersion[:, None], (dispersion / (dispersion + mean))[:, None], (len(future), n_samples)
    )
    samples = pd.DataFrame(
        draws, index=future.index, columns=[f"sample_{i}" for i in range(n_samples)]
    )
    return pd.concat([future, samples], axis=1)


# %% [markdown]
# ## 2. Tune it
#
# A grid is a dict of the values to try; every combination is a configuration (six here), named
# by its options. Each is backtested on the service's splits, 12 split months forecasting 3
# months each, trained once as the service trains a model service's model. The bar counts the
# tasks; the answer ranks the configurations by their weighted interval score relative to the
# first one, with 90% bootstrap intervals.

# %%
GRID = {"recent_months": [1, 3, 6], "spread": [0.5, 1.0]}
SETTINGS = {"n_periods": 3, "n_splits": 12, "stride": 1}
tuned = chaplab.tune(train, predict, data, GRID, **SETTINGS, geojson=geojson, seed=1)
tuned

# %%
tuned.chart()

# %% [markdown]
# `tuned.forecasts` holds every configuration's forecasts in one table, its first column naming
# the configuration; `tuned.configurations` has each one's options and whether it finished.

# %% tags=["nbval-check-output"]
print("configurations:", len(tuned.configurations), "| ranked:", len(tuned.skill))
print("columns:", list(tuned.forecasts.columns[:3]))
print("one row per configuration and target:", len(tuned.forecasts) // len(tuned.configurations))

# %% [markdown]
# ## 3. The same tune on a process pool
#
# Pure-Python model code runs one thread at a time, so a CPU-bound model gains from processes.
# `executor=` takes any `concurrent.futures.Executor`: here a pool of two worker processes.
# The functions above were written in this notebook, yet reach the workers: chaplab sends them
# by value with cloudpickle, as Dask does. (What cannot be copied cannot go: a function holding
# an open connection, a file or a lock runs without an executor.) Every task has its own random
# stream from the seed, so the forecasts are exactly the same.
#
# The same code runs on a Dask cluster: `executor=Client(LocalCluster(n_workers=4))` on this
# computer, or `executor=Client("tcp://scheduler:8786")` for a remote one whose workers have
# chaplab installed (see docs/tuning.md).

# %%
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
    pooled = chaplab.tune(
        train, predict, data, GRID, **SETTINGS, geojson=geojson, seed=1, executor=pool
    )

# %% tags=["nbval-check-output"]
print("the same forecasts on a process pool:", pooled.forecasts.equals(tuned.forecasts))
print("the same best configuration:", pooled.best == tuned.best)

# %% [markdown]
# ## 4. The best beside the service's models and an ensemble
#
# The service's `naive_model` and chap-core's three baselines run on the same backtest as one
# batch (as in notebook 07); the best configuration joins them, and an ensemble of it with the
# service's model, weighted by each member's skill on the months before each split.

# %%
from chaplab import scoring

BASELINES = ["persistence", "seasonal_median", "global_median"]
batch = client.run_backtests(
    "tuning", ["naive_model", *BASELINES], dataset.id, **SETTINGS, timeout=600
)
newest = {}
for evaluation in batch.backtests:  # newest first: each model's latest run
    newest.setdefault(evaluation.model_id, evaluation.id)
runs = {"naive_model": newest["naive_model"]} | batch.baseline_runs()
served = {name: client.evaluation_frame(evaluation_id) for name, evaluation_id in runs.items()}
actuals = client.actual_cases(runs["naive_model"])

best = tuned.forecasts[tuned.forecasts["configuration"] == tuned.best].drop(columns="configuration")
members = {"best tuned": best, "naive_model": served["naive_model"]}
ensemble = scoring.ensemble(members, weights="skill", actuals=actuals)
forecasts = {**served, "best tuned": best, "ensemble": ensemble}
scores = scoring.score(forecasts, actuals)
skill = scoring.relative_skill(scores, baseline="seasonal_median", n_bootstrap=1000, seed=0)

# %%
from chaplab.plotting import leaderboard_chart

leaderboard_chart(skill, title=f"Best tuned ({tuned.best}) beside the service's models")

# %% tags=["nbval-check-output"]
print("ranked:", sorted(skill["model"]))
print("targets per model:", sorted(set(scores.groupby("model", observed=True).size())))

# %% [markdown]
# ## 5. Tuning on the server
#
# `client.tune` does the same with a model template on the server: one configured model per
# configuration (with `None`, those the template's option schema allows: an enum's values, a
# boolean's two, a bounded range's values), named by its options so a rerun finds them again,
# run as one batch beside the baselines, and ranked into the same leaderboard. On chap-core,
# whose `naive_model` has no options, the grid is its one default configuration.

# %%
on_server = client.tune("naive_model", dataset.id, None, **SETTINGS, timeout=600)
on_server.chart()

# %% tags=["nbval-check-output"]
print("baselines beside the configurations:", set(BASELINES) <= set(on_server.skill["model"]))
print(
    "the best is a configuration:", on_server.best in set(on_server.configurations["configuration"])
)
