"""chap-core's baselines (``persistence``, ``seasonal_median``, ``global_median``) as models of
the service: hand-computed forecasts, the errors they raise, and scores like any other model's."""

from __future__ import annotations

import numpy as np
import pytest

from chaplab.service.demo import demo_dataset
from chaplab.service.forecasting import TEMPLATES, Panel, run_backtest
from chaplab.service.forecasting.templates import BASELINES
from chaplab.service.metrics import quantiles_from_sorted
from chaplab.vocabulary import BacktestPlan, periods_after


def _monthly(cases: list[float]) -> Panel:
    """One org unit's monthly cases from January 2020."""
    periods = ["202001", *periods_after("202001", len(cases) - 1)]
    return Panel("month", periods, ["OU_A"], {"disease_cases": np.array([cases], float)})


def _forecast(name: str, panel: Panel, n_periods: int, n_samples: int = 101) -> np.ndarray:
    samples = TEMPLATES[name].forecast(panel, n_periods, n_samples, {}, np.random.default_rng(0))
    return np.sort(samples, axis=-1)


def test_the_baselines_are_registered_beside_the_models_with_chap_cores_descriptions() -> None:
    assert set(BASELINES) <= set(TEMPLATES)
    assert TEMPLATES["persistence"].display_name == "Persistence"
    assert TEMPLATES["seasonal_median"].description.startswith(
        "Baseline that uses all observed values for the same location and month or week"
    )
    assert TEMPLATES["global_median"].config_schema.properties == {}


def test_global_median_forecasts_the_median_of_every_observation_for_every_period() -> None:
    panel = _monthly([1, 9, np.nan, 5, 3, 100])
    samples = _forecast("global_median", panel, 3)
    medians = quantiles_from_sorted(samples, [0.5])[..., 0]
    np.testing.assert_allclose(medians, [[5, 5, 5]])
    assert 1 < samples.min() < 2 and 90 < samples.max() < 100  # quantiles spread over 1..100


def test_seasonal_median_forecasts_the_median_of_the_same_month_in_earlier_years() -> None:
    # two years and one month: January 10, 30; February 2, 4; March 7, 7 ...
    first, second = np.arange(1, 13) * 10.0, np.arange(1, 13) * 30.0
    panel = _monthly([*first, *second, 5.0])
    samples = _forecast("seasonal_median", panel, 2)  # February and March 2022
    medians = quantiles_from_sorted(samples, [0.5])[..., 0]
    np.testing.assert_allclose(medians, [[(20 + 60) / 2, (30 + 90) / 2]])


def test_seasonal_median_refuses_a_month_never_observed_naming_org_unit_and_period() -> None:
    cases = [float(value) for value in range(1, 13)]
    cases[2] = np.nan  # March never observed
    with pytest.raises(ValueError, match=r"seasonal_median: org unit 'OU_A'.*202103"):
        _forecast("seasonal_median", _monthly(cases), 3)


def test_persistence_scales_the_last_value_by_past_ratios_over_the_same_horizon() -> None:
    # cases double every month: every ratio one month apart is (2c + 1) / (c + 1)
    cases = [float(2**k) for k in range(14)]
    panel = _monthly(cases)
    samples = _forecast("persistence", panel, 1, n_samples=1)
    # January 2020 to February 2021; the target is March 2021, one month ahead, and the only
    # pair one month apart ending in a March is (February 2020, March 2020)
    ratio = (cases[2] + 1) / (cases[1] + 1)
    np.testing.assert_allclose(samples[0, 0, 0], (cases[-1] + 1) * ratio - 1)


def test_persistence_spreads_wider_with_the_horizon_and_never_goes_below_zero() -> None:
    panel = demo_dataset().panel
    samples = _forecast("persistence", panel, 3)
    spread = quantiles_from_sorted(samples, [0.1, 0.9])
    width = (spread[..., 1] - spread[..., 0]).mean(axis=0)
    assert width[0] < width[2]
    assert samples.min() >= 0


def test_persistence_needs_a_pair_of_observations_for_each_horizon_and_month() -> None:
    cases = [float(k) for k in range(13)]  # January 2020 to January 2021
    cases[2] = np.nan  # March 2020: no pair ends in a March
    with pytest.raises(ValueError, match=r"persistence: org unit 'OU_A'.*2 periods apart.*202103"):
        _forecast("persistence", _monthly(cases), 2)


@pytest.mark.parametrize("name", BASELINES)
def test_each_baseline_is_scored_like_the_other_models(name: str) -> None:
    panel = demo_dataset().panel
    result = run_backtest(
        TEMPLATES[name], {}, panel, BacktestPlan(n_periods=3, n_splits=4), 100, seed=0
    )
    assert set(result.aggregate_metrics) >= {"crps", "mae", "coverage_10_90"}
    assert np.isfinite(result.aggregate_metrics["crps"])
    assert result.samples.shape == (4, panel.n_org_units, 3, 100)


@pytest.mark.parametrize("name", BASELINES)
def test_baseline_quantiles_rise_with_the_level_and_are_never_negative(name: str) -> None:
    panel = demo_dataset().panel
    samples = _forecast(name, panel, 4, n_samples=100)
    quantiles = quantiles_from_sorted(samples, np.linspace(0.05, 0.95, 19))
    assert (samples >= 0).all()
    assert np.all(np.diff(quantiles, axis=-1) >= 0) and np.any(np.diff(quantiles, axis=-1) > 0)


def test_persistence_starts_from_the_last_observed_value_when_the_latest_are_missing() -> None:
    cases = [float(2**k) for k in range(14)]
    cases[-1] = np.nan  # February 2021 missing: January 2021 is the last value, 2 months back
    samples = _forecast("persistence", _monthly(cases), 1, n_samples=1)
    ratio = (cases[2] + 1) / (cases[0] + 1)  # the pair two months apart ending in March 2020
    np.testing.assert_allclose(samples[0, 0, 0], (cases[12] + 1) * ratio - 1)


@pytest.mark.parametrize("name", BASELINES)
@pytest.mark.parametrize("first", ["2020W01", "2020W02", "2020W30", "2019W50"])
def test_the_history_a_baseline_asks_for_holds_every_week_of_the_year(
    name: str, first: str
) -> None:
    """2020 has 53 ISO weeks, and week 53 is pooled with week 52: 52 weeks that hold it lack
    another week of the year, so a history of the length a baseline asks for must still hold
    every week its forecasts need."""
    template = TEMPLATES[name]
    n_periods = 3
    length = template.history_needed({}, "week") + n_periods
    periods = [first, *periods_after(first, length - 1)]
    cases = np.arange(1.0, length + 1).reshape(1, -1)
    panel = Panel("week", periods, ["OU_A"], {"disease_cases": cases})
    history = panel.head(length - n_periods)
    samples = template.forecast(history, n_periods, 11, {}, np.random.default_rng(0))
    assert samples.shape == (1, n_periods, 11) and np.isfinite(samples).all()
