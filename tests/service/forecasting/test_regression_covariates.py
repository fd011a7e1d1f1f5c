"""The regression's covariates: its ``covariates`` option plus a configured model's additional
continuous covariates, on data shaped like the Brazil dengue table (no rainfall)."""

from __future__ import annotations

import numpy as np
import pytest

from chaplab.schema import ConfigValidationError
from chaplab.service.errors import FieldProblem
from chaplab.service.forecasting import TEMPLATES, Panel, run_backtest
from chaplab.service.validation import check_model_fits

from .helpers import BRAZIL_COVARIATES, brazil_like_panel

REGRESSION = TEMPLATES["regression_model"]
WITHOUT_RAIN = {"covariates": []}


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
    panel = brazil_like_panel()
    samples = REGRESSION.forecast(
        panel,
        3,
        100,
        WITHOUT_RAIN,
        np.random.default_rng(0),
        additional_covariates=BRAZIL_COVARIATES,
    )
    assert samples.shape == (30, 3, 100)
    assert np.isfinite(samples).all() and (samples >= 0).all()


def test_a_covariate_that_drives_the_cases_improves_the_fit() -> None:
    panel = brazil_like_panel()

    def crps(additional: list[str]) -> float:
        result = run_backtest(
            REGRESSION, WITHOUT_RAIN, panel, 1, 12, 1, 200, seed=1, additional_covariates=additional
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
        REGRESSION.forecast(
            panel, 3, 10, WITHOUT_RAIN, np.random.default_rng(0), additional_covariates=["humidity"]
        )
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
    features = {**panel.features, "drought_index": gappy}
    holed = Panel(panel.period_type, panel.periods, panel.org_units, features)
    check_model_fits(REGRESSION, WITHOUT_RAIN, holed, "datasetId", ["drought_index"])
    with pytest.raises(FieldProblem, match="'drought_index' has 4 missing value"):
        check_model_fits(REGRESSION, {"covariates": ["drought_index"]}, holed, "datasetId")


def test_an_org_unit_missing_a_covariate_throughout_takes_the_pooled_mean() -> None:
    panel = brazil_like_panel(n_org_units=8)
    drought = panel.features["drought_index"].copy()
    drought[2] = np.nan  # as Fernando de Noronha's drought index in the real table
    features = {**panel.features, "drought_index": drought}
    holed = Panel(panel.period_type, panel.periods, panel.org_units, features)
    samples = REGRESSION.forecast(
        holed,
        3,
        50,
        WITHOUT_RAIN,
        np.random.default_rng(0),
        additional_covariates=BRAZIL_COVARIATES,
    )
    assert np.isfinite(samples).all()
    pooled = np.full_like(drought, np.nanmean(drought))
    pooled_features = {
        **panel.features,
        "drought_index": np.where(np.isnan(drought), pooled, drought),
    }
    filled = Panel(panel.period_type, panel.periods, panel.org_units, pooled_features)
    same = REGRESSION.forecast(
        filled,
        3,
        50,
        WITHOUT_RAIN,
        np.random.default_rng(0),
        additional_covariates=BRAZIL_COVARIATES,
    )
    np.testing.assert_array_equal(samples, same)
    everywhere = {**panel.features, "drought_index": np.full_like(drought, np.nan)}
    with pytest.raises(ValueError, match="'drought_index' has no observed values"):
        REGRESSION.forecast(
            Panel(panel.period_type, panel.periods, panel.org_units, everywhere),
            3,
            10,
            WITHOUT_RAIN,
            np.random.default_rng(0),
            additional_covariates=["drought_index"],
        )


@pytest.mark.parametrize("covariates", [["rainfall", "rainfall"], [""], "rainfall", [3]], ids=str)
def test_bad_covariates_options_are_refused_naming_the_option(covariates: object) -> None:
    panel = brazil_like_panel(n_org_units=2)
    with pytest.raises(ConfigValidationError, match="covariates"):
        REGRESSION.forecast(panel, 3, 10, {"covariates": covariates}, np.random.default_rng(0))
