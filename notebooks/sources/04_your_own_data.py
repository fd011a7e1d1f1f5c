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
# `make_dataset` sends the table and the boundaries; the service stores them in a background
# job, whose result is the new dataset's id. The dataset then appears in every dataset list (and
# in the panel). (`create_dataset` does the same in one call, but chap-core 2.5.1 keeps only some
# of the features through it; `make_dataset` keeps them all on every server.)

# %%
# NBVAL_CHECK_OUTPUT
job = client.make_dataset("my districts", observations, geojson=geojson)
dataset_id = client.wait_for_job(job.id).result_id
dataset = next(d for d in client.list_datasets() if d.id == dataset_id)
print(f"{dataset.name}: {dataset.type} dataset, {dataset.first_period} to {dataset.last_period}")
print("org units:", ", ".join(sorted(dataset.org_units)))
print("features:", ", ".join(sorted(dataset.covariates)))

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
evaluation = client.run_evaluation(f"my districts: {model}", model, dataset.id,
                                   n_periods=3, n_splits=3)
pd.Series(evaluation.aggregate_metrics).round(3).to_frame("value")

# %% [markdown]
# ## 5. Forecast forward
#
# `run_prediction` sends your observations with the boundaries and asks the same model for the
# `n_periods=3` months after the last observed one. It runs as a job too and waits for it; the
# stored prediction's forecast is one `prediction_frame` call away.

# %%
prediction = client.run_prediction("my districts: next three months", model, observations,
                                   n_periods=3, geojson=geojson)
forecast = client.prediction_frame(prediction.id)
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
