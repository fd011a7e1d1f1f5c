"""``chaplab.backtest(executor=...)``: the same frame for the same seed on the kernel's threads,
a process pool and a Dask cluster, functions of a notebook cell shipped by value, splits in
groups of places, progress per task, and failures that name their task and keep the rest."""

from __future__ import annotations

import concurrent.futures
import io
import os
import re
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from IPython.core.interactiveshell import InteractiveShell

import chaplab
from chaplab import BacktestError
from chaplab.backtesting import BacktestWarning
from chaplab.errors import FULL_TRACEBACK_HINT

from .models import MODEL_CELL, cell_model, monthly_data

SETTINGS = {"n_splits": 3, "n_periods": 2, "stride": 2, "n_samples": 20, "progress": False}


def run(executor: Any = None, **settings: Any) -> pd.DataFrame:
    train, predict = cell_model()
    return chaplab.backtest(
        train, predict, monthly_data(), executor=executor, **{**SETTINGS, "seed": 7, **settings}
    )


@pytest.fixture(params=["threads", "process pool", "dask cluster"])
def executor(request: pytest.FixtureRequest) -> Any:
    """Each engine a backtest runs on (None: the kernel's threads)."""
    return {
        "threads": lambda: None,
        "process pool": lambda: request.getfixturevalue("process_pool"),
        "dask cluster": lambda: request.getfixturevalue("dask_client").get_executor(),
    }[request.param]()


def test_the_same_seed_gives_the_same_frame_on_every_executor(executor: Any) -> None:
    on_threads = run(None, n_retrain=2)
    pd.testing.assert_frame_equal(run(executor, n_retrain=2), on_threads)
    assert not run(executor, n_retrain=2, seed=8)["value"].equals(on_threads["value"])


def test_places_in_groups_are_tasks_of_their_own_seen_only_by_their_task(executor: Any) -> None:
    seen: list[list[str]] = []
    lock = threading.Lock()

    def train(config: Any, data: pd.DataFrame, geo: Any) -> pd.Series:
        with lock:
            seen.append(sorted(data["location"].unique()))
        return data.groupby("location")["disease_cases"].mean()

    _, predict = cell_model()
    grouped = chaplab.backtest(
        train, predict, monthly_data(), **SETTINGS, seed=7, places_per_task=2
    )
    assert sorted(map(tuple, seen)) == [("A", "B"), ("C",)]  # data order B, A, C: groups BA, C
    trained, predict = cell_model()
    again = chaplab.backtest(
        trained, predict, monthly_data(), **SETTINGS, seed=7, places_per_task=2, executor=executor
    )
    pd.testing.assert_frame_equal(again, grouped)
    whole = run(None)
    assert len(grouped) == len(whole)
    assert not np.allclose(grouped["value"], whole["value"])  # a group's own stream and model


def most_calls_at_once(executor: Any = None) -> int:
    """The most sync ``train`` calls of a backtest of six tasks that ran at the same time (each
    sleeps, letting another thread run if one may)."""
    lock, running, most = threading.Lock(), [0], [0]
    _, predict = cell_model()

    def train(config: Any, data: pd.DataFrame, geo: Any) -> pd.Series:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.05)
        with lock:
            running[0] -= 1
        return data.groupby("location")["disease_cases"].mean()

    chaplab.backtest(
        train, predict, monthly_data(), **SETTINGS, seed=7, places_per_task=1, executor=executor
    )
    return most[0]


