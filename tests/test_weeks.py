"""The rule from epidemiological (MMWR) weeks to chaplab's ISO weeks (chaplab.weeks)."""

from __future__ import annotations

import datetime

import pytest
from epiweeks import Year

from chaplab import vocabulary
from chaplab.weeks import (
    epiweek_end,
    epiweek_of_iso_week,
    iso_week_of_date,
    iso_week_of_epiweek,
    saturday_of_iso_week,
)


@pytest.mark.parametrize(
    ("year", "week", "iso"),
    [
        (2023, 47, "2023W47"),  # numbers agree in most years
        (2003, 53, "2004W01"),  # an epidemiological week 53 across a year end
        (2004, 1, "2004W02"),  # 1 January 2004 is a Thursday: the numbers differ by one
        (2020, 53, "2020W53"),  # both calendars have a week 53 in 2020
        (2021, 1, "2021W01"),
        (2026, 1, "2026W02"),
    ],
)
def test_an_epiweek_is_labelled_with_the_iso_week_of_its_saturday(year, week, iso):
    assert iso_week_of_epiweek(year, week) == iso
    assert epiweek_of_iso_week(iso) == (year, week)
    assert saturday_of_iso_week(iso) == epiweek_end(year, week)
    assert epiweek_end(year, week).weekday() == 5


def test_consecutive_epiweeks_land_on_consecutive_iso_weeks_over_two_centuries():
    labels = [
        iso_week_of_epiweek(week.year, week.week)
        for year in range(1950, 2150)
        for week in Year(year).iterweeks()
    ]
    ordinals = [vocabulary.parse_period(label)[1] for label in labels]
    assert ordinals == list(range(ordinals[0], ordinals[0] + len(ordinals)))


def test_the_dashed_spelling_is_read_too():
    assert epiweek_of_iso_week("2004-W02") == (2004, 1)


def test_a_day_lies_in_its_iso_week():
    assert iso_week_of_date(datetime.date(2024, 12, 30)) == "2025W01"


def test_a_week_its_year_lacks_is_refused_with_the_week_named():
    with pytest.raises(ValueError, match="epidemiological week 2023-53"):
        epiweek_end(2023, 53)


def test_a_month_is_no_week():
    with pytest.raises(ValueError, match="'202301' is not a week"):
        epiweek_of_iso_week("202301")
