"""coverage(), pit_values() and pit_histogram() on tidy frames."""

from __future__ import annotations

import numpy as np
import pytest

from chaplab.frames import with_org_unit_names
from chaplab.scoring import coverage, pit_histogram, pit_values

from .cases import LEVELS, START, actuals_frame, forecast_frame, normal_actuals, normal_forecasts

ROWS = [
    ("A", START + 1, START + 1, (10.0, 20.0, 30.0, 40.0, 50.0)),
    ("A", START + 1, START + 2, (10.0, 20.0, 30.0, 40.0, 50.0)),
    ("B", START + 1, START + 1, (10.0, 20.0, 30.0, 40.0, 50.0)),
    ("B", START + 1, START + 2, (10.0, 20.0, 30.0, 40.0, 50.0)),
]
OBSERVED = [
    ("A", START + 1, 25.0),
    ("A", START + 2, 5.0),
    ("B", START + 1, 45.0),
    ("B", START + 2, 30.0),
]


def test_coverage_per_interval_and_per_quantile() -> None:
    table = coverage({"m": forecast_frame(ROWS)}, actuals_frame(OBSERVED))
    intervals = table[table["kind"] == "interval"]
    assert intervals["nominal"].tolist() == [0.8, 0.5]
    assert intervals["empirical"].tolist() == [0.75, 0.5]  # 5 is outside 10-50; 25, 30 in 20-40
    quantiles = table[table["kind"] == "quantile"]
    assert quantiles["nominal"].tolist() == list(LEVELS)
    assert quantiles["empirical"].tolist() == [0.25, 0.25, 0.75, 0.75, 1.0]
    assert (table["n"] == 4).all()


def test_coverage_by_horizon() -> None:
    table = coverage({"m": forecast_frame(ROWS)}, actuals_frame(OBSERVED), by="horizon")
    eighty = table[(table["kind"] == "interval") & (table["nominal"] == 0.8)]
    assert eighty[["horizon", "empirical"]].values.tolist() == [[1, 1.0], [2, 0.5]]
    with pytest.raises(ValueError, match=r"by: \['wis'\] cannot group targets"):
        coverage({"m": forecast_frame(ROWS)}, actuals_frame(OBSERVED), by="wis")


def test_pit_values_per_target() -> None:
    table = pit_values({"m": forecast_frame(ROWS)}, actuals_frame(OBSERVED))
    assert table["pit"].tolist() == pytest.approx([0.375, 0.05, 0.825, 0.5])
    assert table["pit_lower"].tolist() == pytest.approx([0.375, 0.0, 0.825, 0.5])
    assert table["pit_upper"].tolist() == pytest.approx([0.375, 0.1, 0.825, 0.5])


def test_the_histogram_has_one_bin_between_each_pair_of_levels_and_no_finer() -> None:
    seven = (0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95)
    forecasts = {"five": normal_forecasts(6), "seven": normal_forecasts(6, levels=seven)}
    table = pit_histogram(forecasts, normal_actuals(6))
    five = table[table["model"] == "five"]
    assert five["bin_lower"].tolist() == [0.0, *LEVELS]
    assert five["bin_upper"].tolist() == [*LEVELS, 1.0]
    assert len(table[table["model"] == "seven"]) == 8
    sums = table.groupby("model", observed=True)["mass"].sum()
    np.testing.assert_allclose(sums, 1.0)
    np.testing.assert_allclose(
        table["density"], table["mass"] / (table["bin_upper"] - table["bin_lower"])
    )


def test_the_histogram_shows_a_biased_forecast() -> None:
    forecasts = {"good": normal_forecasts(20, 6), "high": normal_forecasts(20, 6, shift=15)}
    table = pit_histogram(forecasts, normal_actuals(20, periods=12, seed=4))
    first = table[table["bin_lower"] == 0.0].set_index("model")["density"]
    assert first["high"] > 3 * first["good"]  # actual cases fall below the shifted forecasts
    assert 0.5 < first["good"] < 1.5


def test_histogram_by_org_unit() -> None:
    table = pit_histogram({"m": forecast_frame(ROWS)}, actuals_frame(OBSERVED), by="org_unit")
    a = table[table["org_unit"] == "A"]
    # A: 0.375 in 0.25-0.5 and the interval 0-0.1: half the mass each
    assert a["mass"].tolist() == [0.5, 0.0, 0.5, 0.0, 0.0, 0.0]


def test_coverage_and_histogram_by_org_unit_keep_the_names() -> None:
    named = with_org_unit_names(forecast_frame(ROWS), {"A": "Bo", "B": "Kenema"})
    actuals = actuals_frame(OBSERVED)
    for table in (
        coverage({"m": named}, actuals, by="org_unit"),
        pit_histogram({"m": named}, actuals, by="org_unit"),
        pit_values({"m": named}, actuals),
    ):
        pairs = table[["org_unit", "org_unit_name"]].drop_duplicates().astype(str)
        assert sorted(map(tuple, pairs.to_numpy())) == [("A", "Bo"), ("B", "Kenema")]
    assert "org_unit_name" not in coverage({"m": named}, actuals, by="horizon").columns
