"""chaplab.chapkit_functions in chapkit's own environment (the peer's Python 3.13 with chapkit
2.4.1): the functions chaplab.backtest evaluates, served with chapkit's signatures, give the
same answer as called directly."""

from __future__ import annotations

import subprocess
from pathlib import Path

from .model_service import chapkit_executable

SOURCE = Path(__file__).parents[2] / "src"

SCRIPT = """
import asyncio
import numpy as np
import pandas as pd
from chapkit.config.schemas import BaseConfig
from chapkit.data import DataFrame
from chapkit.ml import FunctionalModelRunner
from geojson_pydantic import FeatureCollection

from chaplab.chapkit_functions import chapkit_functions, chapkit_runner


class Config(BaseConfig):
    scale: float = 2.0


seen = []


def train(config, data, geo):
    seen.append(("train", type(data).__name__, type(geo).__name__, config.scale))
    return data.groupby("location")["disease_cases"].mean()


async def predict(config, model, historic, future, geo):
    seen.append(("predict", type(historic).__name__, type(future).__name__))
    mean = future["location"].map(model).to_numpy() * config.scale
    return future.assign(sample_0=mean, sample_1=mean + 1)


data = pd.DataFrame({
    "time_period": ["2020-01", "2020-02", "2020-01", "2020-02"],
    "location": ["A", "A", "B", "B"],
    "disease_cases": [1.0, 3.0, 10.0, 20.0],
    "rainfall": [5.0, 6.0, 7.0, 8.0],
})
future = pd.DataFrame({"time_period": ["2020-03", "2020-03"], "location": ["A", "B"],
                       "rainfall": [1.0, 2.0]})
geo = FeatureCollection.model_validate({"type": "FeatureCollection", "features": [
    {"type": "Feature", "id": "A", "properties": {"name": "Ay"}, "geometry": None}]})
config = Config()
on_train, on_predict = chapkit_functions(train, predict)
assert isinstance(chapkit_runner(train, predict), FunctionalModelRunner)


async def main():
    model = await on_train(config, DataFrame.from_pandas(data), geo)
    answer = await on_predict(config, model, DataFrame.from_pandas(data),
                              DataFrame.from_pandas(future), geo)
    assert isinstance(answer, DataFrame), type(answer)
    direct = await predict(config, train(config, data, geo.model_dump()), data, future, None)
    pd.testing.assert_frame_equal(answer.to_pandas(), direct)
    return answer.to_pandas()


result = asyncio.run(main())
assert seen[0] == ("train", "DataFrame", "dict", 2.0), seen
assert seen[1] == ("predict", "DataFrame", "DataFrame"), seen
print(result[["location", "sample_0", "sample_1"]].to_csv(index=False), end="")
"""


def test_chapkit_serves_the_backtested_functions_unchanged() -> None:
    python = chapkit_executable().with_name("python")
    finished = subprocess.run(
        [str(python), "-c", SCRIPT],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(SOURCE), "PATH": "/usr/bin:/bin"},
        timeout=300,
        check=False,
    )
    assert finished.returncode == 0, finished.stderr
    assert finished.stdout.splitlines() == [
        "location,sample_0,sample_1",
        "A,4.0,5.0",
        "B,30.0,31.0",
    ]
