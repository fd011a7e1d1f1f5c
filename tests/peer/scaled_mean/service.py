"""A model service from two Python functions: chapkit serves them, registers the service with
the orchestrator in $SERVICEKIT_ORCHESTRATOR_URL (chap-core, or chaplab's service) as reachable
at $SERVICEKIT_HOST:$SERVICEKIT_PORT, and pings it alive.

The model: every future period of an org unit gets ``scale`` times the mean of its history,
as one sample. Deterministic, so the same data gives the same forecasts on any orchestrator.
Runs in the peer's environment (Python 3.13, chapkit 2.4): ``python service.py``, keeping its
configs and trained models in the SQLite file $SCALED_MEAN_DATABASE."""

from __future__ import annotations

import asyncio
import os

from chapkit import BaseConfig
from chapkit.api import AssessedStatus, MLServiceBuilder, MLServiceInfo, ModelMetadata, PeriodType
from chapkit.artifact import ArtifactHierarchy
from chapkit.data import DataFrame
from chapkit.ml import FunctionalModelRunner
from servicekit.api.utilities import run_app


class ScaledMeanConfig(BaseConfig):
    """The model's options: what the mean is multiplied by, and how long training takes (the
    tests use a slow one to stop its service mid-job)."""

    scale: float = 1.0
    training_seconds: float = 0.0


async def train(config: ScaledMeanConfig, data: DataFrame, geo: object = None) -> dict[str, float]:
    """Each org unit's mean of ``disease_cases`` times ``scale`` (which may not be negative)."""
    if config.scale < 0:
        raise ValueError(f"scale must not be negative, got {config.scale}")
    await asyncio.sleep(config.training_seconds)
    frame = data.to_pandas()
    print(f"training on {len(frame)} rows of {frame['location'].nunique()} places")
    means = frame.groupby("location")["disease_cases"].mean() * config.scale
    return {str(place): float(value) for place, value in means.items()}


async def predict(
    config: ScaledMeanConfig,
    model: dict[str, float],
    historic: DataFrame,
    future: DataFrame,
    geo: object = None,
) -> DataFrame:
    """Every future row gets its place's value as ``sample_0``."""
    frame = future.to_pandas()
    frame["sample_0"] = frame["location"].map(model)
    print(f"predicted {len(frame)} rows")
    return DataFrame.from_pandas(frame)


info = MLServiceInfo(
    id=os.environ.get("SCALED_MEAN_ID", "scaled-mean"),
    display_name="Scaled mean",
    version=os.environ.get("SCALED_MEAN_VERSION", "1.0.0"),
    description="Each place's mean of its history, times scale.",
    model_metadata=ModelMetadata(
        author="The chaplab tests",
        author_note="Deterministic: the same forecasts on every orchestrator.",
        author_assessed_status=AssessedStatus.yellow,
    ),
    period_type=PeriodType.monthly,
    min_prediction_periods=1,
    max_prediction_periods=12,
)
app = (
    MLServiceBuilder(
        info=info,
        config_schema=ScaledMeanConfig,
        hierarchy=ArtifactHierarchy(name="scaled_mean"),
        runner=FunctionalModelRunner(on_train=train, on_predict=predict),
        # a file: chapkit 2.4 keeps an in-memory store on one connection that requests and
        # jobs running side by side share, and then fails jobs ("Could not refresh instance")
        database_url=f"sqlite+aiosqlite:///{os.environ['SCALED_MEAN_DATABASE']}",
    )
    .with_registration(keepalive_interval=5)
    .build()
)

if __name__ == "__main__":
    run_app(app, host="127.0.0.1", port=int(os.environ["SERVICEKIT_PORT"]))
