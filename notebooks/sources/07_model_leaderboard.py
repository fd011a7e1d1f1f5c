# %% [markdown]
# # A leaderboard of models against baselines
#
# Which model should a programme trust? Run every candidate on the same backtest, next to simple
# baselines that any model should beat, and score them all the same way. This notebook runs
# chaplab's models (those the server offers) and chap-core's three baselines on the demo data as
# **one batch**, then reads:
#
# 1. the server's leaderboard: each model compared with each baseline;
# 2. relative skill with bootstrap intervals (`chaplab.scoring`);
# 3. the weighted interval score split into dispersion, over- and under-prediction;
# 4. calibration: PIT histograms and coverage.
#
# The baselines are chap-core's, described as chap-core describes them: `persistence` (the last
# value, scaled by how cases changed in earlier years), `seasonal_median` (all past values of the
# same month) and `global_median` (all past values).

# %%
from demo_data import demo_dataset

import chaplab

client = chaplab.connect()
dataset = demo_dataset(client)
print("dataset:", dataset.name, f"({dataset.span})")

# %% [markdown]
# ## 1. One batch, one specification
#
# `run_backtests` sends every model in one request (`POST /v1/analytics/create-backtests`). The
# server files them under one *backtest specification* (the dataset and the backtest settings),
# so they are comparable by construction, runs one job per model, and runs each baseline once
# per specification as the reference. It returns the specification's leaderboard when every job
# has finished. A baseline asked for in the batch is that reference run.

# %% [markdown]
# The candidates are chaplab's three models, those of them the server offers: chap-core runs
# `naive_model` offline but not `seasonal_naive` or `regression_model`, which are chaplab's.

# %%
BASELINES = ["persistence", "seasonal_median", "global_median"]
offered = {model.name for model in client.list_configured_models() if not model.archived}
MODELS = [m for m in ("naive_model", "seasonal_naive", "regression_model") if m in offered]
print("models:", ", ".join(MODELS), "| baselines:", ", ".join(BASELINES))

# %%
leaderboard = client.run_backtests(
    "leaderboard", MODELS + BASELINES, dataset.id, n_periods=3, n_splits=6, timeout=600
)
print("specification", leaderboard.id, "with", len(leaderboard.org_units), "districts")

# %% [markdown]
# Every evaluation carries a comparison with every baseline that is done. For scores where lower
# is better the value is `(baseline - model) / baseline`: 0.2 means 20% better than the baseline,
# negative means worse. For coverage it is how much closer to the target (0.8 for the 10-90%
# interval) the model comes, in proportion.

# %%
import pandas as pd

newest = {}
for evaluation in leaderboard.backtests:  # newest first: keep each model's latest run
    newest.setdefault(evaluation.model_id, evaluation)
names = {ref.configured_model.id: ref.configured_model.name for ref in leaderboard.baselines}
pd.DataFrame(
    {
        (model, names[comparison.configured_model_id]): comparison.values
        for model, evaluation in newest.items()
        for comparison in evaluation.comparisons
    }
).T[["crps", "mae", "coverage_10_90"]].round(2)

# %% [markdown]
# ## 2. Score every forecast the same way
#
# `chaplab.scoring` works on the tidy frames of any server: the forecast quantiles of each
# evaluation and the actual cases. One row per model and forecast target (a district, a split
# period and a month ahead).

# %%
from chaplab import scoring

runs = {name: newest[name].id for name in MODELS}
runs |= leaderboard.baseline_runs()  # the baselines, not other configurations of them
forecasts = {name: client.evaluation_frame(evaluation_id) for name, evaluation_id in runs.items()}
actuals = client.actual_cases(runs["naive_model"])
scores = scoring.score(forecasts, actuals)

# %% [markdown]
# Every model is scored on the same forecast targets: 6 districts, 6 split periods, 3 months
# ahead, 108 per model.

# %%
targets = scores.groupby("model", observed=True, sort=False).size()
print(targets.to_string())

# %% tags=["nbval-check-output"]
print("forecast targets per model:", sorted(set(targets)))

# %% [markdown]
# ## 3. The leaderboard: relative skill
#
# A model's relative skill is its mean weighted interval score (WIS) over the baseline's, from
# pairwise comparisons on the targets both have, with a 90% bootstrap interval that resamples
# whole forecasts (district x split period). Below 1 beats the `seasonal_median` baseline.

# %%
from chaplab.plotting import leaderboard_chart

skill = scoring.relative_skill(scores, baseline="seasonal_median", n_bootstrap=1000, seed=0)
leaderboard_chart(skill)

# %% [markdown]
# ## 4. What the WIS is made of
#
# Dispersion is the width of the forecast intervals; over- and under-prediction are the
# penalties for actual cases outside them, above or below.

# %%
from chaplab.plotting import wis_components_chart

wis_components_chart(scoring.summarise(scores))

# %% [markdown]
# ## 5. Calibration: PIT histograms and coverage
#
# The PIT histogram of a calibrated model is flat at density 1; a U shape means intervals that
# are too narrow, a hump too wide, a slope a bias. The coverage plot sets the share of actual
# cases inside each central interval (and at or below each quantile) against its nominal level.

# %%
from chaplab.plotting import pit_chart

pit_chart(scoring.pit_histogram(forecasts, actuals))

# %%
from chaplab.plotting import coverage_chart

coverage_chart(scoring.coverage(forecasts, actuals))

# %% [markdown]
# Where does each model struggle? Its mean WIS by district and month ahead. The scores are keyed
# by the districts' ids; `with_org_unit_names` adds their names from the dataset's GeoJSON, and
# the heatmap's rows read them.

# %%
from chaplab.frames import with_org_unit_names
from chaplab.plotting import score_heatmap

districts = client.get_dataset(dataset.id).geojson
score_heatmap(with_org_unit_names(scores, districts), "wis")
