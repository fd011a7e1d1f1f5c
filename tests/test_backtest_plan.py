"""A backtest plan: its settings checked once when it is made, whether it fits a series for a
model that trains on some periods first, the most splits that fit, and its split windows."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from chaplab.errors import ArgumentError, ArgumentTypeError
from chaplab.vocabulary import (
    MAX_HORIZON,
    MAX_SPLITS,
    N_PERIODS,
    N_RETRAIN,
    N_SPLITS,
    PLAN_SETTINGS,
    STRIDE,
    BacktestPlan,
    PlanError,
    PlanSetting,
    forecast_horizon,
    period_range,
    shift_period,
)


def test_the_defaults_are_chap_cores() -> None:
    assert BacktestPlan() == BacktestPlan(n_periods=3, n_splits=7, stride=1, n_retrain=1)
    assert [s.wire_name for s in PLAN_SETTINGS] == ["nPeriods", "nSplits", "stride", "nRetrain"]
    assert (N_PERIODS.maximum, N_SPLITS.maximum, STRIDE.maximum) == (
        MAX_HORIZON,
        MAX_SPLITS,
        MAX_HORIZON,
    )


def test_a_plan_is_frozen_and_its_numbers_are_plain_ints() -> None:
    plan = BacktestPlan(n_periods=np.int64(4), n_splits=np.int32(2))  # type: ignore[arg-type]
    assert type(plan.n_periods) is int and type(plan.n_splits) is int
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.n_splits = 3  # type: ignore[misc]


@pytest.mark.parametrize("setting", PLAN_SETTINGS, ids=lambda s: s.name)
@pytest.mark.parametrize("value", [0, -1])
def test_a_count_out_of_range_is_refused_naming_the_setting(
    setting: PlanSetting, value: int
) -> None:
    with pytest.raises(PlanError, match=f"^{setting.name} must be a whole number from 1 to ") as e:
        BacktestPlan(**{setting.name: value})
    assert e.value.setting is setting
    assert isinstance(e.value, ArgumentError) and isinstance(e.value, ValueError)


def test_counts_above_their_maximum_are_refused() -> None:
    with pytest.raises(
        PlanError, match=r"^n_splits must be a whole number from 1 to 1000, got 1001"
    ):
        BacktestPlan(n_splits=MAX_SPLITS + 1)
    with pytest.raises(PlanError, match=r"^n_periods .* from 1 to 520, got 521$"):
        BacktestPlan(n_periods=MAX_HORIZON + 1)
    assert BacktestPlan(n_periods=MAX_HORIZON, n_splits=MAX_SPLITS).n_splits == MAX_SPLITS


@pytest.mark.parametrize("value", [1.5, True, "2", None])
def test_a_count_that_is_no_integer_is_a_type_error(value: object) -> None:
    with pytest.raises(ArgumentTypeError, match=r"^stride must be an int, got "):
        BacktestPlan(stride=value)  # type: ignore[arg-type]


def test_more_trainings_than_splits_are_refused_as_chap_core_refuses_them() -> None:
    with pytest.raises(PlanError, match=r"^n_retrain is 8, more than the 7 splits") as caught:
        BacktestPlan(n_splits=7, n_retrain=8)
    assert caught.value.setting is N_RETRAIN
    assert BacktestPlan(n_splits=7, n_retrain=7).n_retrain == 7


def test_given_takes_the_default_of_a_setting_left_out() -> None:
    assert BacktestPlan.given(n_periods=None, n_splits=3, stride=None) == BacktestPlan(n_splits=3)
    with pytest.raises(PlanError, match="^n_retrain is 9, more than the 7 splits"):
        BacktestPlan.given(n_retrain=9)


def test_the_history_a_plan_needs_counts_the_models_training_periods() -> None:
    plan = BacktestPlan(n_periods=3, n_splits=4, stride=2)
    assert plan.evaluated_periods == 3 + 3 * 2
    assert plan.history_needed() == 1 + 9  # at least one period before the first split
    assert plan.history_needed(training_periods=8) == 8 + 9
    assert plan.history_needed(training_periods=0) == 1 + 9


def test_the_most_splits_leave_the_models_training_periods_before_the_first() -> None:
    """A 120-period dataset holds 117 splits of 3 periods with one period of history, but only
    110 for a model that trains on 8 periods first (the launcher promised 117 once)."""
    plan = BacktestPlan(n_periods=3)
    assert plan.most_splits(120) == 117
    assert plan.most_splits(120, training_periods=8) == 110
    assert dataclasses.replace(plan, stride=2).most_splits(120, 8) == 55
    assert plan.most_splits(11, training_periods=8) == 1
    assert plan.most_splits(10, training_periods=8) == 0
    assert BacktestPlan(n_periods=1).most_splits(10_000) == MAX_SPLITS


@given(
    history=st.integers(1, 200),
    training=st.integers(1, 30),
    n_periods=st.integers(1, 12),
    n_splits=st.integers(1, 40),
    stride=st.integers(1, 6),
)
def test_a_plan_fits_exactly_when_its_splits_are_at_most_the_most_splits(
    history: int, training: int, n_periods: int, n_splits: int, stride: int
) -> None:
    plan = BacktestPlan(n_periods=n_periods, n_splits=n_splits, stride=stride)
    fits = plan.history_needed(training) <= history
    assert (plan.misfit(history, training) is None) == fits
    assert (n_splits <= plan.most_splits(history, training)) == fits
    most = plan.most_splits(history, training)
    if most:
        assert dataclasses.replace(plan, n_splits=most).misfit(history, training) is None
        assert dataclasses.replace(plan, n_splits=most + 1).misfit(history, training) is not None


def test_a_misfit_names_the_setting_to_change_and_what_fits() -> None:
    too_many = BacktestPlan(n_periods=3, n_splits=117).misfit(120, training_periods=8)
    assert too_many is not None and too_many.setting is N_SPLITS
    assert str(too_many) == (
        "n_splits is 117, too many for the data: 117 splits of 3 periods need at least 127 "
        "periods (8 to train the model on before the first split, 119 to evaluate), the data "
        "has 120; at most 110 fit"
    )
    too_long = BacktestPlan(n_periods=3, n_splits=7, stride=4).misfit(30, training_periods=8)
    assert too_long is not None and too_long.setting is STRIDE
    assert too_long.reason.startswith("is 4, too long for the data: 7 splits of 3 periods, 4 ")
    assert too_long.reason.endswith("; at most 3 fits")
    assert BacktestPlan(n_periods=3, n_splits=7, stride=3).misfit(30, training_periods=8) is None
    horizon = BacktestPlan(n_periods=12, n_splits=1).misfit(15, training_periods=8)
    assert horizon is not None and horizon.setting is N_PERIODS
    assert horizon.reason.endswith("the data has 15; at most 7 fit")
    nothing = BacktestPlan(n_periods=1, n_splits=1).misfit(8, training_periods=8)
    assert nothing is not None and nothing.reason.endswith("not even one fits")
    with pytest.raises(PlanError) as raised:
        BacktestPlan(n_splits=118, n_periods=3).check_fits(120)
    assert raised.value.setting is N_SPLITS


def test_a_split_is_named_by_its_first_forecast_period() -> None:
    periods = period_range("202301", "202312")
    windows = BacktestPlan(n_periods=3, n_splits=3, stride=2).split_windows(periods)
    assert [w.split_period for w in windows] == ["202306", "202308", "202310"]
    assert [w.forecast_periods for w in windows] == [
        ("202306", "202307", "202308"),
        ("202308", "202309", "202310"),
        ("202310", "202311", "202312"),
    ]
    assert [w.history_end for w in windows] == [5, 7, 9]
    first = windows[0]
    assert periods[: first.history_end][-1] == "202305"  # the last period the model sees
    assert periods[first.forecast_slice] == list(first.forecast_periods)
    assert list(first.forecast) == [5, 6, 7]


def test_the_last_split_ends_at_the_last_period_across_a_53_week_year() -> None:
    periods = period_range("2020W40", "2021W02")
    (window,) = BacktestPlan(n_periods=3, n_splits=1).split_windows(periods)
    assert window.split_period == "2020W53"
    assert window.forecast_periods == ("2020W53", "2021W01", "2021W02")


def test_split_windows_keep_the_models_training_periods_before_the_first_split() -> None:
    periods = period_range("202001", "202012")
    plan = BacktestPlan(n_periods=2, n_splits=3)
    assert plan.split_windows(periods, training_periods=8)[0].history_end == 8
    with pytest.raises(PlanError, match=r"^n_splits is 3, too many for the data: .* has 12;"):
        plan.split_windows(periods, training_periods=9)


@given(
    length=st.integers(2, 60),
    n_periods=st.integers(1, 12),
    n_splits=st.integers(1, 12),
    stride=st.integers(1, 6),
)
def test_split_windows_keep_history_and_count_horizons_from_one(
    length: int, n_periods: int, n_splits: int, stride: int
) -> None:
    periods = period_range("201001", shift_period("201001", length - 1))
    plan = BacktestPlan(n_periods=n_periods, n_splits=n_splits, stride=stride)
    if plan.history_needed() > length:
        with pytest.raises(PlanError, match=r" too (many|long) for the data: "):
            plan.split_windows(periods)
        return
    windows = plan.split_windows(periods)
    assert len(windows) == n_splits
    assert windows[-1].forecast_periods[-1] == periods[-1]
    assert windows[0].history_end >= 1
    assert len(periods) - windows[0].history_end == plan.evaluated_periods
    for earlier, later in zip(windows, windows[1:], strict=False):
        assert later.history_end - earlier.history_end == stride
    for window in windows:
        assert window.split_period == periods[window.history_end] == window.forecast_periods[0]
        assert [forecast_horizon(window.split_period, p) for p in window.forecast_periods] == list(
            range(1, n_periods + 1)
        )


def test_trainings_are_evenly_spaced_and_each_split_uses_the_latest() -> None:
    plan = BacktestPlan(n_splits=7, n_retrain=3)
    assert plan.retrain_splits() == (0, 2, 4)
    assert [plan.training_of(k) for k in range(7)] == [0, 0, 2, 2, 4, 4, 4]
    assert BacktestPlan(n_splits=7, n_retrain=2).retrain_splits() == (0, 3)  # chap-core's
    assert BacktestPlan(n_splits=5).retrain_splits() == (0,)
    assert BacktestPlan(n_splits=4, n_retrain=4).retrain_splits() == (0, 1, 2, 3)
