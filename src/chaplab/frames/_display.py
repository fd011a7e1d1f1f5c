"""How periods, numbers and probabilities are written where people read them: chart labels and
tables.

One spelling per frequency: months ``2024-07``, ISO weeks ``2024-W05`` (chap-core's dashed
spellings, which parse back). One number format for counts and scores alike: no exponent, a
thousands separator from 1,000 on, three significant digits below that, no trailing zeros.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable

import numpy as np
import pandas as pd

from chaplab.errors import ArgumentError
from chaplab.frames._periods import format_period, format_periods
from chaplab.vocabulary import readable_period

MISSING = "\u2013"
"""How a missing number (None, NaN) is written."""
PROBABILITY = "probability"
PROBABILITY_LOWER = "probability_lower"
PROBABILITY_UPPER = "probability_upper"
"""An outbreak probability and the interval it is known to lie in (its bounds)."""


def period_label(period: pd.Period | str) -> str:
    """A period as people read it: ``2024-07`` (monthly) or ``2024-W05`` (weekly)."""
    return readable_period(format_period(period))


def period_labels(periods: pd.PeriodIndex | pd.Series) -> np.ndarray:
    """Many periods -> their :func:`period_label` (an object array), each distinct one once."""
    return np.array([readable_period(text) for text in format_periods(periods)], dtype=object)


def format_number(value: object) -> str:
    """A count or a score as people read it: ``1,790``, ``777``, ``12.3``, ``0.823``, ``-4.5``.

    Whole numbers from 1,000 on get a thousands separator; smaller numbers three significant
    digits (at most three decimals), without trailing zeros. None, NA and NaN are ``–``.
    """
    if value is None or value is pd.NA:
        return MISSING
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ArgumentError(f"format_number: {value!r} is not a number")
    number = float(value)
    if math.isnan(number):
        return MISSING
    if math.isinf(number):
        return "\u221e" if number > 0 else "-\u221e"
    if abs(number) >= 1000:
        return f"{number:,.0f}"
    decimals = _decimals([number])
    text = f"{number:.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def format_numbers(values: Iterable[object]) -> list[str]:
    """The numbers of one table column (or of the numbers one cell puts side by side) as
    people read them, all with one precision: the decimals :func:`format_number` gives the
    largest of them, so ``54 – 458`` rather than ``53.8 – 458``, less the trailing zeros all of
    them have (``0.25``, ``2``); a thousands separator from 1,000 on. None, NA and NaN are
    ``–``."""
    texts: list[str | None] = []
    finite: list[float] = []
    for value in values:
        text = format_number(value)  # the same refusals and spellings of what is no number
        if text in (MISSING, "\u221e", "-\u221e"):
            texts.append(text)
            continue
        texts.append(None)
        finite.append(float(value))  # type: ignore[arg-type]
    if not finite:
        return [text or MISSING for text in texts]
    decimals = _decimals(finite)
    written = [_fixed(number, decimals) for number in finite]
    while decimals and all(text.endswith("0") for text in written):  # zeros every number has
        decimals -= 1
        written = [_fixed(number, decimals) for number in finite]
    numbers_left = iter(written)
    return [text if text is not None else next(numbers_left) for text in texts]


def _decimals(numbers: list[float]) -> int:
    """The decimals :func:`format_number` writes the largest of ``numbers`` with."""
    size = max(abs(number) for number in numbers)
    return 0 if size >= 100 else 1 if size >= 10 else 2 if size >= 1 else 3


def _fixed(number: float, decimals: int) -> str:
    """``number`` with ``decimals`` decimals and thousands separators; no ``-0``."""
    text = f"{number:,.{decimals}f}"
    return text.lstrip("-") if text.lstrip("-").strip("0.") == "" else text


def is_bound(lower: object, upper: object) -> bool:
    """Whether a probability known to lie in ``lower``..``upper`` is only a bound: the two
    differ (a threshold beyond a forecast's outermost quantile, see
    ``chaplab.scoring.exceedance_probability``)."""
    if not isinstance(lower, numbers.Real) or not isinstance(upper, numbers.Real):
        return False
    low, high = float(lower), float(upper)
    return not (math.isnan(low) or math.isnan(high)) and high - low > 1e-9


def format_probability(probability: object, lower: object = None, upper: object = None) -> str:
    """A probability as people read it: ``37%``; where it is known only to lie in
    ``lower``..``upper`` (:func:`is_bound`), the bound: ``< 10%`` (``0``..``0.1``),
    ``> 90%`` (``0.9``..``1``), else ``20%-40%``. None, NA and NaN are ``–``."""
    if is_bound(lower, upper):
        low, high = float(lower), float(upper)  # type: ignore[arg-type]
        if low <= 0:
            return f"< {high:.0%}"
        if high >= 1:
            return f"> {low:.0%}"
        return f"{low:.0%}-{high:.0%}"
    if probability is None or probability is pd.NA:
        return MISSING
    if isinstance(probability, bool) or not isinstance(probability, numbers.Real):
        raise ArgumentError(f"format_probability: {probability!r} is not a number")
    return MISSING if math.isnan(float(probability)) else f"{float(probability):.0%}"


def probability_labels(frame: pd.DataFrame, value: str = PROBABILITY) -> list[str]:
    """:func:`format_probability` of each row of ``frame[value]``, with the row's
    ``probability_lower``/``probability_upper`` where the frame has them."""
    values = frame[value].to_numpy()
    if PROBABILITY_LOWER not in frame.columns or PROBABILITY_UPPER not in frame.columns:
        return [format_probability(v) for v in values]
    lower, upper = frame[PROBABILITY_LOWER].to_numpy(), frame[PROBABILITY_UPPER].to_numpy()
    return [format_probability(*row) for row in zip(values, lower, upper, strict=True)]


def readable(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of a frame to read: periods (columns and index levels) as :func:`period_label`,
    a ``probability`` with its bounds as :func:`format_probability` (``< 10%`` where only a
    bound is known; the bounds' own columns as percentages) and other numbers as
    :func:`format_numbers` text, one precision per column. For display only: the
    values become text."""
    table = frame.copy()
    for name in table.columns:
        column = table[name]
        if name == PROBABILITY and {PROBABILITY_LOWER, PROBABILITY_UPPER} <= set(table.columns):
            table[name] = probability_labels(frame)
        elif name in (PROBABILITY_LOWER, PROBABILITY_UPPER):  # the bounds as percentages too
            table[name] = [format_probability(value) for value in column.to_numpy()]
        elif isinstance(column.dtype, pd.PeriodDtype):
            table[name] = period_labels(column)
        elif pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column):
            table[name] = format_numbers(column.to_numpy())
    table.index = _readable_index(table.index)
    return table


def _readable_index(index: pd.Index) -> pd.Index:
    if isinstance(index, pd.MultiIndex):
        levels = [_readable_index(index.get_level_values(level)) for level in range(index.nlevels)]
        return pd.MultiIndex.from_arrays(levels, names=index.names)
    if isinstance(index.dtype, pd.PeriodDtype):
        return pd.Index(period_labels(index), name=index.name)
    return index
