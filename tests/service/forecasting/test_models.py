"""The model templates: skill, calibration, missing data, options and covariates."""

from __future__ import annotations

import numpy as np
import pytest

from chaplab.schema import ConfigValidationError
from chaplab.service.demo import demo_dataset, generate_demo, weekly_demo_dataset
from chaplab.service.forecasting import TEMPLATES, Panel, run_backtest
from chaplab.service.forecasting.templates import BASELINES
from chaplab.service.metrics import quantiles_from_sorted
from chaplab.vocabulary import BacktestPlan, period_range

from .helpers import negative_binomial_panel


def _with_feature(panel: Panel, name: str, values: np.ndarray | None) -> Panel:
    features = dict(panel.features)
    if values is None:
        features.pop(name)
    else:
        features[name] = values
    return Panel(panel.period_type, panel.periods, panel.org_units, features)


def test_templates_declare_their_options_as_schema_properties() -> None:
    assert set(TEMPLATES) - set(BASELINES) == {"naive_model", "seasonal_naive", "regression_model"}
    regression = TEMPLATES["regression_model"]
    assert regression.config_schema.properties["n_lags"]["type"] == "integer"
    assert regression.config_schema.properties["n_lags"]["default"] == 3
    assert regression.required_covariates == ["rainfall", "mean_temperature"]
    assert all(spec.target == "disease_cases" for spec in TEMPLATES.values())


def test_regression_beats_naive_on_crps_on_the_demo_data() -> None:
    panel = demo_dataset().panel
    scores = {
        name: run_backtest(
            TEMPLATES[name],
            {},
            panel,
            BacktestPlan(n_periods=3, n_splits=12),
            200,
            seed=1,
        ).aggregate_metrics["crps"]
        for name in ("naive_model", "regression_model")
    }
    assert scores["regression_model"] < 0.85 * scores["naive_model"]


def test_regression_beats_naive_on_weekly_data() -> None:
    panel = weekly_demo_dataset().panel
    naive = run_backtest(
        TEMPLATES["naive_model"],
        {},
        panel,
        BacktestPlan(n_periods=4, n_splits=6, stride=4),
        100,
        seed=1,
    )
    regression = run_backtest(
        TEMPLATES["regression_model"],
        {},
        panel,
        BacktestPlan(n_periods=4, n_splits=6, stride=4),
        100,
        seed=1,
    )
    assert regression.aggregate_metrics["crps"] < naive.aggregate_metrics["crps"]


def test_naive_draws_poisson_counts_around_each_places_mean_as_chap_core_does() -> None:
    panel = demo_dataset().panel  # strongly seasonal: a negative binomial's median would be ~0
    samples = TEMPLATES["naive_model"].forecast(panel, 3, 2000, {}, np.random.default_rng(1))
    means = np.nanmean(panel.feature("disease_cases"), axis=1)
    assert np.allclose(samples.mean(axis=(1, 2)), means, rtol=0.02, atol=0.5)
    assert np.allclose(samples.var(axis=(1, 2)), means, rtol=0.1, atol=0.5)  # Poisson: var = mean
    assert np.allclose(np.median(samples, axis=(1, 2)), means, rtol=0.05, atol=1)


def test_naive_10_90_interval_covers_about_80_percent_of_its_own_family() -> None:
    panel = negative_binomial_panel(200, "201501", 72, seed=11)
    options = {"distribution": "negative_binomial"}
    result = run_backtest(
        TEMPLATES["naive_model"],
        options,
        panel,
        BacktestPlan(n_periods=3, n_splits=6),
        200,
        seed=3,
    )
    assert 0.72 <= result.aggregate_metrics["coverage_10_90"] <= 0.88
    assert 0.42 <= result.aggregate_metrics["coverage_25_75"] <= 0.58


def test_regression_10_90_interval_covers_about_80_percent_on_climate_driven_counts() -> None:
    panel = generate_demo(n_org_units=60, n_years=8, seed=5).panel
    result = run_backtest(
        TEMPLATES["regression_model"],
        {},
        panel,
        BacktestPlan(n_periods=3, n_splits=6, stride=2),
        200,
        seed=3,
    )
    assert 0.72 <= result.aggregate_metrics["coverage_10_90"] <= 0.88


# chap-core's baselines forecast quantiles of past values, not counts (tests/.../test_baselines.py)
@pytest.mark.parametrize("name", sorted(set(TEMPLATES) - set(BASELINES)))
def test_quantiles_rise_with_the_level_and_samples_are_counts(name: str) -> None:
    panel = demo_dataset().panel
    samples = TEMPLATES[name].forecast(panel, 4, 100, {}, np.random.default_rng(0))
    assert samples.shape == (6, 4, 100)
    assert (samples >= 0).all() and np.array_equal(samples, np.round(samples))
    quantiles = quantiles_from_sorted(np.sort(samples, axis=-1), np.linspace(0.05, 0.95, 19))
    assert np.all(np.diff(quantiles, axis=-1) >= 0)
    assert np.any(np.diff(quantiles, axis=-1) > 0)


