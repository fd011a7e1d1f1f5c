"""Tidy quantile frames <-> one column per quantile (``q0.1``, ``q0.5``, ...)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from chaplab.errors import ArgumentError
from chaplab.frames._horizons import with_horizon
from chaplab.frames._tidy import PERIOD, QUANTILE, VALUE, key_columns, sort_tidy

_PREFIX = "q"


def quantile_column(quantile: float) -> str:
    """The wide column name of a quantile level: 0.1 -> 'q0.1' (exact, so it reads back)."""
    return f"{_PREFIX}{float(quantile)!r}"


def _quantile_of(name: object) -> float | None:
    """The quantile level of a wide column name, or None for a column that is not one."""
    if not isinstance(name, str) or not name.startswith(_PREFIX):
        return None
    try:
        return float(name[len(_PREFIX) :])
    except ValueError:
        return None


def wide(frame: pd.DataFrame) -> pd.DataFrame:
    """A tidy quantile frame -> one column per quantile, indexed by org unit, split and period
    (``horizon`` follows from them: :func:`tidy` adds it back)."""
    missing = [name for name in (QUANTILE, VALUE) if name not in frame.columns]
    if missing:
        raise ArgumentError(f"wide() needs a tidy quantile frame; column(s) {missing} are missing")
    index = [name for name in key_columns(frame) if name != QUANTILE]
    if not index:
        raise ArgumentError("wide() needs an 'org_unit' or 'period' column to index the rows by")
    duplicated = frame.duplicated([*index, QUANTILE])
    if duplicated.any():
        row = frame.loc[duplicated.idxmax(), [*index, QUANTILE]].to_dict()
        raise ArgumentError(f"wide(): more than one value for {row}")
    table = frame.pivot(index=index, columns=QUANTILE, values=VALUE)
    table.columns = pd.Index([quantile_column(q) for q in table.columns])
    return table


def tidy(wide_frame: pd.DataFrame) -> pd.DataFrame:
    """A frame from :func:`wide` -> the tidy frame again (missing values are left out), with its
    ``horizon`` column when it has periods."""
    levels = {name: _quantile_of(name) for name in wide_frame.columns}
    quantile_columns = [name for name, level in levels.items() if level is not None]
    if not quantile_columns:
        raise ArgumentError("tidy() needs quantile columns named like 'q0.1', 'q0.5'")
    others = [name for name, level in levels.items() if level is None]
    if others:
        raise ArgumentError(f"tidy(): column(s) {others} are not quantile columns like 'q0.5'")
    table = wide_frame.reset_index()
    ids = [name for name in table.columns if name not in quantile_columns]
    long = table.melt(id_vars=ids, value_vars=quantile_columns, var_name=QUANTILE, value_name=VALUE)
    long[QUANTILE] = long[QUANTILE].map(levels).astype(np.float64)
    long[VALUE] = long[VALUE].astype(np.float64)
    frame = sort_tidy(long.dropna(subset=[VALUE]))
    return with_horizon(frame) if PERIOD in frame.columns else frame
