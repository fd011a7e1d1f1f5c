"""The horizon of every row of a forecast frame, by the vocabulary's one rule.

A forecast's first period is its split period in an evaluation frame (a split is named by the
first period it forecasts) and, in a prediction frame, the frame's earliest period. The horizon
of a period counts from 1 at that first period (:func:`chaplab.vocabulary.forecast_horizon`);
it is worked out once per distinct (first period, period) pair and mapped back to the rows.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from chaplab import vocabulary
from chaplab.errors import ArgumentError
from chaplab.frames._periods import format_period
from chaplab.frames._tidy import HORIZON, PERIOD, SPLIT_PERIOD

HORIZON_DTYPE = np.int16
"""Horizons are small whole numbers (at most 32,767 periods ahead); two bytes keep a frame with
org unit names under forty bytes a row."""


def forecast_starts(frame: pd.DataFrame) -> pd.arrays.PeriodArray:
    """The first forecast period of each row's forecast: its ``split_period`` in an evaluation
    frame, the frame's earliest ``period`` in a prediction frame."""
    periods = frame[PERIOD].array
    if SPLIT_PERIOD in frame.columns:
        return frame[SPLIT_PERIOD].array
    if not len(periods):
        return periods
    return pd.array(np.full(len(periods), periods.min()), dtype=periods.dtype)


def forecast_horizons(
    starts: pd.arrays.PeriodArray | pd.PeriodIndex, periods: pd.arrays.PeriodArray | pd.PeriodIndex
) -> np.ndarray:
    """The horizon (int16) of each period in a forecast starting at the matching ``starts``;
    ValueError for a period before its forecast's first period (as a server that names a split
    by the last period its model saw would send)."""
    if starts.dtype != periods.dtype:
        raise ArgumentError(
            f"split periods ({starts.dtype}) and periods ({periods.dtype}) differ in period type"
        )
    start_ordinals = np.asarray(starts.asi8, dtype=np.int64)
    period_ordinals = np.asarray(periods.asi8, dtype=np.int64)
    if not len(period_ordinals):
        return np.array([], dtype=HORIZON_DTYPE)
    low = min(int(start_ordinals.min()), int(period_ordinals.min()))
    span = max(int(start_ordinals.max()), int(period_ordinals.max())) - low + 1
    codes, pairs = pd.factorize((start_ordinals - low) * span + (period_ordinals - low))
    start_offsets, period_offsets = np.divmod(np.asarray(pairs, dtype=np.int64), span)
    freq = periods.dtype.freq
    by_pair = []
    for start_offset, period_offset in zip(start_offsets, period_offsets, strict=True):
        start = format_period(pd.Period(ordinal=int(start_offset) + low, freq=freq))
        forecast = format_period(pd.Period(ordinal=int(period_offset) + low, freq=freq))
        try:
            by_pair.append(vocabulary.forecast_horizon(start, forecast))
        except ValueError as error:
            raise ArgumentError(
                f"{error}; a split period is the first period its split forecasts (a chaplab "
                "service older than schema version 5 named it by the last period the model "
                "saw: upgrade that service)"
            ) from None
    horizons: np.ndarray = np.asarray(by_pair, dtype=HORIZON_DTYPE)[codes]
    return horizons


def with_horizon(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its ``horizon`` column right after ``period`` (replaced if there is one)."""
    horizons = forecast_horizons(forecast_starts(frame), frame[PERIOD].array)
    result = frame.drop(columns=HORIZON, errors="ignore")
    result.insert(list(result.columns).index(PERIOD) + 1, HORIZON, horizons)
    return result
