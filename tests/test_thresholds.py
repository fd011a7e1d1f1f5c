"""chaplab.thresholds, the endemic-threshold rule the service and chaplab.scoring share: which
years count, and both strategies' lines from ragged same-season histories."""

from __future__ import annotations

import math

import numpy as np
import pytest

from chaplab.thresholds import in_baseline, padded_rows, threshold_lines, year_and_season


def test_a_week_53_shares_week_52s_season_in_its_iso_year() -> None:
    years, seasons = year_and_season(["2020W53", "2021W01", "202112", "2022-03"])
    assert years.tolist() == [2020, 2021, 2021, 2022]
    assert seasons.tolist() == [51, 0, 11, 2]


def test_only_earlier_years_count_and_only_the_last_baseline_years_of_them() -> None:
    seen = np.array([2018, 2019, 2020, 2021, 2022])
    assert in_baseline(seen, 2021, None).tolist() == [True, True, True, False, False]
    assert in_baseline(seen, 2021, 2).tolist() == [False, True, True, False, False]


def test_pairs_become_rows_padded_with_nan() -> None:
    matrix = padded_rows(np.array([2, 0, 2, 2]), np.array([5.0, 1.0, 6.0, 7.0]), 3)
    assert matrix.shape == (3, 3)
    assert matrix[0, 0] == 1.0 and np.isnan(matrix[0, 1:]).all()
    assert np.isnan(matrix[1]).all()
    assert matrix[2].tolist() == [5.0, 6.0, 7.0]
    assert padded_rows(np.array([], dtype=int), np.array([]), 2).shape == (2, 0)


def test_both_strategies_match_numpy_and_need_enough_values() -> None:
    history = np.array([[3.0, 12.0, 27.0], [3.0, np.nan, np.nan], [np.nan] * 3])
    seasonal = threshold_lines(history, "seasonal", [0.0, 2.0])
    assert seasonal[0].tolist() == pytest.approx([14.0, 14.0 + 2 * math.sqrt(147.0)])
    assert np.isnan(seasonal[1:]).all()  # fewer than two values: no standard deviation
    percentile = threshold_lines(history, "percentile", [0.25, 0.75])
    assert percentile[0].tolist() == pytest.approx(np.quantile([3.0, 12.0, 27.0], [0.25, 0.75]))
    assert percentile[1].tolist() == [3.0, 3.0]
    assert np.isnan(percentile[2]).all()  # no value: no line


def test_an_unknown_strategy_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(ValueError, match="seasonal, percentile.*'median'"):
        threshold_lines(np.zeros((1, 2)), "median", [0.5])