def test_sync_calls_run_one_at_a_time_under_the_gil_unless_a_thread_pool_is_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two threads computing in Python take longer than one (figure 16 of ``make bench``):
    without an executor a sync model's calls take turns; a ``ThreadPoolExecutor`` runs as many
    as it has threads, for a model that leaves Python; a free-threaded build uses every core."""
    monkeypatch.setattr(sys, "_is_gil_enabled", lambda: True, raising=False)
    assert most_calls_at_once() == 1
    with concurrent.futures.ThreadPoolExecutor(3) as threads:
        assert most_calls_at_once(threads) == 3
    monkeypatch.setattr(sys, "_is_gil_enabled", lambda: False, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert most_calls_at_once() == 2


def test_the_bar_counts_tasks_as_they_finish(
    process_pool: concurrent.futures.Executor, monkeypatch: pytest.MonkeyPatch
) -> None:
    bar = io.StringIO()
    monkeypatch.setattr("sys.stderr", bar)
    run(process_pool, progress=True, places_per_task=2)
    shown = bar.getvalue().split("\r")
    assert shown[-1].startswith("backtest: 100%") and "6/6 [" in shown[-1]
    assert "task/s" in shown[-1]


def test_a_failed_task_names_its_split_and_places_and_keeps_the_others(
    process_pool: concurrent.futures.Executor,
) -> None:
    fail = {"fail_at": ["2020-11"]}
    with pytest.raises(BacktestError) as raised:
        run(process_pool, config=fail, places_per_task=2, n_retrain=3)
    error = raised.value
    assert re.fullmatch(
        r"split 2020-11, places '(B' to 'A' \(2 of 3\)|C')\: predict raised KeyError: 'rainfall'",
        str(error),
    )
    assert error.split_period == "202011" and isinstance(error.__cause__, KeyError)
    with pytest.warns(BacktestWarning):
        whole = run(None, config=fail, places_per_task=2, n_retrain=3, errors="keep")
    assert error.completed is not None
    assert set(error.completed["split_period"].astype(str)) <= {"2020-07", "2020-09"}
    merged = error.completed.merge(whole, on=["org_unit", "split_period", "period", "quantile"])
    assert len(merged) == len(error.completed)
    assert (merged["value_x"] == merged["value_y"]).all()  # what finished is kept as it was


def test_errors_keep_answers_the_other_tasks_and_says_which_failed() -> None:
    with pytest.warns(BacktestWarning, match=r"2 task\(s\) failed.*split 2020-11"):
        frame = run(None, config={"fail_at": ["2020-11"]}, places_per_task=2, errors="keep")
    assert sorted(frame["split_period"].astype(str).unique()) == ["2020-07", "2020-09"]
    errors = frame.attrs["backtest_errors"]
    assert [(e.split_period, e.places) for e in errors] == [
        ("202011", "'B' to 'A' (2 of 3)"),
        ("202011", "'C'"),
    ]


def test_a_training_that_fails_names_the_splits_it_would_have_predicted() -> None:
    def train(config: Any, data: pd.DataFrame, geo: Any) -> None:
        raise ValueError("singular matrix")

    _, predict = cell_model()
    with pytest.warns(BacktestWarning):
        frame = chaplab.backtest(train, predict, monthly_data(), **SETTINGS, errors="keep")
    assert frame.empty
    assert [str(error) for error in frame.attrs["backtest_errors"]] == [
        f"split 2020-07: train ({train.__qualname__}) raised ValueError: singular matrix",
        "split 2020-07: predict did not run: the training it needs (split 2020-07) failed",
        "split 2020-09: predict did not run: the training it needs (split 2020-07) failed",
        "split 2020-11: predict did not run: the training it needs (split 2020-07) failed",
    ]


def test_a_model_failing_in_a_worker_shows_its_own_cells_frames(
    process_pool: concurrent.futures.Executor,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("CHAPLAB_FULL_TRACEBACKS", raising=False)
    shell = InteractiveShell.instance()
    shell.user_ns.update({"chaplab": chaplab, "DATA": monthly_data(), "POOL": process_pool})
    cell = (
        "def rainfall_of(future):\n    return future['rainfall_lag']\n\n\n"
        "def predict(config, model, historic, future, geo):\n    return rainfall_of(future)\n"
    )
    assert shell.run_cell(MODEL_CELL).success and shell.run_cell(cell).success
    capsys.readouterr()
    shell.run_cell(
        "chaplab.backtest(train, predict, DATA, n_splits=2, n_periods=2, executor=POOL, "
        "progress=False)"
    )
    shown = re.sub(r"\x1b\[[0-9;]*m", "", capsys.readouterr().out).strip().splitlines()
    assert re.fullmatch(
        r"BacktestError: split 2020-\d\d: predict raised KeyError: 'rainfall_lag'", shown[0]
    )
    assert re.fullmatch(r"  Cell In\[\d+\], line 6, in predict", shown[1])
    assert shown[2] == "    return rainfall_of(future)"
    assert re.fullmatch(r"  Cell In\[\d+\], line 2, in rainfall_of", shown[3])
    assert shown[4:] == ["    return future['rainfall_lag']", FULL_TRACEBACK_HINT]


def test_what_cannot_be_pickled_is_refused_naming_what_cannot_go(
    process_pool: concurrent.futures.Executor,
) -> None:
    lock = threading.Lock()
    train, predict = cell_model()

    def locked_predict(*args: Any, **keywords: Any) -> Any:
        with lock:
            return predict(*args, **keywords)

    with pytest.raises(BacktestError, match="cannot be sent to the executor") as raised:
        chaplab.backtest(train, locked_predict, monthly_data(), **SETTINGS, executor=process_pool)
    assert "an open connection, file, lock" in str(raised.value)
    assert len(chaplab.backtest(train, locked_predict, monthly_data(), **SETTINGS)) == 90
    with concurrent.futures.ThreadPoolExecutor(2) as threads:  # threads of your own: no pickling
        on_threads = chaplab.backtest(
            train, locked_predict, monthly_data(), **SETTINGS, executor=threads
        )
    assert len(on_threads) == 90


def test_a_killed_process_pool_worker_fails_naming_what_was_lost(tmp_path: Path) -> None:
    import multiprocessing

    with (
        concurrent.futures.ProcessPoolExecutor(
            max_workers=1, mp_context=multiprocessing.get_context("spawn")
        ) as pool,
        pytest.raises(BacktestError) as raised,
    ):
        run(pool, config={"kill_at": ["2020-11"]}, n_retrain=3)
    error = raised.value
    assert error.split_period == "202011"
    assert re.fullmatch(
        r"split 2020-11: predict was lost: the executor could not run it \(BrokenProcessPool: .*",
        str(error),
    )
    assert sorted(error.completed["split_period"].astype(str).unique()) == ["2020-07", "2020-09"]


def test_a_dask_worker_killed_mid_run_is_replaced_and_the_backtest_completes(
    dask_client: Any, tmp_path: Path
) -> None:
    config = {"kill_at": ["2020-09"], "once": str(tmp_path / "killed")}
    frame = run(dask_client, config=config, n_retrain=3)
    assert (tmp_path / "killed").exists()  # a worker did die
    pd.testing.assert_frame_equal(frame, run(None, config=config, n_retrain=3))


def test_a_task_that_kills_every_dask_worker_it_meets_is_named_and_the_rest_kept(
    dask_client: Any,
) -> None:
    with pytest.warns(BacktestWarning, match="KilledWorker"):
        frame = run(dask_client, config={"kill_at": ["2020-11"]}, n_retrain=3, errors="keep")
    [error] = frame.attrs["backtest_errors"]
    assert str(error).startswith("split 2020-11: predict was lost: the executor could not run it")
    assert sorted(frame["split_period"].astype(str).unique()) == ["2020-07", "2020-09"]


def test_the_executor_must_be_an_executor() -> None:
    with pytest.raises(TypeError, match="executor must be a concurrent.futures.Executor"):
        run("processes")
