"""``chaplab.tune``: the configurations of a grid (option lists, a list, a schema's ranges and
enums) backtested on the same splits and random streams on any executor, one frame with a
``configuration`` column, ranked by relative skill with intervals, the best named and charted;
budgets that stop it early, failures kept, a killed Dask worker survived."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
import pandas as pd
import pytest

import chaplab
from chaplab.errors import ArgumentError
from chaplab.schema import (
    create_config_schema,
    schema_boolean,
    schema_enum,
    schema_integer,
    schema_number,
    schema_string,
)
from chaplab.tuning import configuration_name, grid_configurations

from .models import cell_model, monthly_data

matplotlib.use("Agg")

SETTINGS = {"n_splits": 3, "n_periods": 2, "stride": 2, "n_samples": 20, "progress": False}
GRID = {"scale": [0.5, 1.0, 1.5]}


def test_a_dict_of_option_lists_gives_every_combination_in_order() -> None:
    assert grid_configurations({"lags": [1, 2], "method": ["ols", "ridge"]}) == [
        {"lags": 1, "method": "ols"},
        {"lags": 1, "method": "ridge"},
        {"lags": 2, "method": "ols"},
        {"lags": 2, "method": "ridge"},
    ]
    assert grid_configurations([{"lags": 3}, {}]) == [{"lags": 3}, {}]


def test_a_schema_gives_the_configurations_its_ranges_and_enums_allow() -> None:
    schema = create_config_schema(
        properties={
            "method": schema_enum(["ols", "ridge"], default="ols"),
            "log": schema_boolean(default=True),
            "lags": schema_integer(default=1, minimum=1, maximum=3),
            "alpha": schema_number(default=0.5, minimum=0.0, maximum=1.0),
            "window": schema_integer(default=12, minimum=1, maximum=100),
            "region": schema_string(default="north"),
            "fixed": schema_integer(default=4, minimum=4, maximum=4),
        }
    )
    configurations = grid_configurations(schema)
    assert len(configurations) == 2 * 2 * 3 * 3 * 3
    assert configurations[0] == {
        "method": "ols",
        "log": False,
        "lags": 1,
        "alpha": 0.0,
        "window": 1,
    }
    assert sorted({c["alpha"] for c in configurations}) == [0.0, 0.5, 1.0]
    assert sorted({c["window"] for c in configurations}) == [1, 50, 100]
    assert len(grid_configurations(schema, points=5)) == 2 * 2 * 3 * 5 * 5


def test_a_grid_that_cannot_be_tried_is_refused_naming_why() -> None:
    with pytest.raises(ArgumentError, match=r"grid\['lags'\] is empty"):
        grid_configurations({"lags": []})
    with pytest.raises(ArgumentError, match="more than 10,000"):
        grid_configurations({f"option_{i}": list(range(10)) for i in range(5)})
    with pytest.raises(ArgumentError, match="option 'region' has no default and no values"):
        grid_configurations(
            create_config_schema(properties={"region": schema_string()}, required=["region"])
        )
    with pytest.raises(TypeError, match="grid must be a dict of option lists"):
        grid_configurations("lags=1")  # type: ignore[arg-type]


def test_names_come_from_the_options_whatever_their_order() -> None:
    assert configuration_name({"seasonal": True, "lags": 2, "alpha": 0.5}) == (
        "alpha=0.5, lags=2, seasonal=True"
    )
    assert configuration_name({"lags": 2, "alpha": 0.5}) == configuration_name(
        {"alpha": 0.5, "lags": 2}
    )
    assert configuration_name({}) == "default"


@pytest.fixture(params=["threads", "process pool", "dask cluster"])
def executor(request: pytest.FixtureRequest) -> Any:
    return {
        "threads": lambda: None,
        "process pool": lambda: request.getfixturevalue("process_pool"),
        "dask cluster": lambda: request.getfixturevalue("dask_client"),
    }[request.param]()


def test_every_configuration_on_the_same_splits_and_streams_on_any_executor(
    executor: Any,
) -> None:
    train, predict = cell_model()
    tuned = chaplab.tune(
        train, predict, monthly_data(), GRID, **SETTINGS, seed=3, n_retrain=2, executor=executor
    )
    assert tuned.forecasts.columns[0] == "configuration"
    names = ["scale=0.5", "scale=1", "scale=1.5"]
    assert tuned.forecasts["configuration"].cat.categories.tolist() == names
    for name, options in zip(names, grid_configurations(GRID), strict=True):
        alone = chaplab.backtest(
            train, predict, monthly_data(), **SETTINGS, seed=3, n_retrain=2, config=options
        )
        mine = tuned.forecasts[tuned.forecasts["configuration"] == name]
        pd.testing.assert_frame_equal(
            mine.drop(columns="configuration").reset_index(drop=True), alone
        )


def test_the_configurations_are_ranked_and_the_best_named_and_charted() -> None:
    train, predict = cell_model()
    data = monthly_data()
    tuned = chaplab.tune(train, predict, data, GRID, **SETTINGS, seed=3)
    # the model forecasts scale x each place's mean: cases rise through the year, so the
    # history's mean is too low and 1.5 times it comes closest
    assert tuned.best == "scale=1.5"
    assert tuned.best_options == {"scale": 1.5}
    assert tuned.baseline == "scale=0.5"
    assert tuned.skill["model"].tolist() == ["scale=1.5", "scale=1", "scale=0.5"]
    assert (tuned.skill["lower"] <= tuned.skill["relative_skill"]).all()
    assert (tuned.skill["relative_skill"] <= tuned.skill["upper"]).all()
    assert tuned.configurations["status"].tolist() == ["done"] * 3
    assert "best: scale=1.5, relative WIS 0.255 [" in repr(tuned)
    figure = tuned.chart()
    labels = [label.get_text() for label in figure.axes[0].get_yticklabels()]
    assert [label.split(". ", 1)[1] for label in labels] == tuned.skill["model"].tolist()


def test_other_forecasts_join_the_leaderboard_and_may_be_the_baseline() -> None:
    train, predict = cell_model()
    data = monthly_data()
    other = chaplab.backtest(train, predict, data, **SETTINGS, seed=9, config={"scale": 1.5})
    tuned = chaplab.tune(
        train,
        predict,
        data,
        GRID,
        **SETTINGS,
        seed=3,
        compare_with={"my earlier model": other},
        baseline="my earlier model",
    )
    assert set(tuned.skill["model"]) == {"my earlier model", *tuned.forecasts["configuration"]}
    assert tuned.skill.set_index("model").loc["my earlier model", "baseline"]
    assert tuned.best in set(tuned.forecasts["configuration"])


def test_a_schema_completes_and_checks_each_configuration() -> None:
    received: list[dict[str, Any]] = []
    schema = create_config_schema(
        properties={
            "scale": schema_number(default=1.0, minimum=0.5, maximum=2.0),
            "label": schema_string(default="mine"),
        }
    )
    train, predict = cell_model()

    def recording_train(config: dict[str, Any], data: pd.DataFrame, geo: Any) -> Any:
        received.append(config)
        return train(config, data, geo)

    tuned = chaplab.tune(recording_train, predict, monthly_data(), schema, **SETTINGS, seed=1)
    assert sorted(config["scale"] for config in received) == [0.5, 1.25, 2.0]
    assert {config["label"] for config in received} == {"mine"}
    assert tuned.configurations.columns.tolist() == ["configuration", "scale", "status"]
    with pytest.raises(ArgumentError, match="configuration scale=3 does not fit the schema"):
        chaplab.tune(
            train, predict, monthly_data(), {"scale": [3.0]}, config_schema=schema, **SETTINGS
        )


def test_a_budget_stops_the_tune_between_configurations() -> None:
    train, predict = cell_model()

    def slow_train(config: Any, data: pd.DataFrame, geo: Any) -> Any:
        time.sleep(0.3)
        return train(config, data, geo)

    grid = {"scale": [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0]}
    tuned = chaplab.tune(slow_train, predict, monthly_data(), grid, **SETTINGS, time_budget=0.1)
    status = tuned.configurations["status"].tolist()
    assert "done" in status and "not started" in status
    assert status == sorted(status, key=["done", "not started"].index)  # the grid's first ran
    assert tuned.stopped is not None and tuned.stopped.startswith("the time budget of 0.1 s")
    assert set(tuned.skill["model"]) == set(
        tuned.configurations.loc[tuned.configurations["status"] == "done", "configuration"]
    )
    spent = chaplab.tune(train, predict, monthly_data(), grid, **SETTINGS, time_budget=1e-9)
    assert spent.configurations["status"].tolist() == ["done"] + ["not started"] * 7  # the first
    alone = chaplab.tune(train, predict, monthly_data(), grid, **SETTINGS, max_configurations=1)
    assert alone.best == "scale=0.5" and alone.skill["relative_skill"].tolist() == [1.0]
    first = chaplab.tune(train, predict, monthly_data(), grid, **SETTINGS, max_configurations=2)
    assert first.configurations["configuration"].tolist() == ["scale=0.5", "scale=1"]
    assert first.stopped == "max_configurations=2 of 8 configurations"


def test_a_configuration_that_fails_is_named_and_the_others_ranked() -> None:
    train, predict = cell_model()
    grid = [{"scale": 1.0}, {"scale": 2.0, "fail_at": ["2020-11"]}, {"scale": 0.5}]
    with pytest.raises(chaplab.BacktestError) as raised:
        chaplab.tune(train, predict, monthly_data(), grid, **SETTINGS)
    assert str(raised.value).startswith(
        "split 2020-11, configuration fail_at=[2020-11], scale=2: predict raised KeyError"
    )
    assert raised.value.completed is not None
    assert "configuration" in raised.value.completed.columns
    tuned = chaplab.tune(train, predict, monthly_data(), grid, **SETTINGS, errors="keep")
    assert tuned.configurations["status"].tolist() == ["done", "failed", "done"]
    assert [error.configuration for error in tuned.failures] == ["fail_at=[2020-11], scale=2"]
    assert set(tuned.skill["model"]) == {"scale=1", "scale=0.5"}
    kept = tuned.forecasts[tuned.forecasts["configuration"] == "fail_at=[2020-11], scale=2"]
    assert sorted(kept["split_period"].astype(str).unique()) == ["2020-07", "2020-09"]


def test_a_dask_worker_killed_mid_tune_is_replaced_and_the_tune_completes(
    dask_client: Any, tmp_path: Path
) -> None:
    train, predict = cell_model()
    marker = str(tmp_path / "killed")
    grid = {"scale": [0.5, 1.0, 2.0], "kill_at": [["2020-09"]], "once": [marker]}
    tuned = chaplab.tune(
        train, predict, monthly_data(), grid, **SETTINGS, seed=5, n_retrain=3, executor=dask_client
    )
    assert Path(marker).exists()
    on_threads = chaplab.tune(train, predict, monthly_data(), grid, **SETTINGS, seed=5, n_retrain=3)
    pd.testing.assert_frame_equal(tuned.forecasts, on_threads.forecasts)
    assert np.allclose(tuned.skill["relative_skill"], on_threads.skill["relative_skill"])
