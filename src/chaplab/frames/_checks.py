"""The check of a frame argument's columns, shared by plotting, scoring and local backtests."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from chaplab.errors import ArgumentError, ArgumentTypeError


def require_frame_columns(
    frame: pd.DataFrame, columns: Sequence[str], what: str, advice: str
) -> None:
    """Check an argument ``what`` is a DataFrame with ``columns``: TypeError when it is no
    DataFrame, ValueError naming the columns it lacks followed by ``advice`` (what it needs, or
    which function gives the right frame: ``"; it needs ..."``, ``": pass ..."``)."""
    if not isinstance(frame, pd.DataFrame):
        raise ArgumentTypeError(f"{what} must be a pandas DataFrame, got {type(frame).__name__}")
    missing = [name for name in columns if name not in frame.columns]
    if missing:
        raise ArgumentError(f"{what} lacks column(s) {missing}{advice}")
