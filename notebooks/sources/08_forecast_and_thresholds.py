# %% [markdown]
# # From forecast to decision: thresholds, outbreak probabilities and maps
#
# An evaluation says which model to trust; a programme acts on the forecast of the next months
# and on whether it crosses the *endemic threshold*, the level above which cases count as an
# outbreak. This notebook
#
# 1. forecasts the three months after the demo data with a configured model,
# 2. shows the forecast after the last year of cases,
# 3. asks the server for each district's threshold for those months, by one of its strategies,
# 4. turns the forecast's quantiles into the probability that cases exceed the threshold,
# 5. draws that probability as district x month tiles, and the forecast and the probability on
#    maps of the districts.

# %%
from demo_data import demo_dataset, demo_table

import chaplab

client = chaplab.connect()
dataset = demo_dataset(client)
observations, geojson = demo_table()
print("dataset:", dataset.name, f"({dataset.span})")

# %% [markdown]
# ## 1. Forecast the next three months
#
# `run_prediction` sends the observations with the district boundaries and asks the configured
# model for the `n_periods=3` months after the last observed one; it waits for the job.
# `prediction_frame` reads the forecast's quantiles, one row per district, month and quantile,
# with the districts' names.

# %%
offered = {model.name for model in client.list_configured_models() if not model.archived}
model = next(name for name in ("seasonal_naive", "seasonal_median") if name in offered)
prediction = client.run_prediction(
    "next three months", model, observations, n_periods=3, geojson=geojson
)
forecast = client.prediction_frame(prediction.id)
forecast.head()

# %% [markdown]
# ## 2. The forecast after the last year of cases
#
# The bands are the forecast's 10-90 % and 25-75 % intervals, the line its median; black is what
# was observed.

# %%
from chaplab.frames import parse_periods
from chaplab.plotting import fan_chart

actuals = observations.assign(period=parse_periods(observations["time_period"]))
actuals = actuals.rename(columns={"location": "org_unit", "disease_cases": "value"})
fan_chart(
    forecast,
    actuals[["org_unit", "period", "value"]],
    history=12,
    title=f"{model}: the next three months",
)

# %% [markdown]
# ## 3. Endemic thresholds
#
# The server computes thresholds from the dataset's past cases, for any period, from the data
# before it only. Its strategies:

# %%
import pandas as pd

pd.DataFrame(
    [(s.id, s.display_name, s.description) for s in client.list_threshold_strategies()],
    columns=["id", "name", "what it computes"],
)

# %% [markdown]
# The `seasonal` strategy puts the threshold at the mean of the same month in earlier years plus
# two standard deviations. One threshold per district and forecast month:

# %%
from chaplab.frames import format_period

months = [format_period(period) for period in sorted(forecast["period"].unique())]
thresholds = client.compute_thresholds(dataset.id, months, {"type": "seasonal"})
thresholds.params

# %% [markdown]
# Each entry holds one value per threshold line (here one: two standard deviations), missing
# where the history is too short. `frame()` gives them as a table, one row per district, month
# and line, with the districts' names:

# %%
from chaplab.frames import readable

lines = thresholds.frame()
readable(lines.drop(columns="org_unit")).head()  # the ids stay in the table, the names are read

# %% [markdown]
# ## 4. The probability of an outbreak
#
# `exceedance_probability` reads, for each district and month, where the threshold falls among
# the forecast's quantiles: P(cases > threshold), interpolated between the quantile levels
# (beyond the outermost levels only a bound is known: `probability_lower` and `probability_upper`
# hold it, and tables, tiles and maps write it as `< 10%` or `> 90%`, hatched).

# %%
from chaplab.scoring import exceedance_probability

outbreaks = exceedance_probability(forecast, lines)
readable(outbreaks.drop(columns="org_unit")).head(6)

# %% [markdown]
# ## 5. Tiles: which districts, which months
#
# One row per district, one column per month; white is no chance, dark red certain.

# %%
from chaplab.plotting import probability_tiles

probability_tiles(outbreaks, strategy="seasonal", sort="probability")

# %% [markdown]
# ## 6. Maps
#
# `map_chart` colours each district's polygon from the dataset's GeoJSON by any value per
# district: here the forecast's median, one map per month on one colour scale, and the outbreak
# probability on the fixed 0-100 % scale.

# %%
from chaplab.plotting import map_chart

map_chart(forecast, geojson, units="cases")

# %%
map_chart(outbreaks, geojson, "probability")

# %% [markdown]
# A dataset whose org units have no boundaries (a GeoJSON of points, or of features without
# geometry, which chap-core accepts) gets a sentence instead of a map; no shapes are made up.

# %% tags=["nbval-check-output"]
from chaplab.plotting import NoPolygonsError

points = {
    "type": "FeatureCollection",
    "features": [
        {**feature, "geometry": {"type": "Point", "coordinates": [-11.5, 8.0]}}
        for feature in geojson["features"]
    ],
}
try:
    map_chart(forecast, points)
except NoPolygonsError as error:
    print(error)
