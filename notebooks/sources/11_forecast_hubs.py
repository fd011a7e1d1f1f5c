# %% [markdown]
# # Forecast hubs: their models and ours on one leaderboard
#
# Forecasting teams outside the modeling service share their forecasts in *forecast hubs*, in
# the hubverse's model-output format: one file per model and round, one row per location,
# horizon, output type (quantile, sample, pmf, ...) and value, with the truth in the hub's
# target data. `chaplab.hubs` reads a hub into chaplab's frames and writes chaplab's forecasts
# back in the hub's format, so a hub's models and the service's can be scored on the same
# targets. This notebook:
#
# 1. reads a real hub: weekly influenza hospital admissions in US states, 2022-23, three
#    models over four rounds (a small copy of the hubverse's example hub inside chaplab, so
#    nothing is fetched);
# 2. uploads the hub's target data to the service as a weekly dataset and runs the service's
#    models and baselines on the hub's rounds;
# 3. backtests a model of our own in the notebook (`chaplab.backtest`) on the same rounds;
# 4. puts everyone on one leaderboard, with relative skill and its intervals, the parts of the
#    weighted interval score, coverage and an ensemble;
# 5. scores the hub's category forecasts (pmf) with the ranked probability score, and its
#    sample forecasts as quantiles;
# 6. writes our model's forecast as a hub submission and reads it back.
#
# A hub's weeks are epidemiological weeks (Sunday to Saturday) ending on `target_end_date`;
# chaplab labels each with the ISO week holding its Saturday (`chaplab.weeks`). A round's
# *reference date* is a Saturday; its horizon 0 is the week ending that day, still under way
# when the forecasts are due: chaplab's split period (the first week a model has not seen),
# horizon 1. Hubs have no boundaries, so there are no maps here.

# %%
import chaplab
from chaplab import hubs

hub = hubs.example_hub()
INC = "wk inc flu hosp"
forecasts = hubs.read_forecasts(hub, target=INC)
actuals = hubs.read_target_data(hub, target=INC)
forecasts

# %% [markdown]
# ## 1. The hub's forecasts as chaplab frames
#
# `forecasts.quantiles` is an evaluation frame with a `model` column: the place names come from
# the hub's locations file, the rounds are split periods and the horizons count from 1. The
# national total (`US`) is the sum of the states: it is kept apart (read it on its own with
# `locations=["US"]`), so its scores never swamp the states'.

# %% tags=["nbval-check-output"]
from chaplab.frames import period_labels

frame = forecasts.quantiles
print("models:", ", ".join(frame["model"].cat.categories))
print("places:", ", ".join(frame["org_unit_name"].cat.categories))
print("rounds (split periods):", ", ".join(period_labels(frame["split_period"].unique())))
print("horizons:", sorted(frame["horizon"].unique().tolist()))
print("quantile levels:", frame["quantile"].nunique())

# %% [markdown]
# How a hub's week becomes chaplab's, and back: one function each way.

# %% tags=["nbval-check-output"]
import datetime

week = hubs.to_chaplab(datetime.date(2022, 12, 31), horizon=1)
print(week)
print(hubs.to_hub(week.split_period, week.period))

# %% [markdown]
# ## 2. The service's models on the hub's rounds
#
# The hub's target data (the states' weekly admissions since 2020) go to the service as a weekly
# dataset, up to the last week the hub's last round forecasts. A backtest of four splits four
# weeks apart, each forecasting four weeks, then has exactly the hub's rounds as its splits: the
# model sees every week before the reference week, as the hub's models did (though they saw
# the first, unrevised counts).

# %%
SETTINGS = {"n_periods": 4, "n_splits": 4, "stride": 4}
LEVELS = sorted(frame["quantile"].unique())
last_week = frame["period"].max()
data, places = hubs.hub_dataset(hub, target=INC, until=last_week)
data.tail(3)

# %% [markdown]
# The places have no boundaries: each is a GeoJSON feature with a name and no geometry, which
# both chaplab's service and chap-core store (and draw no map of). The dataset is uploaded once.

