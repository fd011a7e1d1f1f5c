# %% [markdown]
# # Compare two models on the same data
#
# Which of two forecasting models should a programme use? Evaluate both on the same dataset,
# with the same split periods, and compare their scores and their forecasts side by side.
#
# Here the two models are the `naive_model` (each district's average, with count noise) and the
# `seasonal_naive` model (the same month in previous years), both configured in the demo service.

# %%
import chaplab

client = chaplab.connect()
dataset = next(d for d in client.list_datasets() if d.name == "demo")
model_names = [m.name for m in client.list_configured_models()]
print("dataset:", dataset.name, f"({dataset.first_period} to {dataset.last_period})")
print("configured models:", ", ".join(model_names))

# %% [markdown]
# ## 1. Start both evaluations
#
# Both evaluations use the same settings (3 split periods, 3 months ahead), so that their scores
# are comparable. The service runs them as background jobs, side by side; `wait_for_job` waits
# for each and raises `JobFailedError` if one fails.

# %%
# NBVAL_CHECK_OUTPUT
settings = {"n_periods": 3, "n_splits": 3}
jobs = {
    model: client.create_evaluation(f"compare: {model}", model, dataset.id, **settings)
    for model in ["naive_model", "seasonal_naive"]
}
evaluations = {}
for model, job in jobs.items():
    finished = client.wait_for_job(job.id)
    evaluations[model] = client.get_evaluation(finished.result_id)
    print(model, "->", finished.status)

# %% [markdown]
# ## 2. The scores in one table
#
# One row per evaluation. Errors (`crps`, `mae`, `rmse`, the Winkler scores) are better when
# lower; a coverage is the share of true values inside a forecast interval and should be close
# to the interval's width (0.8 for 10-90%, 0.5 for 25-75%).

# %%
from chaplab.plotting import metrics_frame

metrics_frame(evaluations.values()).round(3)

# %% [markdown]
# ## 3. The forecasts side by side
#
# `compare_chart` overlays the forecast bands of the two evaluations on the periods they share,
# with the actual cases in black. Here for two districts and the last split period.

# %%
from chaplab.plotting import compare_chart

naive, seasonal = evaluations["naive_model"], evaluations["seasonal_naive"]
districts = list(naive.org_units[:2])
actuals = client.actual_cases(naive.id, org_units=districts)
compare_chart(
    client.evaluation_frame(naive.id, org_units=districts),
    client.evaluation_frame(seasonal.id, org_units=districts),
    actuals[actuals["period"] >= actuals["period"].max() - 24],
    labels=("naive_model", "seasonal_naive"),
    split_period=naive.split_periods[-1],
);
