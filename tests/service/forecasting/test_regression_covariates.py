"""The regression's covariates: its ``covariates`` option plus a configured model's additional
continuous covariates, on data shaped like the Brazil dengue table (no rainfall)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from chaplab.schema import ConfigValidationError
from chaplab.service.errors import FieldProblem
from chaplab.service.forecasting import TEMPLATES, Panel, run_backtest
from chaplab.service.validation import check_model_fits
from chaplab.vocabulary import BacktestPlan

from .helpers import BRAZIL_COVARIATES, brazil_like_panel

REGRESSION = TEMPLATES["regression_model"]
WITHOUT_RAIN = {"covariates": []}


def with_drought(panel: Panel, values: np.ndarray) -> Panel:
    """``panel`` with its drought index replaced by ``values``."""
    return replace(panel, features={**panel.features, "drought_index": values})


def forecast_without_rain(panel: Panel, n_samples: int, covariates: list[str]) -> np.ndarray:
    """The regression's samples of 3 periods, without rainfall, reading ``covariates``."""
    return REGRESSION.forecast(
        panel,
        3,
        n_samples,
        WITHOUT_RAIN,
        np.random.default_rng(0),
        additional_covariates=covariates,
    )


def test_the_template_reads_the_option_then_the_additional_covariates() -> None:
    assert REGRESSION.allow_free_additional_continuous_covariates
    assert REGRESSION.required_covariates == ["rainfall", "mean_temperature"]
    assert REGRESSION.covariates({}) == ["rainfall", "mean_temperature"]
    assert REGRESSION.covariates({}, ["drought_index", "rainfall"]) == [
        "rainfall",
        "mean_temperature",
        "drought_index",
    ]
    assert REGRESSION.covariates(WITHOUT_RAIN, BRAZIL_COVARIATES) == BRAZIL_COVARIATES
    assert REGRESSION.own_covariates(WITHOUT_RAIN) == []


def test_the_regression_forecasts_data_without_rainfall_from_its_additional_covariates() -> None:
    samples = forecast_without_rain(brazil_like_panel(), 100, BRAZIL_COVARIATES)
    assert samples.shape == (30, 3, 100)
    assert np.isfinite(samples).all() and (samples >= 0).all()


def test_a_covariate_that_drives_the_cases_improves_the_fit() -> None:
    panel = brazil_like_panel()

    def crps(additional: list[str]) -> float:
        result = run_backtest(
            REGRESSION,
            WITHOUT_RAIN,
            panel,
            BacktestPlan(n_periods=1, n_splits=12),
            200,
            seed=1,
            additional_covariates=additional,
        )
        return result.aggregate_metrics["crps"]

    without = crps([])
    with_temperature = crps(["max_temperature"])
    with_all = crps(BRAZIL_COVARIATES)
    assert with_temperature < 0.5 * without
    assert with_all < 0.5 * without
    assert crps(["drought_index"]) > 0.9 * without  # unrelated to the cases


def test_additional_covariates_are_ignored_without_the_flag() -> None:
    panel = brazil_like_panel(n_org_units=4)
    naive = TEMPLATES["naive_model"]
    first = naive.forecast(panel, 2, 20, {}, np.random.default_rng(3))
    again = naive.forecast(
        panel, 2, 20, {}, np.random.default_rng(3), additional_covariates=["drought_index"]
    )
    np.testing.assert_array_equal(first, again)


def test_a_covariate_the_data_lacks_is_refused_naming_it() -> None:
    panel = brazil_like_panel(n_org_units=4)
    with pytest.raises(ValueError, match="'rainfall' is missing"):
        REGRESSION.forecast(panel, 3, 10, {}, np.random.default_rng(0))
    with pytest.raises(ValueError, match="'humidity' is missing"):
        forecast_without_rain(panel, 10, ["humidity"])
    with pytest.raises(FieldProblem, match="lacks 'humidity'") as refused:
        check_model_fits(REGRESSION, WITHOUT_RAIN, panel, "datasetId", ["humidity"])
    assert refused.value.field == "datasetId"
    with pytest.raises(FieldProblem, match="lacks 'rainfall'"):
        check_model_fits(REGRESSION, {}, panel, "datasetId", BRAZIL_COVARIATES)
    check_model_fits(REGRESSION, WITHOUT_RAIN, panel, "datasetId", BRAZIL_COVARIATES)


def test_additional_covariates_may_have_gaps_the_options_covariates_may_not() -> None:
    panel = brazil_like_panel(n_org_units=4)
    gappy = panel.features["drought_index"].copy()
    gappy[1, 5:9] = np.nan
    holed = with_drought(panel, gappy)
    check_model_fits(REGRESSION, WITHOUT_RAIN, holed, "datasetId", ["drought_index"])
    with pytest.raises(FieldProblem, match="'drought_index' has 4 missing value"):
        check_model_fits(REGRESSION, {"covariates": ["drought_index"]}, holed, "datasetId")


def test_an_org_unit_missing_a_covariate_throughout_takes_the_pooled_mean() -> None:
    panel = brazil_like_panel(n_org_units=8)
    drought = panel.features["drought_index"].copy()
    drought[2] = np.nan  # as Fernando de Noronha's drought index in the real table
    samples = forecast_without_rain(with_drought(panel, drought), 50, BRAZIL_COVARIATES)
    assert np.isfinite(samples).all()
    pooled = np.where(np.isnan(drought), np.nanmean(drought), drought)
    same = forecast_without_rain(with_drought(panel, pooled), 50, BRAZIL_COVARIATES)
    np.testing.assert_array_equal(samples, same)
    everywhere = with_drought(panel, np.full_like(drought, np.nan))
    with pytest.raises(ValueError, match="'drought_index' has no observed values"):
        forecast_without_rain(everywhere, 10, ["drought_index"])


@pytest.mark.parametrize("covariates", [["rainfall", "rainfall"], [""], "rainfall", [3]], ids=str)
def test_bad_covariates_options_are_refused_naming_the_option(covariates: object) -> None:
    panel = brazil_like_panel(n_org_units=2)
    with pytest.raises(ConfigValidationError, match="covariates"):
        REGRESSION.forecast(panel, 3, 10, {"covariates": covariates}, np.random.default_rng(0))
