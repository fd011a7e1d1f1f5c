# %% [markdown]
# # Your own model on the leaderboard
#
# A model in development is two Python functions, not yet a service. `chaplab.backtest` runs
# them here, in the notebook, on exactly the splits the service's evaluations use, and answers
# the same table an evaluation answers. So the new model goes on one leaderboard with the
# service's models and chap-core's baselines, scored the same way, and into an ensemble with
# them. This notebook:
#
# 1. writes a model as two functions, in chapkit's functional shape;
# 2. backtests it on real data (dengue in the five microregions of Acre, Brazil, 2000-2019);
# 3. runs the service's models and baselines on the same backtest;
# 4. combines them into an ensemble weighted by skill on earlier splits only;
# 5. ranks everything on one leaderboard;
# 6. serves the same two functions with chapkit, so chap-core can run them as a model.
#
# Step 6 runs the service in a Python 3.13 environment with chapkit (`make test-peer` installs
# one beside chap-core); on a machine without one, its cells say so in a line and go on.

# %%
from demo_data import real_dataset

import chaplab

client = chaplab.connect()
dataset = real_dataset(client)  # "dengue Brazil (Acre)", uploaded first if the server lacks it
data = client.dataset_frame(dataset.id)
geojson = client.get_dataset(dataset.id).geojson
data.head().T  # the first rows, turned: a line per column

# %% [markdown]
# ## 1. A model is two functions
#
# chapkit's functional models are `train(config, data, geo) -> model` and
# `predict(config, model, historic, future, geo) -> future` with one `sample_<i>` column per
# sample. `data` and `historic` are the rows before the forecast; `future` has one row per
# microregion and forecast month with the covariates and without `disease_cases`.
#
# This model forecasts each microregion's usual cases for the calendar month (its mean over the
# training history), scaled by how the last three months before the forecast compare with their
# usual level, with negative binomial noise of the dispersion seen in training. As the service
# and chap-core train a model service's model in a backtest, `train` runs once, on the history
# before the first split, and every split's `predict` gets that model and its own history.
# Two optional keywords: `rng`, a random generator per split that `chaplab.backtest` seeds
# (chapkit passes none), and `n_samples`.

# %%
import numpy as np
import pandas as pd

RECENT_MONTHS = 3


def with_usual(frame, usual):
    """``frame`` with each row's calendar month and the usual cases of that month."""
    month = frame["time_period"].astype(str).str[-2:]
    return frame.assign(month=month).join(usual, on=["location", "month"])


def train(config, data, geo):
    """Each microregion's mean cases per calendar month and how much the cases vary around it."""
    month = data["time_period"].astype(str).str[-2:]
    usual = data.groupby(["location", month])["disease_cases"].mean().rename("usual")
    usual.index.names = ["location", "month"]
    seen = with_usual(data, usual)
    ratio = seen["disease_cases"] / seen["usual"].clip(lower=1.0)
    return {"usual": usual, "spread": ratio.groupby(seen["location"]).std().fillna(1.0)}


def predict(config, model, historic, future, geo, *, rng=None, n_samples=100):
    """Negative binomial samples around the usual cases of the month times the recent level
    (the last months' cases over their usual ones)."""
    rng = rng if rng is not None else np.random.default_rng()
    recent = with_usual(historic, model["usual"]).sort_values("time_period")
    recent = recent.groupby("location").tail(RECENT_MONTHS).groupby("location")
    level = (recent["disease_cases"].sum() / recent["usual"].sum().clip(lower=1.0)).clip(0.2, 5)
    ahead = with_usual(future, model["usual"])
    mean = np.maximum(ahead["usual"].fillna(0.0) * ahead["location"].map(level), 0.1).to_numpy()
    dispersion = 1.0 / np.maximum(future["location"].map(model["spread"]).to_numpy(), 0.05) ** 2
    draws = rng.negative_binomial(
        dispersion[:, None], (dispersion / (dispersion + mean))[:, None], (len(future), n_samples)
    )
    samples = pd.DataFrame(
        draws, index=future.index, columns=[f"sample_{i}" for i in range(n_samples)]
    )
    return pd.concat([future, samples], axis=1)


