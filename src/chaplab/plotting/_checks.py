"""Input checks shared by the charts: clear errors instead of empty or misleading pictures."""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Sequence
from typing import TypeGuard

import numpy as np
import pandas as pd

from chaplab.errors import ArgumentError
from chaplab.frames import ORG_UNIT, PERIOD, QUANTILE, VALUE, require_frame_columns
from chaplab.plotting._bands import Band

QUANTILE_COLUMNS = (ORG_UNIT, PERIOD, QUANTILE, VALUE)
ACTUAL_COLUMNS = (ORG_UNIT, PERIOD, VALUE)


def require_columns(frame: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    """ValueError naming the missing columns of ``frame``."""
    advice = f"; it needs {list(columns)} (build it with chaplab.frames.entries_to_frame)"
    require_frame_columns(frame, columns, what, advice)
    if not isinstance(frame[PERIOD].dtype, pd.PeriodDtype):
        raise ArgumentError(
            f"{what}: column 'period' must hold pandas Periods, not {frame[PERIOD].dtype}"
        )


def check_quantile_frame(frame: pd.DataFrame, what: str = "frame") -> np.ndarray:
    """Check a forecast frame and return its sorted quantile levels (at least two)."""
    require_columns(frame, QUANTILE_COLUMNS, what)
    if frame.empty:
        raise ArgumentError(f"{what} is empty: the evaluation has no entries to plot")
    levels = np.unique(frame[QUANTILE].to_numpy(dtype=np.float64))
    if len(levels) < 2:
        raise ArgumentError(
            f"{what} has one quantile only ({levels[0]:g}): no band can be drawn; "
            "ask for at least two quantiles, e.g. 0.1 and 0.9"
        )
    return levels


def check_quantile_bands(bands: object) -> list[Band] | None:
    """The requested bands as ``(low, high)`` float pairs, or None for the default bands.

    ValueError naming ``quantile_bands`` for a flat list of levels, an item that is not a pair,
    a level that is not a number in [0, 1] (percentages such as 90 included) or a band without
    width; a bare ``TypeError`` deep in the drawing would not say which argument is wrong.
    """
    if bands is None:
        return None
    if isinstance(bands, (str, bytes)) or not isinstance(bands, Iterable):
        raise ArgumentError(
            "quantile_bands must be a list of (low, high) pairs such as [(0.1, 0.9)], "
            f"got {bands!r}"
        )
    pairs = [_band(item) for item in bands]
    if not pairs:
        raise ArgumentError(
            "quantile_bands is empty: give at least one (low, high) pair, or None for the "
            "bands of the quantiles present"
        )
    return pairs


def _band(item: object) -> Band:
    """One requested band, checked, with its levels in ascending order."""
    if isinstance(item, numbers.Real):
        raise ArgumentError(
            "quantile_bands must hold (low, high) pairs such as [(0.1, 0.9)], "
            f"not single levels: {item:g}"
        )
    if not _is_collection(item):
        raise ArgumentError(f"quantile_bands: {item!r} is not a (low, high) pair")
    levels = tuple(item)
    if len(levels) != 2:
        raise ArgumentError(f"quantile_bands: {_text(levels)} is not a (low, high) pair")
    low, high = sorted(_checked_level(level, levels) for level in levels)
    if low == high:
        raise ArgumentError(
            f"quantile_bands: the band {_text(levels)} has no width: give two different levels"
        )
    return low, high


def _is_collection(item: object) -> TypeGuard[Iterable[object]]:
    return isinstance(item, Iterable) and not isinstance(item, (str, bytes))


def _checked_level(level: object, band: tuple[object, ...]) -> float:
    """``level`` as a float; ValueError unless it is a quantile level: a number from 0 to 1."""
    if isinstance(level, bool) or not isinstance(level, numbers.Real):
        raise ArgumentError(f"quantile_bands: level {level!r} of {_text(band)} is not a number")
    value = float(level)
    if not (math.isfinite(value) and 0 <= value <= 1):
        hint = "; levels are fractions (0.9, not 90)" if 1 < value < math.inf else ""
        raise ArgumentError(
            f"quantile_bands: level {level:g} of {_text(band)} is outside [0, 1]{hint}"
        )
    return value


def _text(band: tuple[object, ...]) -> str:
    """A band as written in messages: ``(0.1, 0.9)``, numbers in short form."""
    parts = (f"{x:g}" if isinstance(x, numbers.Real) else repr(x) for x in band)
    return f"({', '.join(parts)})"


def check_actuals(actuals: pd.DataFrame | None, frame: pd.DataFrame) -> pd.DataFrame | None:
    """Check the actual cases frame against the forecast frame's period frequency."""
    if actuals is None:
        return None
    require_columns(actuals, ACTUAL_COLUMNS, "actuals")
    if not actuals.empty and actuals[PERIOD].dtype != frame[PERIOD].dtype:
        raise ArgumentError(
            f"actuals have {actuals[PERIOD].dtype} periods but the forecasts {frame[PERIOD].dtype}"
        )
    return actuals
