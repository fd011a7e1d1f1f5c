from __future__ import annotations

import pandas as pd
import pytest

from chaplab.frames import format_period, parse_periods


def test_monthly_compact_and_iso_forms_are_the_same_month() -> None:
    index = parse_periods(["202101", "2021-01", "202112"])
    assert index.freqstr == "M"
    assert list(index) == [pd.Period("2021-01", "M")] * 2 + [pd.Period("2021-12", "M")]


def test_weekly_periods_are_iso_weeks_starting_on_monday() -> None:
    index = parse_periods(["2021W05", "2021-W05", "2020W53"])
    assert index.freqstr == "W-SUN"
    assert index[0] == index[1]
    assert index[0].start_time == pd.Timestamp("2021-02-01")  # Monday of ISO week 5
    assert index[2].start_time == pd.Timestamp("2020-12-28")
    assert index[2] < index[0]


def test_a_single_digit_week_is_the_same_week_as_the_service_and_client_read_it() -> None:
    assert list(parse_periods(["2021W5", "2021-W5"])) == list(parse_periods(["2021W05"] * 2))
    assert format_period("2021W5") == "2021W05"


def test_format_period_gives_canonical_wire_strings() -> None:
    assert format_period(pd.Period("2021-01", "M")) == "202101"
    assert format_period("2021-W05") == "2021W05"
    # ISO week 1 of 2021 starts on 4 January; 1-3 January belong to 2020W53.
    assert format_period(pd.Period("2021-01-02", "W-SUN")) == "2020W53"
    assert [format_period(p) for p in parse_periods(["2019W01", "2026W52"])] == [
        "2019W01",
        "2026W52",
    ]


@pytest.mark.parametrize(
    ("values", "named"),
    [
        (["202101", "2021W05"], "2021W05"),
        (["202113"], "202113"),
        (["2021W54"], "2021W54"),
        (["January"], "January"),
        (["202101", None], "position 1"),
    ],
)
def test_bad_periods_are_rejected_naming_the_value(values: list, named: str) -> None:
    with pytest.raises(ValueError, match=named):
        parse_periods(values)


def test_period_columns_pass_through() -> None:
    index = pd.period_range("2021-01", periods=3, freq="M")
    assert parse_periods(pd.Series(index)).equals(index)
