"""Periods, backtest splits, horizons, quantile levels and job statuses: one grammar for every
layer, tested once."""

from __future__ import annotations

import pytest

from chaplab.vocabulary import (
    FIRST_HORIZON,
    canonical_period,
    configured_model_name,
    forecast_horizon,
    iso_weeks_in_year,
    next_period,
    period_range,
    period_start,
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


def test_a_period_starts_on_its_first_day() -> None:
    assert period_start("2021-02").isoformat() == "2021-02-01"
    assert period_start("2021W01").isoformat() == "2021-01-04"  # the Monday of ISO week 1
    assert period_start("2020W53").isoformat() == "2020-12-28"


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


# -- one grammar, every spelling ---------------------------------------------------------------

from datetime import date, timedelta  # noqa: E402

import pandas as pd  # noqa: E402
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from chaplab.vocabulary import (  # noqa: E402
    DEFAULT_QUANTILES,
    format_period,
    is_terminal_status,
    normalize_status,
    parse_period,
    period_sort_key,
    sorted_periods,
)

_years = st.integers(min_value=1, max_value=9998)


@given(year=_years, month=st.integers(min_value=1, max_value=12))
def test_every_month_spelling_parses_to_the_same_period(year: int, month: int) -> None:
    spellings = {f"{year:04d}{month:02d}", f"{year:04d}-{month:02d}"}
    parsed = {parse_period(text) for text in spellings}
    assert len(parsed) == 1
    assert {canonical_period(text) for text in spellings} == {f"{year:04d}{month:02d}"}


@given(year=_years, week=st.integers(min_value=1, max_value=53))
def test_every_week_spelling_parses_to_the_same_period_or_none_does(year: int, week: int) -> None:
    spellings = [
        f"{year:04d}W{week:02d}",
        f"{year:04d}-W{week:02d}",
        f"{year:04d}w{week}",
        f"{year:04d}-w{week:02d}",
    ]
    if week > iso_weeks_in_year(year):
        for text in spellings:
            with pytest.raises(ValueError, match="ISO week"):
                parse_period(text)
        return
    assert {canonical_period(text) for text in spellings} == {f"{year:04d}W{week:02d}"}


@given(period_type=st.sampled_from(["month", "week"]), ordinal=st.integers(100, 100_000))
def test_formatting_and_parsing_round_trip(period_type: str, ordinal: int) -> None:
    text = format_period(period_type, ordinal)
    assert parse_period(text) == (period_type, ordinal)
    assert next_period(previous_period(text)) == text


@given(st.lists(st.tuples(_years, st.integers(1, 12)), min_size=1, max_size=30))
def test_sorting_is_chronological_whatever_the_spelling(months: list[tuple[int, int]]) -> None:
    mixed = [
        f"{y:04d}-{m:02d}" if index % 2 else f"{y:04d}{m:02d}"
        for index, (y, m) in enumerate(months)
    ]
    assert [canonical_period(text) for text in sorted_periods(mixed)] == sorted(
        f"{y:04d}{m:02d}" for y, m in months
    )
    assert period_sort_key("2021-12") < period_sort_key("202201")


@pytest.mark.parametrize("text", ["2021", "202113", "21-01", "2021W", "2021-W60", "", "0000-01"])
def test_a_string_that_is_no_period_is_refused_naming_it(text: str) -> None:
    with pytest.raises(ValueError, match="period"):
        parse_period(text)


def test_quantile_levels_and_job_statuses_are_one_vocabulary() -> None:
    assert tuple(sorted(DEFAULT_QUANTILES)) == DEFAULT_QUANTILES
    assert all(0 < level < 1 for level in DEFAULT_QUANTILES)
    assert normalize_status(" success ") == "SUCCESS"
    assert not is_terminal_status("started") and not is_terminal_status("PENDING")
    assert is_terminal_status("FAILURE") and is_terminal_status("REVOKED")


def test_horizon_counts_from_the_first_forecast_period() -> None:
    assert forecast_horizon("2024-09", "202409") == FIRST_HORIZON == 1
    assert forecast_horizon("202409", "202501") == 5
    assert forecast_horizon("2020W52", "2021W01") == 3  # 2020 has 53 ISO weeks
    with pytest.raises(ValueError, match="comes before the first forecast period"):
        forecast_horizon("202409", "202408")
    with pytest.raises(ValueError, match="differ in type"):
        forecast_horizon("202409", "2024W40")


# -- weeks written as their dates ------------------------------------------------------------


@given(monday=st.dates(min_value=date(1, 1, 1), max_value=date(9999, 12, 25)))
def test_the_text_pandas_writes_for_a_weekly_period_is_that_iso_week(monday: date) -> None:
    monday -= timedelta(days=monday.weekday())
    text = str(pd.Period(monday, freq="W-SUN"))  # '2021-01-04/2021-01-10'
    year, week, _ = monday.isocalendar()
    assert canonical_period(text) == f"{year:04d}W{week:02d}"


def test_chap_cores_weekly_dates_name_iso_weeks_across_a_53_week_year() -> None:
    assert canonical_period("2020-12-21/2020-12-27") == "2020W52"
    assert canonical_period("2020-12-28/2021-01-03") == "2020W53"
    assert canonical_period(" 2021-01-04/2021-01-10 ") == "2021W01"
    assert next_period("2020-12-28/2021-01-03") == "2021W01"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("2021-01-03/2021-01-09", "runs 7 days from a Sunday, so it is no ISO week"),
        ("2021-01-04/2021-01-17", "runs 14 days from a Monday, so it is no ISO week"),
        ("2021-01-10/2021-01-04", "ends before it starts, so it is no ISO week"),
        ("2021-01-01/2021-01-31", "runs 31 days from a Friday, so it is no ISO week"),
        ("2021-02-29/2021-03-07", "is no range of dates: 2021-02-29 is no date"),
    ],
)
def test_any_other_range_of_dates_is_refused_in_one_sentence_naming_it(
    text: str, reason: str
) -> None:
    with pytest.raises(ValueError) as refused:
        parse_period(text)
    message = str(refused.value)
    assert message.startswith(f"period {text!r} {reason}")
    assert "\n" not in message and message.count(". ") == 0


def test_a_configured_model_is_stored_under_its_templates_name_and_its_own() -> None:
    assert configured_model_name("naive_model", "w4") == "naive_model:w4"
    assert configured_model_name("naive_model", "default") == "naive_model"
