# %% [markdown]
# # Your own data: upload, evaluate, forecast forward
#
# The demo data only shows how things work. This notebook takes observations of your own, as a
# pandas table, and
#
# 1. uploads them, with the district boundaries, as a dataset,
# 2. evaluates a model on them, to see how well it would have forecast the past,
# 3. uses the same model to forecast the next three months.
#
# Here the "own" data is made up in the notebook (three districts, six years of monthly cases,
# rainfall and temperature), so the notebook runs anywhere. To use real data, read your file
# instead, e.g. with `pd.read_csv`, into the same columns.

# %%
import numpy as np
import pandas as pd

import chaplab

client = chaplab.connect()

# %% [markdown]
# ## 1. Your observations as a table
#
# One row per district and month: `time_period` (months like `2018-01`), `location` (the
# district's id) and one column per measured feature. `disease_cases` is what the models
# forecast; the other columns are covariates that models may use.

# %%
rng = np.random.default_rng(7)
months = pd.period_range("2018-01", "2023-12", freq="M")
season = 1 + 0.8 * np.sin(2 * np.pi * (months.month.to_numpy() - 4) / 12)
rows = []
for district, size in [("north", 40), ("coast", 90), ("hills", 20)]:
    rainfall = rng.gamma(4, 30 * season)
    temperature = 24 + 4 * season + rng.normal(0, 0.7, len(months))
    cases = rng.poisson(size * season * (1 + rainfall / rainfall.mean()) / 2)
    rows.append(pd.DataFrame({
        "time_period": months.strftime("%Y-%m"), "location": district,
        "disease_cases": cases, "rainfall": rainfall.round(1),
        "mean_temperature": temperature.round(1),
    }))
observations = pd.concat(rows, ignore_index=True)
observations.head()

# %% [markdown]
# ## 2. The district boundaries as GeoJSON
#
# The service stores the boundaries with the data (maps, and models that use geography, need
# them). Each feature's `properties.id` is the district's id as used in `location`. Real
# boundaries usually come from a file (`json.load(open("districts.geojson"))`); these are squares.

# %%
def square(district: str, x: float, y: float) -> dict:
    """A GeoJSON feature: a 1x1 degree square with its lower left corner at (x, y)."""
    corners = [[x, y], [x + 1, y], [x + 1, y + 1], [x, y + 1], [x, y]]
    return {"type": "Feature", "id": district,
            "properties": {"id": district, "name": district.title()},
            "geometry": {"type": "Polygon", "coordinates": [corners]}}


geojson = {"type": "FeatureCollection",
           "features": [square("north", 30, 1), square("coast", 31, 0), square("hills", 30, 0)]}

# %% [markdown]
# ## 3. Upload them as a dataset
#
# `create_dataset` sends the table and the boundaries; the service answers with the stored
# dataset, which now appears in every dataset list (and in the panel).

# %%
# NBVAL_CHECK_OUTPUT
dataset = client.create_dataset("my districts", observations, geojson=geojson)
print(f"{dataset.name}: {dataset.type} dataset, {dataset.first_period} to {dataset.last_period}")
print("org units:", ", ".join(dataset.org_units))
print("covariates:", ", ".join(dataset.covariates))

# %% [markdown]
# ## 4. Evaluate a model on your data
#
# The `seasonal_naive` model forecasts each month from the same month in earlier years.
# `run_evaluation` starts the evaluation job and waits for it; a failed job raises
# `JobFailedError` with the reason.

# %%
evaluation = client.run_evaluation("my districts: seasonal naive", "seasonal_naive", dataset.id,
                                   n_periods=3, n_splits=3)
pd.Series(evaluation.aggregate_metrics).round(3).to_frame("value")

# %% [markdown]
# ## 5. Forecast forward
#
# A forward prediction needs a *configured model with data source*: the model together with
# the kind of data it is fed. The quickest way to get one is from the evaluation just run, which
# already ties the model to your dataset.
#
# The prediction request sends the latest observations and asks for the next `n_periods=3`
# months. It runs as a job too; `wait_for_job` waits for it and its result is the prediction's id.

# %%
from chaplab.client import PredictionRequest
from chaplab.frames import frame_to_observations

model_with_data = client.create_configured_model_with_data_source_from_evaluation(evaluation.id)
job = client.make_prediction(PredictionRequest(
    name="my districts: next three months",
    geojson=geojson,
    provided_data=frame_to_observations(observations),
    configured_model_with_data_source_id=model_with_data.id,
    n_periods=3,
))
prediction_id = client.wait_for_job(job.id).result_id
forecast = client.prediction_frame(prediction_id)
forecast.pivot_table(index=["org_unit", "period"], columns="quantile", values="value",
                     observed=True).round(1)

# %% [markdown]
# ## 6. The forecast after the history
#
# The bands are the forecast for the next three months, after the last two years of observed
# cases (black).

# %%
from chaplab.frames import parse_periods
from chaplab.plotting import fan_chart

recent = observations[observations["time_period"] >= "2022-01"]
history = pd.DataFrame({"org_unit": recent["location"],
                        "period": parse_periods(recent["time_period"]),
                        "value": recent["disease_cases"].astype(float)})
fan_chart(forecast, history, title="Next three months");
