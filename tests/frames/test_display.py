"""One period format per frequency and one number format, wherever people read them."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from chaplab.frames import (
    format_number,
    format_numbers,
    period_label,
    period_labels,
    readable,
    wide,
)

from .helpers import entries_of_three_places


@pytest.mark.parametrize(
    ("period", "label"),
    [
        ("202407", "2024-07"),
        ("2024-07", "2024-07"),
        (pd.Period("2024-07", "M"), "2024-07"),
        ("2024W05", "2024-W05"),
        ("2024-W05", "2024-W05"),
        ("2020W53", "2020-W53"),
    ],
)
def test_one_period_label_per_frequency(period, label: str) -> None:
    assert period_label(period) == label


def test_many_period_labels_at_once() -> None:
    periods = pd.PeriodIndex([pd.Period("2024-12", "M"), pd.Period("2025-01", "M")] * 2)
    assert list(period_labels(periods)) == ["2024-12", "2025-01"] * 2


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1790.4, "1,790"),
        (1_234_567, "1,234,567"),
        (777, "777"),
        (777.4, "777"),
        (12.345, "12.3"),
        (2.5, "2.5"),
        (1.0, "1"),
        (0.8234, "0.823"),
        (0.0001, "0"),
        (-4.5, "-4.5"),
        (-0.0001, "0"),
        (0, "0"),
        (None, "\u2013"),
        (pd.NA, "\u2013"),
        (math.nan, "\u2013"),
    ],
)
def test_one_number_format_without_exponents(value, text: str) -> None:
    assert format_number(value) == text


@pytest.mark.parametrize(
    ("values", "texts"),
    [
        ([53.8, 458.4], ["54", "458"]),  # one precision: the largest number's
        ([0.823, 1.2, None], ["0.82", "1.20", "\u2013"]),
        ([2.0, 14.0], ["2", "14"]),  # whole numbers keep no decimals
        ([1005.3, 90.7], ["1,005", "91"]),
        ([-0.0001, 12.34], ["0.0", "12.3"]),
        ([math.nan, math.inf], ["\u2013", "\u221e"]),
    ],
)
def test_the_numbers_of_a_column_share_one_precision(values: list, texts: list[str]) -> None:
    assert format_numbers(values) == texts


def test_a_readable_table_writes_periods_and_numbers_once_each_way() -> None:
    table = readable(wide(entries_of_three_places().assign(value=[1790.4, 0.25] * 6)))
    assert table.index.get_level_values("period")[0] == "2024-02"
    assert table.index.get_level_values("split_period")[0] == "2024-01"
    assert list(table.iloc[0]) == ["1,790", "0.25"]
    with pytest.raises(ValueError, match="not a number"):
        format_number("12")
