"""An argument refused by any public function a notebook user calls (frames, scoring, plotting,
local backtests, datasets; the client's own are in tests/client/test_errors_for_newcomers.py)
reads as one sentence naming the argument: in IPython its class and sentence and the hint, two
lines instead of a traceback through chaplab; still a ValueError (a TypeError for a wrong
type)."""

from __future__ import annotations

import re
from typing import Any

import pandas as pd
import pytest
from IPython.core.interactiveshell import InteractiveShell

import chaplab
from chaplab import datasets, frames, plotting, scoring
from chaplab.errors import ArgumentError, ArgumentTypeError

HINT = "(the full traceback: set CHAPLAB_FULL_TRACEBACKS=1 in the environment)"
DATA = pd.DataFrame(
    {
        "time_period": [f"2021{month:02d}" for month in range(1, 13)],
        "location": ["A"] * 12,
        "disease_cases": [float(month) for month in range(12)],
    }
)


def _train(config: Any, data: pd.DataFrame, geo: Any) -> float:
    return float(data["disease_cases"].mean())


def _predict(model: float, config: Any, history: pd.DataFrame, future: pd.DataFrame, geo: Any):
    return pd.DataFrame({"time_period": future["time_period"], "location": future["location"]})


CALLS = [
    pytest.param(
        'frames.parse_periods(["2021-13"])',
        ArgumentError,
        "ArgumentError: period '2021-13' has month 13, expected 01 to 12",
        id="frames",
    ),
    pytest.param(
        "frames.require_frame_columns([1, 2], ['org_unit'], 'frame', '')",
        ArgumentTypeError,
        "ArgumentTypeError: frame must be a pandas DataFrame, got list",
        id="frames-type",
    ),
    pytest.param(
        'scoring.score({}, DATA, unmatched="drop")',
        ArgumentError,
        "ArgumentError: forecasts is an empty mapping: give at least one model's frame",
        id="scoring",
    ),
    pytest.param(
        "scoring.relative_skill(pd.DataFrame({'model': ['a']}), 'a')",
        ArgumentError,
        "ArgumentError: scores lacks column(s) ['org_unit', 'split_period', 'period']",
        id="scoring-skill",
    ),
    pytest.param(
        "plotting.fan_chart(DATA)",
        ArgumentError,
        "ArgumentError: frame lacks column(s) ",
        id="plotting",
    ),
    pytest.param(
        "plotting.map_chart(pd.DataFrame({'org_unit': ['A'], 'value': [1.0]}), "
        "{'type': 'FeatureCollection', 'features': []}, 'value', max_panels=0)",
        ArgumentError,
        "ArgumentError: max_panels must be a whole number of at least 1, got 0",
        id="plotting-own",
    ),
    pytest.param(
        "chaplab.backtest(_train, _predict, DATA, n_splits=2, n_periods=1, n_samples=0)",
        ArgumentError,
        "ArgumentError: n_samples must be a positive integer, got 0",
        id="backtest",
    ),
    pytest.param(
        'chaplab.backtest(_train, _predict, DATA, n_splits="3", n_periods=1)',
        ArgumentTypeError,
        "ArgumentTypeError: n_splits must be an int, got str '3'",
        id="backtest-count-type",
    ),
    pytest.param(
        "datasets.org_units_of(GEOJSON, 'Sergip')",
        ArgumentError,
        "ArgumentError: parent: 'Sergip' is not one of the parents; did you mean 'Sergipe'?",
        id="datasets",
    ),
    pytest.param(
        "datasets.org_units_of(GEOJSON, 28)",
        ArgumentTypeError,
        "ArgumentTypeError: parent must be a name, got int",
        id="datasets-type",
    ),
]
GEOJSON = {
    "type": "FeatureCollection",
    "features": [{"type": "Feature", "id": "28011", "properties": {"parentName": "Sergipe"}}],
}


@pytest.mark.parametrize(("code", "error", "first_line"), CALLS)
def test_an_argument_error_is_two_lines_in_ipython(
    code: str,
    error: type[Exception],
    first_line: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("CHAPLAB_FULL_TRACEBACKS", raising=False)
    namespace = {
        "chaplab": chaplab,
        "datasets": datasets,
        "GEOJSON": GEOJSON,
        "frames": frames,
        "plotting": plotting,
        "scoring": scoring,
        "pd": pd,
        "DATA": DATA,
        "_train": _train,
        "_predict": _predict,
    }
    with pytest.raises(error) as raised:
        eval(code, dict(namespace))  # a plain call: the error's class, a ValueError or TypeError
    assert isinstance(raised.value, ValueError if error is ArgumentError else TypeError)
    shell = InteractiveShell.instance()
    shell.user_ns.update(namespace)
    capsys.readouterr()
    shell.run_cell(code)
    shown = re.sub(r"\x1b\[[0-9;]*m", "", capsys.readouterr().out).strip().splitlines()
    assert len(shown) == 2 and shown[1] == HINT, shown
    assert shown[0].startswith(first_line), shown[0]
    assert shown[0] == f"{type(raised.value).__name__}: {raised.value}"
