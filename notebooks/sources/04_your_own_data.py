# %% [markdown]
# # Your own data: upload, evaluate, forecast forward
#
# This notebook takes observations of your own, as a
# pandas table, and
#
# 1. uploads them, with their places (GeoJSON), as a dataset,
# 2. evaluates a model on them, to see how well it would have forecast the past,
# 3. uses the same model to forecast the next three months.
#
# Here the "own" data is a real table: the monthly dengue cases, population, temperatures and
# drought index of the five microregions of Acre, Brazil, 2000-2019, as
# `chaplab.datasets.dengue_brazil` gives it (see docs/datasets.md; where it cannot be fetched,
# `own_table` in `demo_data.py` makes up three districts instead). Your own data would come from
# your file, e.g. with `pd.read_csv`, into the same columns.

# %%
import pandas as pd
from demo_data import own_table

import chaplab

client = chaplab.connect()

# %% [markdown]
# ## 1. Your observations as a table
#
# One row per place and month: `time_period` (months like `2018-01` or `201801`), `location` (the
# place's id; here the IBGE microregion code) and one column per measured feature.
# `disease_cases` is what the models forecast; the other columns are covariates that models may
# use. An `org_unit_name` column is a label, not a feature. Missing values are left empty (NaN),
# never zero: this table has no case counts for 2000. Its first five rows, turned (a line per
# column, so that every feature fits the page):

# %%
observations, geojson = own_table()
observations.head().T

# %% [markdown]
# ## 2. The places as GeoJSON
#
# The service stores the places with the data: one GeoJSON feature per place, whose `id` (and
# `properties.id`) is the id used in `location`, with its `name`. Boundaries usually come from a
# file (`json.load(open("districts.geojson"))`) and give maps. This table has none, so its
# features have a `null` geometry: everything works except maps.

# %%
geojson["features"][0]

# %% [markdown]
# ## 3. Upload them as a dataset
#
# `make_dataset` sends the table and the GeoJSON; the service stores them in a background
# job, whose result is the new dataset's id. The dataset then appears in every dataset list (and
# in the panel). (`create_dataset` does the same in one call, but chap-core 2.5.1 keeps only some
# of the features through it; `make_dataset` keeps them all on every server.)

# %% tags=["nbval-check-output"]
job = client.make_dataset("my districts", observations, geojson=geojson)
dataset_id = client.wait_for_job(job.id).result_id
dataset = next(d for d in client.list_datasets() if d.id == dataset_id)
print(f"{dataset.name}: {dataset.type} dataset")
print("every place stored:", set(dataset.org_units) == set(observations["location"]))
features = set(observations.columns) - {"time_period", "location", "org_unit_name"}
print("every feature stored:", set(dataset.covariates) == features)

# %% [markdown]
# ## 4. Evaluate a model on your data
#
# A seasonal model forecasts each month from the same month in earlier years: `seasonal_naive`
# on chaplab's service, `seasonal_median` on chap-core; take the one this server offers.
# `run_evaluation` starts the evaluation job and waits for it; a failed job raises
# `JobFailedError` with the reason.

# %%
offered = {m.name for m in client.list_configured_models() if not m.archived}
model = next(name for name in ("seasonal_naive", "seasonal_median") if name in offered)
evaluation = client.run_evaluation(
    f"my districts: {model}", model, dataset.id, n_periods=3, n_splits=3
)
pd.Series(evaluation.aggregate_metrics).round(3).to_frame("value")

# %% [markdown]
# ## 5. Forecast forward
#
# `run_prediction` sends your observations with the GeoJSON and asks the same model for the
# `n_periods=3` months after the last observed one. It runs as a job too and waits for it; the
# stored prediction's forecast is one `prediction_frame` call away.

# %%
prediction = client.run_prediction(
    "my districts: next three months", model, observations, n_periods=3, geojson=geojson
)
forecast = client.prediction_frame(prediction.id)
forecast.pivot_table(
    index=["org_unit_name", "period"], columns="quantile", values="value", observed=True
).round(1)

# %% [markdown]
# ## 6. The forecast after the history
#
# The bands are the forecast for the next three months, after the last year of observed cases
# (black): `history=12` shows that year, a whole season to hold the forecast against, and leaves
# the forecast room. The grey line is where the forecast starts.

# %%
from chaplab.frames import parse_periods
from chaplab.plotting import fan_chart

periods = parse_periods(observations["time_period"])
recent = periods >= periods.max() - 11
observed = pd.DataFrame(
    {
        "org_unit": observations["location"][recent],
        "period": periods[recent],
        "value": observations["disease_cases"][recent].astype(float),
    }
)
fan_chart(forecast, observed, history=12, title="Dengue cases: the next three months")
