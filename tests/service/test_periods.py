"""Service period strings: parsing, canonical output and arithmetic across year ends."""

from __future__ import annotations

import pytest

from chaplab.service.periods import (
    canonical_period,
    iso_weeks_in_year,
    next_period,
    period_range,
    period_type_of,
    periods_after,
    previous_period,
    season_position,
)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("202101", "202101"),
        ("2021-01", "202101"),
        ("2021W05", "2021W05"),
        ("2021-W05", "2021W05"),
        ("2021w5", "2021W05"),
    ],
)
def test_input_forms_have_one_canonical_spelling(value: str, expected: str) -> None:
    assert canonical_period(value) == expected


def test_period_types() -> None:
    assert period_type_of("2021-03") == "month"
    assert period_type_of("2021W03") == "week"


def test_months_cross_the_year_end() -> None:
    assert next_period("202112") == "202201"
    assert previous_period("202201") == "202112"
    assert period_range("202111", "202202") == ["202111", "202112", "202201", "202202"]


def test_iso_weeks_follow_53_week_years() -> None:
    assert iso_weeks_in_year(2020) == 53 and iso_weeks_in_year(2021) == 52
    assert next_period("2020W52") == "2020W53"
    assert next_period("2020W53") == "2021W01"
    assert next_period("2021W52") == "2022W01"
    assert previous_period("2021W01") == "2020W53"
    assert periods_after("2019W51", 3) == ["2019W52", "2020W01", "2020W02"]
    assert len(period_range("2020W01", "2021W52")) == 105


def test_season_positions() -> None:
    assert season_position("202103") == 2
    assert season_position("2021W01") == 0
    assert season_position("2020W53") == 51


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("202113", "month 13"),
        ("2021W53", "2021 has 52 weeks"),
        ("2021W00", "not a valid ISO week"),
        ("21-01", "not a period"),
        ("", "not a period"),
    ],
)
def test_bad_periods_are_named_in_the_error(value: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason) as error:
        canonical_period(value)
    assert repr(value) in str(error.value)


def test_ranges_refuse_mixed_types_and_reversed_ends() -> None:
    with pytest.raises(ValueError, match="differ in type"):
        period_range("202101", "2021W05")
    with pytest.raises(ValueError, match="before its start"):
        period_range("202105", "202101")