@pytest.mark.parametrize("name", sorted(TEMPLATES))
def test_same_generator_seed_gives_the_same_forecast(name: str) -> None:
    panel = demo_dataset().panel
    first = TEMPLATES[name].forecast(panel, 3, 50, {}, np.random.default_rng(9))
    again = TEMPLATES[name].forecast(panel, 3, 50, {}, np.random.default_rng(9))
    np.testing.assert_array_equal(first, again)


# persistence starts from the last observed value, so a missing last period moves its forecast
@pytest.mark.parametrize("name", sorted(set(TEMPLATES) - {"persistence"}))
def test_missing_target_values_are_ignored(name: str) -> None:
    panel = demo_dataset().panel
    cases = panel.features["disease_cases"].copy()
    rng = np.random.default_rng(1)
    cases[rng.random(cases.shape) < 0.2] = np.nan
    cases[:, -1] = np.nan  # the last period, a lag of every forecast
    samples = TEMPLATES[name].forecast(_with_feature(panel, "disease_cases", cases), 3, 50, {}, rng)
    assert np.isfinite(samples).all()
    complete = TEMPLATES[name].forecast(panel, 3, 400, {}, np.random.default_rng(2))
    assert np.median(samples) == pytest.approx(np.median(complete), rel=0.35)


def test_a_required_covariate_missing_entirely_is_named() -> None:
    panel = demo_dataset().panel
    without = _with_feature(panel, "rainfall", None)
    with pytest.raises(ValueError, match="'rainfall'"):
        TEMPLATES["regression_model"].forecast(without, 3, 10, {}, np.random.default_rng(0))
    empty = _with_feature(
        panel, "mean_temperature", np.full(panel.features["mean_temperature"].shape, np.nan)
    )
    with pytest.raises(ValueError, match="'mean_temperature' has no observed values"):
        run_backtest(
            TEMPLATES["regression_model"],
            {},
            empty,
            BacktestPlan(n_periods=3, n_splits=2),
            10,
            seed=0,
        )


def test_partly_missing_covariates_are_filled_from_climatology() -> None:
    panel = demo_dataset().panel
    rain = panel.features["rainfall"].copy()
    rain[:, -6:] = np.nan
    samples = TEMPLATES["regression_model"].forecast(
        _with_feature(panel, "rainfall", rain), 3, 50, {}, np.random.default_rng(0)
    )
    assert np.isfinite(samples).all()


def test_future_covariates_drive_the_regression_forecast() -> None:
    demo = generate_demo(n_org_units=6, n_years=11, seed=8)
    history = demo.panel.head(120)
    future = demo.panel.window(120, 126)
    wet = _with_feature(future, "rainfall", future.features["rainfall"] * 4.0)
    spec = TEMPLATES["regression_model"]
    options = {"n_lags": 3}
    normal = spec.forecast(history, 6, 300, options, np.random.default_rng(0), future=future)
    wetter = spec.forecast(history, 6, 300, options, np.random.default_rng(0), future=wet)
    assert not np.array_equal(normal[:, 1:], wetter[:, 1:])
    np.testing.assert_array_equal(normal[:, 0], wetter[:, 0])  # the first period only sees history
    with pytest.raises(ValueError, match="future"):
        spec.forecast(
            history, 6, 10, options, np.random.default_rng(0), future=demo.panel.window(121, 127)
        )


def test_seasonal_naive_repeats_last_seasons() -> None:
    periods_per_year, n_years = 12, 4
    profile = np.array([10, 20, 40, 80, 160, 320, 320, 160, 80, 40, 20, 10], dtype=float)
    cases = np.tile(profile, n_years)[None, :]
    panel = Panel("month", period_range("202001", "202312"), ["A"], {"disease_cases": cases})
    samples = TEMPLATES["seasonal_naive"].forecast(
        panel, periods_per_year, 2000, {"distribution": "poisson"}, np.random.default_rng(0)
    )
    np.testing.assert_allclose(samples.mean(axis=-1)[0], profile, rtol=0.1)


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        ({"n_lags": 0}, "n_lags"),
        ({"n_lags": "three"}, "n_lags"),
        ({"n_lag": 2}, "n_lag"),
        ({"distribution": "normal"}, "distribution"),
    ],
)
def test_bad_options_are_refused_with_the_option_named(options: dict, problem: str) -> None:
    panel = demo_dataset().panel
    with pytest.raises(ConfigValidationError, match=problem):
        TEMPLATES["regression_model"].forecast(panel, 3, 10, options, np.random.default_rng(0))


def test_regression_needs_lags_plus_a_season_of_history() -> None:
    panel = demo_dataset().panel
    with pytest.raises(ValueError, match="needs at least 17 periods of history, the data has 16"):
        TEMPLATES["regression_model"].forecast(
            panel.head(16), 3, 10, {"n_lags": 5}, np.random.default_rng(0)
        )
