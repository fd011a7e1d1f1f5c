"""Period strings of the wire <-> pandas periods.

Monthly periods are ``202101`` or ``2021-01`` and become ``Period[M]``. Weekly periods are ISO
weeks, ``2021W05``, ``2021-W05`` or their dates ``2021-02-01/2021-02-07``, and become
``Period[W-SUN]``: a week ending on Sunday starts on the ISO Monday, so the period's ordinal order
is the chronological order across year ends. Weeks are held in an ``IsoWeekArray``, which prints
them as ``2021-W05`` (``chaplab.frames._weeks``).
The grammar is ``chaplab.vocabulary``'s (the one every layer reads); this module only turns its
periods into pandas ones. Each distinct string is parsed once and mapped back by its factorize
code, so parsing a million values costs a hash pass, not a million regex matches.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from chaplab import vocabulary
from chaplab.errors import ArgumentError
from chaplab.frames._weeks import WEEKLY, frame_periods

MONTHLY = "M"


def _parse_one(text: str) -> pd.Period:
    """One wire period string -> a monthly or ISO-weekly Period (ArgumentError naming the
    text)."""
    try:
        period_type, ordinal = vocabulary.parse_period(text)
    except ValueError as error:  # vocabulary's sentence, as chaplab's argument error
        raise ArgumentError(str(error)) from None
    if period_type == vocabulary.MONTH:
        year, month_index = divmod(ordinal, 12)
        return pd.Period(year=year, month=month_index + 1, freq=MONTHLY)
    return pd.Period(datetime.date.fromordinal(ordinal * 7 + 1), freq=WEEKLY)


def _as_period(value: Any) -> pd.Period:
    """A distinct value (string, integer or Period) -> a monthly or weekly Period."""
    if isinstance(value, pd.Period):
        if value.freqstr not in (MONTHLY, WEEKLY):
            raise ArgumentError(
                f"period {value!s} has frequency {value.freqstr}; expected M or W-SUN"
            )
        return value
    if isinstance(value, str):
        return _parse_one(value.strip())
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return _parse_one(str(value))
    raise ArgumentError(f"period {value!r} is not a period string such as '202101' or '2021W05'")


def parse_periods(values: Iterable[Any]) -> pd.PeriodIndex:
    """Wire period strings (or periods) -> a PeriodIndex of one frequency, monthly or ISO weekly
    (its weeks an ``IsoWeekArray``, which prints them as ``2021-W05``).

    Raises ValueError naming the value for a missing, unparseable or mixed-frequency period.
    """
    if isinstance(values, (pd.PeriodIndex, pd.Series)) and isinstance(values.dtype, pd.PeriodDtype):
        index = pd.PeriodIndex(values)
        if index.freqstr not in (MONTHLY, WEEKLY):
            raise ArgumentError(f"periods have frequency {index.freqstr}; expected M or W-SUN")
        return frame_periods(index)
    array = values if isinstance(values, np.ndarray) else np.asarray(list(values), dtype=object)
    codes, uniques = pd.factorize(array.astype(object, copy=False))
    if (codes < 0).any():
        position = int(np.flatnonzero(codes < 0)[0])
        raise ArgumentError(f"period at position {position} is missing")
    parsed = [_as_period(value) for value in uniques]
    if not parsed:
        return pd.PeriodIndex([], freq=MONTHLY)
    freq = parsed[0].freqstr
    for raw, period in zip(uniques, parsed, strict=True):
        if period.freqstr != freq:
            kind = {MONTHLY: "monthly", WEEKLY: "weekly"}
            raise ArgumentError(
                f"period {raw!r} is {kind[period.freqstr]} but {uniques[0]!r} is {kind[freq]}: "
                "periods of one frame must share one frequency"
            )
    distinct = periods_from_ordinals([p.ordinal for p in parsed], freq)
    return pd.Index(distinct.take(codes))


def periods_from_ordinals(ordinals: Any, freq: str | pd.offsets.BaseOffset) -> Any:
    """pandas period ordinals of one frequency -> a PeriodArray as frames hold it (weeks as an
    ``IsoWeekArray``)."""
    return frame_periods(pd.PeriodIndex.from_ordinals(ordinals, freq=freq).array)


def format_period(period: pd.Period | str) -> str:
    """A Period (or any accepted period string) -> the canonical wire string, 202101 or
    2021W05."""
    period = _as_period(period)
    if period.freqstr == MONTHLY:
        return vocabulary.format_period(vocabulary.MONTH, period.year * 12 + period.month - 1)
    monday = period.start_time.date()
    return vocabulary.format_period(vocabulary.WEEK, monday.toordinal() // 7)


def format_periods(periods: pd.PeriodIndex | pd.Series) -> np.ndarray:
    """Many periods -> canonical wire strings (an object array), formatting each distinct one
    once."""
    codes, uniques = pd.factorize(pd.PeriodIndex(periods))
    texts = np.array([format_period(period) for period in uniques], dtype=object)
    formatted: np.ndarray = texts[codes]
    return formatted


def period_kind(periods: pd.PeriodIndex | pd.Series) -> str:
    """'month' or 'week': the period type of a period column, in the service's words."""
    return {MONTHLY: "month", WEEKLY: "week"}[pd.PeriodIndex(periods).freqstr]
