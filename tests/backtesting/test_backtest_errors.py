"""A model that fails in ``chaplab.backtest`` reads short in a notebook: IPython shows the error's
sentence and the model's own frames (the cells' code, not pandas', chaplab's or Python's), the
whole chain stays in ``error.__cause__``, and the progress bar says which split failed."""

from __future__ import annotations

import io
import re
import traceback

import pandas as pd
import pytest
from IPython.core.interactiveshell import InteractiveShell

import chaplab
from chaplab.errors import FULL_TRACEBACK_HINT
from chaplab.vocabulary import readable_period

DATA = pd.DataFrame(
    {
        "time_period": [f"2021{month:02d}" for month in range(1, 13)] * 2,
        "location": ["A"] * 12 + ["B"] * 12,
        "disease_cases": [float(value) for value in range(24)],
    }
)
MODEL_CELL = """\
def train(config, data, geo):
    return data.groupby("location")["disease_cases"].mean()


def rainfall_of(future):
    return future["rainfall"]


def predict(config, model, historic, future, geo):
    return rainfall_of(future) * 2
"""


def shown_in_ipython(cells: list[str], capsys: pytest.CaptureFixture[str]) -> list[str]:
    """The lines an IPython shell prints for the last of ``cells`` (the others run first)."""
    shell = InteractiveShell.instance()
    shell.user_ns.update({"chaplab": chaplab, "DATA": DATA})
    for cell in cells[:-1]:
        assert shell.run_cell(cell).success
    capsys.readouterr()
    shell.run_cell(cells[-1])
    return re.sub(r"\x1b\[[0-9;]*m", "", capsys.readouterr().out).strip().splitlines()


def test_a_model_raising_in_pandas_shows_the_sentence_and_its_own_frames_only(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CHAPLAB_FULL_TRACEBACKS", raising=False)
    run = "chaplab.backtest(train, predict, DATA, n_splits=2, n_periods=2, progress=False)"
    shown = shown_in_ipython([MODEL_CELL, run], capsys)

    assert re.fullmatch(
        r"BacktestError: split 2021-\d\d: predict raised KeyError: 'rainfall'", shown[0]
    )
    assert shown[1:-1] == [
        shown[1],  # the cell's number depends on the cells the shell ran before
        "    return rainfall_of(future) * 2",
        shown[3],
        '    return future["rainfall"]',
    ]
    assert re.fullmatch(r"  Cell In\[\d+\], line 10, in predict", shown[1])
    assert re.fullmatch(r"  Cell In\[\d+\], line 6, in rainfall_of", shown[3])
    assert shown[-1] == FULL_TRACEBACK_HINT


def test_the_whole_chain_stays_in_the_cause() -> None:
    shell = InteractiveShell.instance()
    assert shell.run_cell(MODEL_CELL).success
    train, predict = shell.user_ns["train"], shell.user_ns["predict"]
    with pytest.raises(chaplab.BacktestError) as raised:
        chaplab.backtest(train, predict, DATA, n_splits=2, n_periods=2, progress=False)
    cause = raised.value.__cause__
    assert isinstance(cause, KeyError)
    files = [frame.filename for frame in traceback.extract_tb(cause.__traceback__)]
    assert any("pandas" in name for name in files)  # the library's frames are all there
    assert any("chaplab" in name for name in files)


def test_a_wrong_answer_is_the_sentence_alone(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CHAPLAB_FULL_TRACEBACKS", raising=False)
    cells = [
        "def train(config, data, geo):\n    return None\n\n\n"
        "def predict(config, model, historic, future, geo):\n    return future\n",
        "chaplab.backtest(train, predict, DATA, n_splits=2, n_periods=2, progress=False)",
    ]
    shown = shown_in_ipython(cells, capsys)
    assert len(shown) == 2 and shown[1] == FULL_TRACEBACK_HINT
    assert re.fullmatch(
        r"BacktestError: split 2021-\d\d: predict returned no sample columns \(sample_0, "
        r"sample_1, \.\.\.\); its columns are \['time_period', 'location'\]",
        shown[0],
    )


def test_the_full_traceback_is_one_variable_away(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHAPLAB_FULL_TRACEBACKS", "1")
    run = "chaplab.backtest(train, predict, DATA, n_splits=2, n_periods=2, progress=False)"
    shown = "\n".join(shown_in_ipython([MODEL_CELL, run], capsys))
    assert "The above exception was the direct cause" in shown
    assert "backtesting.py" in shown and FULL_TRACEBACK_HINT not in shown


def test_the_progress_bar_says_which_split_failed(monkeypatch: pytest.MonkeyPatch) -> None:
    shell = InteractiveShell.instance()
    assert shell.run_cell(MODEL_CELL).success
    train, predict = shell.user_ns["train"], shell.user_ns["predict"]
    bar = io.StringIO()
    monkeypatch.setattr("sys.stderr", bar)
    with pytest.raises(chaplab.BacktestError) as raised:
        chaplab.backtest(train, predict, DATA, n_splits=2, n_periods=2)
    last = bar.getvalue().split("\r")[-1]
    split = readable_period(raised.value.split_period)  # 202105 as people read it: 2021-05
    assert last.startswith(f"backtest failed at split {split}: ")
    assert "0/2" in last