# %% [markdown]
# ## 2. Backtest it in the notebook
#
# No server is involved: the splits come from `chaplab.vocabulary.BacktestPlan`, the plan the
# service's evaluations are cut by, and each split is named by its first forecast month. The splits
# run concurrently in threads; the bar counts them. The answer is an evaluation frame.

# %%
SETTINGS = {"n_periods": 3, "n_splits": 12, "stride": 1}
mine = chaplab.backtest(train, predict, data, **SETTINGS, geojson=geojson, seed=1)
mine.head()

# %% [markdown]
# ## 3. The service's models and baselines on the same backtest
#
# One batch of the service's `naive_model` (and `seasonal_naive` where the server has it) with
# chap-core's three baselines, as notebook 07 runs it.

# %%
BASELINES = ["persistence", "seasonal_median", "global_median"]
offered = {model.name for model in client.list_configured_models() if not model.archived}
MODELS = [m for m in ("naive_model", "seasonal_naive") if m in offered]
batch = client.run_backtests(
    "your own model", MODELS + BASELINES, dataset.id, **SETTINGS, timeout=600
)
newest = {}
for evaluation in batch.backtests:  # newest first: each model's latest run
    newest.setdefault(evaluation.model_id, evaluation.id)
runs = {name: newest[name] for name in MODELS}
runs |= batch.baseline_runs()  # the baselines, not other configurations of them
served = {name: client.evaluation_frame(evaluation_id) for name, evaluation_id in runs.items()}
actuals = client.actual_cases(runs["naive_model"])
print("served:", ", ".join(served))

# %% [markdown]
# The local backtest forecasts exactly what the service's evaluations forecast: the same
# microregions, split periods and months ahead.

# %% tags=["nbval-check-output"]
keys = ["org_unit", "split_period", "period", "horizon", "quantile"]
same = all(frame[keys].equals(mine[keys]) for frame in served.values())
print("same rows as every evaluation of the service:", same)
print(
    "splits:",
    mine["split_period"].nunique(),
    "| microregions:",
    mine["org_unit"].nunique(),
    "| horizons:",
    sorted(mine["horizon"].unique().tolist()),
)

# %% [markdown]
# ## 4. An ensemble
#
# `scoring.ensemble` averages the members' quantiles target by target. With `weights="skill"`
# each split's weights are 1 / relative skill on the months observed before that split, never
# on the months it forecasts (the first split, with no history scored, gets equal weights).

# %%
from chaplab import scoring

members = {**served, "mine": mine}
forecasts = {**members, "ensemble": scoring.ensemble(members, weights="skill", actuals=actuals)}

# %% [markdown]
# ## 5. One leaderboard
#
# Local backtest, the service's evaluations and the ensemble are scored the same way and ranked
# by relative weighted interval score (below 1 beats the `seasonal_median` baseline).

# %%
from chaplab.plotting import leaderboard_chart, score_heatmap

scores = scoring.score(forecasts, actuals)
skill = scoring.relative_skill(scores, baseline="seasonal_median", n_bootstrap=1000, seed=0)
leaderboard_chart(skill)

# %% tags=["nbval-check-output"]
print("mine and the ensemble ranked:", {"mine", "ensemble"} <= set(skill["model"]))
print("targets per model:", sorted(set(scores.groupby("model", observed=True).size())))

# %%
score_heatmap(scores, "wis", models=["mine", "ensemble", "seasonal_median"])

