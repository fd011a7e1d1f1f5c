# %% [markdown]
# # Compare two models on the same data
#
# Which of two forecasting models should a programme use? Evaluate both on the same dataset,
# with the same split periods, and compare their scores and their forecasts side by side.
#
# Here the two models are the `naive_model` and a seasonal model that forecasts a month from the
# same month in earlier years: `seasonal_naive` on chaplab's service, `seasonal_median` on
# chap-core. The data are real: monthly dengue cases of the five microregions of Acre, Brazil,
# 2000-2019 (`chaplab.datasets.dengue_brazil`, uploaded first if the server lacks it, see
# `demo_data.py` beside this notebook; synthetic demo data where it cannot be fetched).

# %%
from demo_data import real_dataset

import chaplab

client = chaplab.connect()
dataset = real_dataset(client)
print("dataset:", dataset.name, f"({dataset.span})")

# %% [markdown]
# Pick the two models from what this server offers:

# %%
offered = {m.name for m in client.list_configured_models() if not m.archived}
seasonal = next(name for name in ("seasonal_naive", "seasonal_median") if name in offered)
models = {"naive": "naive_model", "seasonal": seasonal}
print("comparing", " and ".join(models.values()))

# %% [markdown]
# ## 1. Start both evaluations
#
# Both evaluations use the same settings (3 split periods, 3 months ahead), so that their scores
# are comparable. The service runs them as background jobs, side by side; `wait_for_job` waits
# for each and raises `JobFailedError` if one fails.

# %% tags=["nbval-check-output"]
settings = {"n_periods": 3, "n_splits": 3}
jobs = {
    kind: client.create_evaluation(f"compare: {name}", name, dataset.id, **settings)
    for kind, name in models.items()
}
evaluations = {}
for kind, job in jobs.items():
    finished = client.wait_for_job(job.id)
    evaluations[kind] = client.get_evaluation(finished.result_id)
    print(kind, "model ->", finished.status)

# %% [markdown]
# ## 2. The scores in one table
#
# One column per evaluation, a row per metric. Errors (`crps`, `mae`, `rmse`, the Winkler
# scores) are better when lower; a coverage is the share of true values inside a forecast
# interval and should be close to the interval's width (0.8 for 10-90%, 0.5 for 25-75%).

# %%
from chaplab.plotting import metrics_frame

metrics_frame(evaluations.values()).set_index("name").round(3).T  # a metric per row

# %% [markdown]
# ## 3. The forecasts side by side
#
# `compare_chart` overlays the forecast bands of the two evaluations on the periods they share,
# with the actual cases in black. Here for the two microregions with the most cases and the last
# split period, after the year of cases before it (`history=12`).

# %%
from chaplab.plotting import compare_chart

naive_run, seasonal_run = evaluations["naive"], evaluations["seasonal"]
all_actuals = client.actual_cases(naive_run.id)
districts = list(all_actuals.groupby("org_unit", observed=True)["value"].sum().nlargest(2).index)
compare_chart(
    client.evaluation_frame(naive_run.id, org_units=districts),
    client.evaluation_frame(seasonal_run.id, org_units=districts),
    all_actuals[all_actuals["org_unit"].isin(districts)],
    labels=tuple(models.values()),
    split_period=naive_run.split_periods[-1],
    history=12,
)
