"""Weekly periods that print as people read them.

A weekly period of a chaplab frame is an ISO week, held as pandas' ``Period[W-SUN]`` (a week
ending on Sunday starts on the ISO Monday, so ordinals, arithmetic, sorting, grouping and merges
are pandas' own and exact across year ends). pandas prints such a Period as its dates
(``2023-11-20/2023-11-26``); the columns and indexes chaplab builds hold them in
:class:`IsoWeekArray`, a ``PeriodArray`` that prints each week as ``2023-W47`` wherever pandas
writes it as text: a frame's repr and HTML (what a notebook shows), ``to_string``, ``to_csv``,
``astype(str)``. Monthly periods print as ``2023-11`` already.

pandas keeps the array through the operations that keep a column (selection, sorting,
``groupby`` keys, ``set_index``, ``pivot``, ``merge`` and ``concat`` with a chaplab frame first,
arithmetic such as ``period + 1``); weeks built from Period scalars (``Series.map``, a list of
Periods, ``pd.period_range``) are pandas' own again and print as dates, as does a single
``pd.Period``. The array differs from pandas' only in how it prints: its values, dtype
(``period[W-SUN]``) and comparisons are a PeriodArray's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from chaplab import vocabulary

WEEKLY = "W-SUN"
"""pandas' frequency of an ISO week: the week that ends on Sunday."""
_MONDAY_OF_ORDINAL_ZERO = pd.Period(ordinal=0, freq=WEEKLY).start_time.date().toordinal() // 7
"""The vocabulary's week ordinal (Mondays counted from 0001-01-01) of pandas' weekly ordinal 0."""


def week_labels(ordinals: np.ndarray) -> np.ndarray:
    """pandas weekly ordinals -> ``2023-W47`` (an object array of their shape), each distinct
    week once."""
    ordinals = np.asarray(ordinals, dtype=np.int64)
    codes, distinct = pd.factorize(ordinals.ravel())
    labels = np.array(
        [
            vocabulary.readable_period(
                vocabulary.format_period(vocabulary.WEEK, int(o) + _MONDAY_OF_ORDINAL_ZERO)
            )
            for o in distinct
        ],
        dtype=object,
    )
    labelled: np.ndarray = labels[codes].reshape(ordinals.shape)
    return labelled


def week_label(period: object) -> str:
    """One ``Period[W-SUN]`` as ``2023-W47``; ``NaT`` for a missing one."""
    if not isinstance(period, pd.Period):
        return "NaT"
    return str(week_labels(np.array([period.ordinal]))[0])


class IsoWeekArray(pd.arrays.PeriodArray):  # type: ignore[misc]
    """ISO weeks (``Period[W-SUN]``) that print as ``2023-W47``; a PeriodArray in all else."""

    def _formatter(self, boxed: bool = False) -> Callable[[object], str]:
        if boxed:
            return week_label
        return lambda period: repr(week_label(period))

    def _format_native_types(
        self, *, na_rep: str | float = "NaT", date_format: str | None = None, **kwargs: Any
    ) -> np.ndarray:
        """The weeks as text (``to_csv``, ``astype(str)``): labels, or ``date_format`` of each
        week's dates where one is given (``strftime``)."""
        if date_format is not None:
            return _plain(self)._format_native_types(  # type: ignore[no-any-return]
                na_rep=na_rep, date_format=date_format, **kwargs
            )
        missing = self.isna()
        texts = week_labels(np.where(missing, 0, self.asi8))
        texts[missing] = na_rep
        return texts

    def isin(self, values: Any) -> np.ndarray:
        """As a PeriodArray's: pandas' own finds nothing in values of another array class."""
        return _plain(self).isin(values)  # type: ignore[no-any-return]

    def equals(self, other: object) -> bool:
        """As a PeriodArray's, to pandas' weekly PeriodArrays too."""
        if not isinstance(other, pd.arrays.PeriodArray):
            return False
        return bool(_plain(self).equals(_plain(other)))


def _plain(periods: pd.arrays.PeriodArray) -> pd.arrays.PeriodArray:
    """The same periods as pandas' own PeriodArray (a view)."""
    return pd.arrays.PeriodArray(periods.asi8, dtype=periods.dtype)


def frame_periods(periods: Any) -> Any:
    """Periods as a chaplab frame holds them: weeks as an :class:`IsoWeekArray` (a
    ``PeriodIndex`` stays an index, over one), anything else as it is."""
    if isinstance(periods, pd.PeriodIndex):
        if periods.freqstr != WEEKLY or isinstance(periods.array, IsoWeekArray):
            return periods
        return pd.Index(frame_periods(periods.array), name=periods.name)
    if (
        isinstance(periods, pd.arrays.PeriodArray)
        and not isinstance(periods, IsoWeekArray)
        and periods.freqstr == WEEKLY
    ):
        return IsoWeekArray(periods.asi8, dtype=periods.dtype)
    return periods