# %% [markdown]
# ## 6. The same functions as a chapkit service
#
# When the model is good enough, chapkit serves it: `chapkit_runner` wraps the two functions
# with chapkit's signatures (its own DataFrame and FeatureCollection converted to pandas and a
# GeoJSON dict, so the functions stay as they are) and chapkit's `MLServiceBuilder` makes it a
# model service. Started with `SERVICEKIT_ORCHESTRATOR_URL` set, it registers itself with the
# server this notebook talks to (`/v2/services/$register`, chap-core's or this service's), which
# then configures and evaluates it like its other models.
#
# chapkit needs Python 3.13, so the service runs as a process of its own: the model's code (the
# functions' source) and a service script go to a folder, and a Python 3.13 environment with
# chapkit runs them: the one `CHAPLAB_CHAPKIT_PYTHON` names, else the one `make test-peer`
# installs beside chap-core (in `$CHAPLAB_PEER_CACHE`, by default `~/.cache/chaplab/peer-2.5.1`).
# On a machine without one, the cells below say so in a line and the notebook ends here.

# %%
import inspect
import tempfile
from pathlib import Path

SERVICE_SCRIPT = """\
import os

from chapkit import BaseConfig
from chapkit.api import AssessedStatus, MLServiceBuilder, MLServiceInfo, ModelMetadata, PeriodType
from chapkit.artifact import ArtifactHierarchy
from servicekit.api.utilities import run_app

from chaplab.chapkit_functions import chapkit_runner
from monthly_level import predict, train

info = MLServiceInfo(
    id="monthly-level",
    display_name="Monthly level",
    version="0.1.0",
    description="The usual cases of the month times the recent level, negative binomial noise.",
    model_metadata=ModelMetadata(author="you", author_assessed_status=AssessedStatus.red),
    period_type=PeriodType.monthly,
)
app = MLServiceBuilder(
    info=info,
    config_schema=BaseConfig,
    hierarchy=ArtifactHierarchy(name="monthly_level"),
    runner=chapkit_runner(train, predict),
    database_url="sqlite+aiosqlite:///monthly_level.db",
).with_registration(keepalive_interval=5).build()
run_app(app, host="127.0.0.1", port=int(os.environ["SERVICEKIT_PORT"]))
"""

folder = Path(tempfile.mkdtemp(prefix="monthly-level-"))
model_code = "\n\n".join(inspect.getsource(function) for function in (with_usual, train, predict))
(folder / "monthly_level.py").write_text(
    f"import numpy as np\nimport pandas as pd\n\nRECENT_MONTHS = {RECENT_MONTHS}\n\n{model_code}"
)
(folder / "service.py").write_text(SERVICE_SCRIPT)
sorted(path.name for path in folder.iterdir())

# %% [markdown]
# Start it. `start_chapkit_service` runs the script in the Python with chapkit, on a free port,
# with this chaplab's source importable (a deployed service installs chaplab beside chapkit
# instead), and waits until the server lists the service among its model runners. chap-core
# keeps a service's template only when the service names its source revision (`GIT_REVISION`,
# a commit hash): here the hash of the folder's code.

# %%
from chaplab.chapkit_functions import start_chapkit_service

service = start_chapkit_service(folder / "service.py", "monthly-level", client)
if service:
    print("registered:", [runner.id for runner in client.list_model_runners()])

# %% [markdown]
# The server stores the service's template, configures a model from it and evaluates it on the
# same backtest as the local one. The served model joins the leaderboard; its score should be
# close to the local backtest's (the same model, other random draws).

# %%
from IPython.display import display

if service is None:
    print("skipped: the model is not served on this machine (see above)")
else:
    template = client.register_template_from_service("monthly-level")
    configured = client.create_configured_model("monthly_level", template.id, {})
    evaluation = client.run_evaluation(
        "your own model, served", configured.name, dataset.id, **SETTINGS, timeout=600
    )
    forecasts["mine, served"] = client.evaluation_frame(evaluation.id)
    print("same rows as the local backtest:", forecasts["mine, served"][keys].equals(mine[keys]))
    scores = scoring.score(forecasts, actuals)
    skill = scoring.relative_skill(scores, baseline="seasonal_median", n_bootstrap=1000, seed=0)
    display(leaderboard_chart(skill))

# %%
if service:
    service.stop()  # stop the model service
