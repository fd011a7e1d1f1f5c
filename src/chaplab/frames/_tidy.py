"""The tidy frame layout: column order, dtypes and chronological sorting, shared by every
builder."""

from __future__ import annotations

import numpy as np
import pandas as pd

from chaplab.frames._periods import MONTHLY

ORG_UNIT = "org_unit"
SPLIT_PERIOD = "split_period"
PERIOD = "period"
HORIZON = "horizon"
QUANTILE = "quantile"
VALUE = "value"

#: Columns that identify a row, in sort order; those present in a frame are used. ``horizon``
#: is none: it follows from the split period and the period (``_horizons.with_horizon``).
KEY_COLUMNS = (ORG_UNIT, SPLIT_PERIOD, PERIOD, QUANTILE)


def key_columns(frame: pd.DataFrame) -> list[str]:
    """The identifying columns that a frame has, in sort order."""
    return [name for name in KEY_COLUMNS if name in frame.columns]


def _sort_key(series: pd.Series) -> np.ndarray:
    """An integer or float array whose order is the column's order: codes, ordinals or values."""
    key: np.ndarray
    if isinstance(series.dtype, pd.CategoricalDtype):
        key = series.cat.codes.to_numpy()
    elif isinstance(series.dtype, pd.PeriodDtype):
        key = series.array.asi8
    else:
        key = series.to_numpy()
    return key


def sort_tidy(frame: pd.DataFrame) -> pd.DataFrame:
    """Sort by org unit, split period, period and quantile (chronologically) and renumber rows.

    One ``np.lexsort`` over integer codes and period ordinals: no per-row Python.
    """
    keys = key_columns(frame)
    order = np.lexsort([_sort_key(frame[name]) for name in reversed(keys)])
    return frame.take(order).reset_index(drop=True)


def empty_tidy(*, with_split_period: bool, with_quantile: bool = True) -> pd.DataFrame:
    """A frame with no rows but the right columns and dtypes (monthly periods by convention)."""
    columns: dict[str, pd.api.extensions.ExtensionArray | np.ndarray] = {
        ORG_UNIT: pd.Categorical([], categories=pd.Index([], dtype=str)),
    }
    if with_split_period:
        columns[SPLIT_PERIOD] = pd.array([], dtype=pd.PeriodDtype(MONTHLY))
    columns[PERIOD] = pd.array([], dtype=pd.PeriodDtype(MONTHLY))
    if with_quantile:
        columns[QUANTILE] = np.array([], dtype=np.float64)
    columns[VALUE] = np.array([], dtype=np.float64)
    return pd.DataFrame(columns)
