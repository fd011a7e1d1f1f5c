"""Rolling-origin backtests: split arithmetic, history errors, determinism and stored samples."""

from __future__ import annotations

import numpy as np
import pytest

from chaplab.service.forecasting import TEMPLATES, run_backtest
from chaplab.service.metrics import METRIC_NAMES
from chaplab.vocabulary import BacktestPlan, PlanError

from .helpers import negative_binomial_panel

NAIVE = TEMPLATES["naive_model"]


def test_monthly_splits_are_stride_apart_and_end_at_the_last_period() -> None:
    panel = negative_binomial_panel(3, "202101", 36)  # 202101 .. 202312
    result = run_backtest(
        NAIVE, {}, panel, BacktestPlan(n_periods=3, n_splits=3, stride=2), n_samples=50, seed=1
    )
    assert result.split_periods == ["202306", "202308", "202310"]  # first forecast periods
    assert result.periods == [
        ["202306", "202307", "202308"],
        ["202308", "202309", "202310"],
        ["202310", "202311", "202312"],
    ]
    assert result.samples.shape == (3, 3, 3, 50)
    assert result.samples.dtype == np.float32
    np.testing.assert_array_equal(result.truth[-1], panel.features["disease_cases"][:, -3:])


def test_weekly_splits_cross_the_year_end() -> None:
    panel = negative_binomial_panel(2, "2019W01", 105)  # 2019W01 .. 2020W53 (2020 has 53 weeks)
    assert panel.periods[-1] == "2020W53"
    result = run_backtest(
        NAIVE, {}, panel, BacktestPlan(n_periods=4, n_splits=2), n_samples=20, seed=0
    )
    assert result.split_periods == ["2020W49", "2020W50"]
    assert result.periods[-1] == ["2020W50", "2020W51", "2020W52", "2020W53"]

    longer = negative_binomial_panel(2, "2019W01", 107)  # .. 2021W02
    crossing = run_backtest(
        NAIVE, {}, longer, BacktestPlan(n_periods=3, n_splits=1), n_samples=20, seed=0
    )
    assert crossing.split_periods == ["2020W53"]
    assert crossing.periods == [["2020W53", "2021W01", "2021W02"]]


def test_samples_are_sorted_and_every_metric_is_aggregated() -> None:
    panel = negative_binomial_panel(4, "201801", 48)
    result = run_backtest(
        NAIVE, {}, panel, BacktestPlan(n_periods=3, n_splits=5), n_samples=40, seed=2
    )
    assert np.all(np.diff(result.samples, axis=-1) >= 0)
    assert tuple(result.aggregate_metrics) == METRIC_NAMES
    assert all(np.isfinite(value) for value in result.aggregate_metrics.values())
    quantiles = result.quantiles([0.1, 0.5, 0.9])
    assert quantiles.shape == (5, 4, 3, 3)
    assert np.all(np.diff(quantiles, axis=-1) >= 0)


def test_same_seed_gives_the_same_samples_and_another_seed_does_not() -> None:
    panel = negative_binomial_panel(3, "201801", 40)
    plan = BacktestPlan(n_periods=2, n_splits=3)
    first = run_backtest(NAIVE, {}, panel, plan, n_samples=30, seed=7)
    again = run_backtest(NAIVE, {}, panel, plan, n_samples=30, seed=7)
    other = run_backtest(NAIVE, {}, panel, plan, n_samples=30, seed=8)
    np.testing.assert_array_equal(first.samples, again.samples)
    assert not np.array_equal(first.samples, other.samples)
    assert first.aggregate_metrics == again.aggregate_metrics


def test_too_little_history_names_the_setting_and_what_fits() -> None:
    panel = negative_binomial_panel(2, "202101", 12)
    with pytest.raises(PlanError, match=r"^n_splits is 10, .* at least 13 periods .* has 12; "):
        run_backtest(NAIVE, {}, panel, BacktestPlan(n_periods=3, n_splits=10), 10, seed=0)


def test_the_history_counts_the_periods_a_model_trains_on() -> None:
    """The seasonal model needs a year and a period of history before its first forecast."""
    panel = negative_binomial_panel(2, "202101", 24)
    seasonal = TEMPLATES["seasonal_naive"]
    training = seasonal.history_needed({}, panel.period_type)
    most = BacktestPlan(n_periods=3).most_splits(panel.n_periods, training)
    run_backtest(seasonal, {}, panel, BacktestPlan(n_periods=3, n_splits=most), 10, seed=0)
    with pytest.raises(PlanError, match=f"at most {most} fit$"):
        run_backtest(seasonal, {}, panel, BacktestPlan(n_periods=3, n_splits=most + 1), 10, seed=0)


def test_progress_is_reported_up_to_completion() -> None:
    panel = negative_binomial_panel(2, "202101", 24)
    reports: list[tuple[float, str]] = []
    run_backtest(
        NAIVE,
        {},
        panel,
        BacktestPlan(n_periods=2, n_splits=3),
        10,
        0,
        progress=lambda f, m: reports.append((f, m)),
    )
    fractions = [fraction for fraction, _ in reports]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert reports[0][1] == "split 1/3 (202209): trained up to 202208"


def test_a_split_s_history_is_a_copy_a_model_may_change_without_touching_the_dataset() -> None:
    panel = negative_binomial_panel(2, "202101", 24)
    history = panel.head(12)
    assert history.periods == panel.periods[:12] and history.org_units == panel.org_units
    history.features["disease_cases"][:] = -1.0  # a model filling its history in place
    assert (panel.features["disease_cases"] >= 0).all()
    assert panel.window(12, 24).periods == panel.periods[12:]