# %%
client = chaplab.connect()
NAME = "influenza hospital admissions (example hub)"
dataset = next((d for d in client.list_datasets() if d.name == NAME), None)
if dataset is None:
    dataset = client.create_dataset(NAME, data, places)
print(dataset.name, "|", dataset.period_type, dataset.first_period, "to", dataset.last_period)

# %%
BASELINES = ["persistence", "seasonal_median", "global_median"]
offered = {model.name for model in client.list_configured_models() if not model.archived}
MODELS = [m for m in ("naive_model", "seasonal_naive") if m in offered]
batch = client.run_backtests("example hub", MODELS + BASELINES, dataset.id, **SETTINGS, timeout=600)
newest = {}
for evaluation in batch.backtests:  # newest first: each model's latest run
    newest.setdefault(evaluation.model_id, evaluation.id)
runs = {name: newest[name] for name in MODELS} | batch.baseline_runs()
served = {
    name: client.evaluation_frame(evaluation_id, quantiles=LEVELS)
    for name, evaluation_id in runs.items()
}
print("served:", ", ".join(served))

# %% [markdown]
# ## 3. A model of our own, backtested in the notebook
#
# Two functions in chapkit's shape: the forecast carries the last observed week forward at the
# growth of the last three weeks (damped), with log-normal noise that widens with the horizon.
# `chaplab.backtest` runs them on the same splits, at the hub's quantile levels.

# %%
import numpy as np
import pandas as pd

RECENT = 3


def train(config, data, geo):
    """How much the weekly log growth varies, per state."""
    logs = np.log1p(
        data.sort_values("time_period").pivot(
            index="time_period", columns="location", values="disease_cases"
        )
    )
    return {"spread": logs.diff().std().clip(lower=0.05)}


def predict(config, model, historic, future, geo, *, rng=None, n_samples=200):
    """Samples around the last week, grown at the recent (damped) log growth."""
    rng = rng if rng is not None else np.random.default_rng()
    logs = np.log1p(
        historic.sort_values("time_period").pivot(
            index="time_period", columns="location", values="disease_cases"
        )
    )
    last, growth = logs.iloc[-1], (logs.iloc[-1] - logs.iloc[-1 - RECENT]) / RECENT
    ahead = future.groupby("location").cumcount().to_numpy() + 1
    where = future["location"]
    centre = where.map(last).to_numpy() + 0.7 * where.map(growth).to_numpy() * ahead
    spread = where.map(model["spread"]).to_numpy() * np.sqrt(ahead)
    draws = np.expm1(
        centre[:, None] + spread[:, None] * rng.standard_normal((len(future), n_samples))
    )
    samples = pd.DataFrame(
        np.maximum(draws, 0), index=future.index, columns=[f"sample_{i}" for i in range(n_samples)]
    )
    return pd.concat([future, samples], axis=1)


mine = chaplab.backtest(train, predict, data, **SETTINGS, quantiles=LEVELS, seed=1)
mine.head()

# %% [markdown]
# The service's evaluations and the local backtest forecast exactly the hub's targets: the same
# states, rounds and weeks.

# %% tags=["nbval-check-output"]
KEYS = ["org_unit", "split_period", "period", "horizon"]
compared = {"hub": frame[frame["model"] == "PSI-DICE"], "local backtest": mine, **served}
seen = {
    name: forecast[KEYS].astype({"org_unit": str}).drop_duplicates().reset_index(drop=True)
    for name, forecast in compared.items()
}
print("local backtest:", seen["local backtest"].equals(seen["hub"]))
print("service:", all(seen[name].equals(seen["hub"]) for name in served))

# %% [markdown]
# ## 4. One leaderboard
#
# Every forecast is scored the same way against the hub's target data: the hub's three models,
# the service's models and baselines, our model, and an ensemble of the hub's models and ours
# (the mean of each quantile, target by target). Relative skill is each model's pairwise
# weighted interval score against all others, relative to the hub's baseline, with a bootstrap
# interval over targets.

# %%
from chaplab import scoring

