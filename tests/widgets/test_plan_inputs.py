"""The plan inputs never change what was typed: text that is no whole number, a number out of
the service's bounds, or more splits than the dataset holds after the periods the model trains
on is said under the inputs, naming the value and what is allowed, and the form's button stays
disabled until it is fixed."""

from __future__ import annotations

import html
from types import SimpleNamespace

import pytest

from chaplab.client import BacktestParameter
from chaplab.vocabulary import BacktestPlan
from chaplab.widgets.plan_inputs import PlanInputs

from .helpers import MakePanel

pytestmark = pytest.mark.anyio

PARAMETERS = [  # as our service answers list_backtest_parameters (chap-core sends no maximum)
    BacktestParameter.model_validate(
        {"name": "nPeriods", "label": "Forecast periods", "default": 3, "type": "integer",
         "minimum": 1, "maximum": 520}
    ),
    BacktestParameter.model_validate(
        {"name": "nSplits", "label": "Number of splits", "default": 7, "type": "integer",
         "minimum": 1, "maximum": 1000}
    ),
    BacktestParameter.model_validate(
        {"name": "stride", "label": "Step between splits", "default": 1, "type": "integer",
         "minimum": 1, "maximum": 520}
    ),
]  # fmt: skip
HUNDRED_MONTHS = SimpleNamespace(first_period="201601", last_period="202404")


def shown(settings: PlanInputs) -> str:
    return html.unescape(settings.message.value)


def test_text_that_is_no_whole_number_is_kept_and_said() -> None:
    settings = PlanInputs()
    settings.set_parameters(PARAMETERS)
    settings.n_splits.value = "abc"
    assert settings.n_splits.value == "abc" and not settings.valid
    assert "number of splits: 'abc' is not a whole number; type one from 1 to 1000" in shown(
        settings
    )
    with pytest.raises(ValueError, match="'abc' is not a whole number"):
        settings.plan()
    settings.n_splits.value = ""
    assert "number of splits: a whole number is needed" in shown(settings)


def test_numbers_out_of_the_services_bounds_are_kept_and_said_with_the_range() -> None:
    settings = PlanInputs()
    settings.set_parameters(PARAMETERS)
    settings.n_periods.value = "-5"
    settings.n_splits.value = "9999"
    assert (settings.n_periods.value, settings.n_splits.value) == ("-5", "9999")
    assert "forecast periods must be a whole number from 1 to 520, got -5" in shown(settings)
    assert "number of splits must be a whole number from 1 to 1000, got 9999" in shown(settings)
    settings.n_periods.value, settings.n_splits.value = "3", "12"
    assert settings.valid and settings.message.value == ""
    assert settings.plan() == BacktestPlan(n_periods=3, n_splits=12)


def test_labels_defaults_and_bounds_are_the_services() -> None:
    settings = PlanInputs()
    settings.set_parameters(PARAMETERS)
    assert [control.description for control in settings.inputs.values()] == [
        "forecast periods",
        "number of splits",
        "step between splits",
    ]
    assert settings.n_splits.value == "7"  # the service's default, as nobody typed one
    settings.n_splits.value = "4"
    settings.set_parameters(PARAMETERS)
    assert settings.n_splits.value == "4"  # typed: kept
    settings.n_splits.value = "100000"
    settings.set_parameters([PARAMETERS[0]])  # chap-core: a lower bound only
    assert "number of splits: 9999" not in shown(settings)


def test_the_dataset_says_how_many_splits_fit() -> None:
    settings = PlanInputs()
    settings.set_parameters(PARAMETERS)
    settings.set_choice(HUNDRED_MONTHS)
    assert "this dataset (100 periods) allows at most 97 splits of 3 periods" in html.unescape(
        settings.note.value
    )
    settings.n_splits.value = "98"
    assert (
        "number of splits is 98, too many for the data: 98 splits of 3 periods need at least "
        "101 periods (1 to train the model on before the first split, 100 to evaluate), the "
        "data has 100; at most 97 fit" in shown(settings)
    )
    assert settings.note.value == ""  # one message at a time: the problem says what fits
    settings.stride.value = "3"
    settings.n_splits.value = "30"
    assert settings.valid
    assert "allows at most 33 splits of 3 periods, 3 periods apart" in html.unescape(
        settings.note.value
    )
    settings.stride.value = "4"
    assert "step between splits is 4, too long for the data: " in shown(settings)
    assert shown(settings).endswith("; at most 3 fits</div>")
    settings.n_periods.value = "100"
    assert (
        "forecast periods is 100, too many for the data: 100 forecast periods need at least 101 "
        "periods (1 to train the model on before them), the data has 100; at most 99 fit"
        in shown(settings)
    )


def test_the_splits_leave_the_periods_the_models_train_on() -> None:
    """A 120-period dataset holds 117 splits of 3 periods, but a model that trains on 8 periods
    first leaves room for 110: the launcher no longer promises what the service refuses."""
    settings = PlanInputs()
    settings.set_parameters(PARAMETERS)
    months = SimpleNamespace(first_period="201501", last_period="202412")
    regression = SimpleNamespace(name="regression_model", training_periods={"month": 8})
    naive = SimpleNamespace(name="naive_model", training_periods={"month": 2, "week": 2})
    settings.set_choice(months, [naive, regression])
    assert "allows at most 110 splits of 3 periods after the 8 periods regression_model " in (
        html.unescape(settings.note.value)
    )
    settings.n_splits.value = "110"
    assert settings.valid
    settings.n_splits.value = "111"
    assert not settings.valid and "at most 110 fit" in shown(settings)
    chap_core_model = SimpleNamespace(name="naive_model", training_periods={})
    settings.set_choice(months, [chap_core_model])  # says nothing: one period of history
    assert settings.valid and "at most 117 splits of 3 periods" in settings.note.value


async def test_the_launcher_keeps_typed_text_and_runs_nothing_until_it_is_valid(
    make_panel: MakePanel,
) -> None:
    panel = await make_panel()
    launcher = panel.launcher
    assert not launcher.button.disabled
    launcher.n_splits.value = "-5"
    assert launcher.button.disabled and launcher.n_splits.value == "-5"
    assert "number of splits must be a whole number from 1 to 1000, got -5" in shown(
        launcher.settings
    )
    assert panel.launch() is None
    await panel.wait_idle()
    assert panel.jobs.rows == []  # nothing started with 1 split
    launcher.n_splits.value = "2"
    assert not launcher.button.disabled
    assert launcher.request().plan.n_splits == 2
