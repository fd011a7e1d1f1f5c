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
# Step 6 runs the service in a Python 3.13 environment with chapkit (`make test-peer`'s, beside
# chap-core): its cells are tagged `chapkit`, and `make test`, which has no such environment,
# reports them as skipped with that reason instead of running them.

# %%
from demo_data import real_dataset

import chaplab

client = chaplab.connect()
dataset = real_dataset(client)  # "dengue Brazil (Acre)", uploaded first if the server lacks it
data = client.dataset_frame(dataset.id)
geojson = client.get_dataset(dataset.id).geojson
data.head()

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
# No server is involved: the splits come from `chaplab.vocabulary.split_windows`, the function
# the service's evaluations use, and each split is named by its first forecast month. The splits
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
# chapkit runs them (here the one `make test-peer` installs beside chap-core, in
# `$CHAPLAB_PEER_CACHE`, by default `~/.cache/chaplab/peer-2.5.1`). The cells below are tagged
# `chapkit` (and `skip-execution`, which the notebook build honours): `make test` has no such
# environment and reports them as skipped; `make test-peer` runs them
# (`pytest --run-chapkit-cells`).

# %% tags=["chapkit", "skip-execution"]
import inspect
import os
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
# Start it. chap-core keeps a service's template only when the service names its source revision
# (`GIT_REVISION`, a commit hash); `chaplab.chapkit_functions` comes from this chaplab's source
# (`PYTHONPATH`; a deployed service installs chaplab beside chapkit instead). The service is
# listed among the server's model runners once it has registered.

# %% tags=["chapkit", "skip-execution"]
import socket
import subprocess
import time

cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
peer_cache = Path(os.environ.get("CHAPLAB_PEER_CACHE", cache / "chaplab" / "peer-2.5.1"))
python313 = peer_cache / "venv" / "bin" / "python"  # Python 3.13 with chapkit
with socket.socket() as probe:  # a free port for the service
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
log = folder / "service.log"
with log.open("wb") as output:  # the service's own output, shown if it fails
    service = subprocess.Popen(
        [str(python313), "service.py"],
        cwd=folder,
        env={
            **os.environ,
            "SERVICEKIT_ORCHESTRATOR_URL": f"{client.base_url}/v2/services/$register",
            "SERVICEKIT_HOST": "127.0.0.1",
            "SERVICEKIT_PORT": str(port),
            "GIT_REVISION": "0123456789abcdef0123456789abcdef01234567",
            "PYTHONPATH": str(Path(chaplab.__file__).parents[1]),
        },
        stdout=output,
        stderr=subprocess.STDOUT,
    )
deadline = time.monotonic() + 90
while not any(
    runner.id == "monthly-level" and str(runner.url).endswith(f":{port}")
    for runner in client.list_model_runners()
):
    if service.poll() is not None or time.monotonic() > deadline:
        raise RuntimeError(f"the service did not register:\n{log.read_text()}")
    time.sleep(0.5)
print("registered:", [runner.id for runner in client.list_model_runners()])

# %% [markdown]
# The server stores the service's template, configures a model from it and evaluates it on the
# same backtest as the local one. The served model joins the leaderboard; its score should be
# close to the local backtest's (the same model, other random draws).

# %% tags=["chapkit", "skip-execution"]
template = client.register_template_from_service("monthly-level")
configured = client.create_configured_model("monthly_level", template.id, {})
evaluation = client.run_evaluation(
    "your own model, served", configured.name, dataset.id, **SETTINGS, timeout=600
)
forecasts["mine, served"] = client.evaluation_frame(evaluation.id)
print("same rows as the local backtest:", forecasts["mine, served"][keys].equals(mine[keys]))
scores = scoring.score(forecasts, actuals)
skill = scoring.relative_skill(scores, baseline="seasonal_median", n_bootstrap=1000, seed=0)
leaderboard_chart(skill)

# %% tags=["chapkit", "skip-execution"]
service.terminate()  # stop the model service
service.wait(timeout=30)
