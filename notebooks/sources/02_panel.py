# %% [markdown]
# # The chaplab panel
#
# The panel puts the modeling service on one screen: its datasets and configured models, a form
# to configure a new model, a launcher for evaluations, the jobs running in the background, and
# the finished evaluations with their fan charts. Everything in it can be done with the mouse;
# this notebook also does it from code, so that a run of the notebook shows a finished result.
#
# As in the other notebooks, `chaplab.connect()` starts a small modeling service on this computer,
# unless `CHAP_URL` names a deployed service (such as chap-core). The data are real: monthly dengue
# cases of the five microregions of Acre, Brazil, 2000-2019, uploaded first if the service lacks
# them (see `demo_data.py` beside this notebook; synthetic demo data where they cannot be
# fetched).

# %% [markdown]
# ## 1. Open the panel
#
# The panel talks to the service in the background, so the notebook stays usable while it loads
# and while jobs run. `await panel.ready()` waits until the first load is done.

# %%
from demo_data import real_dataset  # beside this notebook: uploads the data if needed

import chaplab
from chaplab.widgets import ChapPanel

dataset_name = real_dataset(chaplab.connect()).name
panel = ChapPanel(chaplab.connect(async_=True))
panel

# %%
await panel.ready()
print(f"{len(panel.dataset_list)} datasets, {len(panel.model_list)} configured models")

# %% [markdown]
# ## 2. Launch an evaluation from code
#
# Clicking a dataset and a configured model and then **Run evaluation** does the same as this
# cell: it selects the Acre dataset and the `naive_model`, asks for a small evaluation
# (3 split periods, 3 months ahead) and launches it. The job appears under **Jobs**; when it has
# finished, its evaluation is selected under the results and its fan chart is drawn. (`launch`
# returns at once; the evaluation runs in the background.)

# %%
dataset = next(d for d in panel.dataset_list if d.name == dataset_name)
model = next(m for m in panel.model_list if m.name == "naive_model")
panel.datasets.select(dataset.id)
panel.models.select(model.id)
panel.launcher.n_periods.value = 3
panel.launcher.n_splits.value = 3
panel.launch()

# %% [markdown]
# Wait until the panel has nothing left to do: the job has ended and the chart is drawn. Then make
# sure the job succeeded; a failed job stops the notebook here with the service's error message.

# %% tags=["nbval-check-output"]
await panel.wait_idle()
assert panel.jobs.rows, f"no job was launched: {panel.launcher.problem.value}"
job = panel.jobs.rows[0]
assert job.status == "SUCCESS", f"job {job.name!r} ended {job.status}: {job.error_label.value}"
print(f"{job.name}: {job.status}")

# %% [markdown]
# ## 3. Take the result into your own analysis
#
# `panel.frame` is the selected evaluation's forecast as a pandas table (one row per org unit,
# split period, period and quantile), ready for your own tables and charts.

# %%
panel.frame.head()