everyone = {
    name: frame[frame["model"] == name].drop(columns="model")
    for name in frame["model"].cat.categories
}
members = [*everyone, "chaplab-recent"]
everyone |= served | {"chaplab-recent": mine}
everyone["ensemble"] = scoring.ensemble({name: everyone[name] for name in members})
scores = scoring.score(everyone, actuals)
skill = scoring.relative_skill(scores, baseline="Flusight-baseline", n_bootstrap=1000, seed=0)
skill

# %%
from chaplab.plotting import coverage_chart, leaderboard_chart, wis_components_chart

leaderboard_chart(skill)

# %%
wis_components_chart(scoring.summarise(scores))

# %% [markdown]
# Coverage: how often the truth fell inside each central interval (and below each quantile), for
# the ensemble's members, the ensemble and the service's best model.

# %%
shown = [
    *members,
    "ensemble",
    skill.loc[~skill["model"].isin(members + ["ensemble"]), "model"].iloc[0],
]
coverage_chart(scoring.coverage({name: everyone[name] for name in shown}, actuals))

# %% [markdown]
# The ensemble's forecasts of the last round, against the weeks that followed:

# %%
from chaplab.plotting import fan_chart

fan_chart(everyone["ensemble"], actuals=actuals, history=12, title="Ensemble, round 2023-01-14")

# %% [markdown]
# ## 5. Other output types: categories and samples
#
# The hub's models also forecast each week's *category* of admissions (low, moderate, high,
# very high: the hub's thresholds per 100,000 people) as probabilities (pmf output). They are
# scored with the ranked probability score against the category observed (the hub's oracle
# output): 0 for all the probability on the right category, more the farther it lies.

# %% tags=["nbval-check-output"]
CATEGORY = "wk flu hosp rate category"
pmf = hubs.read_forecasts(hub, target=CATEGORY).pmf
observed = hubs.read_target_data(hub, target=CATEGORY)
categories = scoring.score_pmf(pmf, observed)
scoring.summarise(categories, by="horizon").pivot(
    index="horizon", columns="model", values="rps"
).round(3)

# %% [markdown]
# Each model also gave 100 samples per target. They become quantiles at the hub's levels by the
# interpolation the service uses for its own samples, and score close to the models' own
# quantiles.

# %% tags=["nbval-check-output"]
from_samples = scoring.summarise(scoring.score(forecasts.samples, actuals))
from_quantiles = scoring.summarise(scores[scores["model"].isin(frame["model"].cat.categories)])
pd.DataFrame(
    {
        "quantile output": from_quantiles.set_index("model")["wis"],
        "sample output": from_samples.set_index("model")["wis"],
    }
).round(1)

# %% [markdown]
# ## 6. Our forecast as a hub submission
#
# `to_model_output` turns a chaplab frame into a round's model-output rows and checks them
# against the hub's `tasks.json`: locations, horizons, target dates and quantile levels the hub
# accepts, values within its bounds. This hub also requires samples, which a quantile frame
# cannot give: the refusal says so, and `partial=True` gives the quantile rows alone.

# %%
try:
    hubs.to_model_output(mine, hub, round_id="2023-01-14", target=INC, model="chaplab-recent")
except ValueError as error:
    print(error)

# %%
import shutil
import tempfile
from pathlib import Path

copy = Path(tempfile.mkdtemp()) / "hub"
shutil.copytree(hub, copy)
rows = hubs.to_model_output(mine, copy, round_id="2023-01-14", target=INC, partial=True)
path = hubs.write_model_output(rows, copy, model="chaplab-recent")
rows.head()

# %% [markdown]
# Read back from the hub's files, the forecast is the one we wrote.

# %% tags=["nbval-check-output"]
back = hubs.read_forecasts(copy, target=INC, models=["chaplab-recent"]).quantiles
written = mine[mine["split_period"] == back["split_period"].iloc[0]]
columns = ["org_unit", "split_period", "period", "horizon", "quantile", "value"]
print(Path(path).relative_to(copy))
print(
    "read back equal:",
    back[columns]
    .astype({"org_unit": str})
    .equals(written[columns].astype({"org_unit": str}).reset_index(drop=True)),
)
