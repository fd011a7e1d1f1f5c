"""Evaluation and prediction entries, and actual cases, -> tidy frames, built column-wise.

Entries bytes laid out regularly (what our service writes, see
``chaplab.jsonrows.regular_columns``) become columns without a Python object per row; the frame
is then built from the distinct values' codes and put in order with one sort key (a single
scatter when the entries are a full grid). Any other input goes through orjson's rows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from chaplab.errors import ArgumentError
from chaplab.frames._columns import (
    Raw,
    category_column,
    column,
    float_column,
    has_field,
    load_json,
    load_rows,
)
from chaplab.frames._horizons import with_horizon
from chaplab.frames._periods import parse_periods
from chaplab.frames._tidy import (
    KEY_COLUMNS,
    ORG_UNIT,
    PERIOD,
    QUANTILE,
    SPLIT_PERIOD,
    VALUE,
    empty_tidy,
    sort_tidy,
)
from chaplab.jsonrows import Coded, Column, regular_columns

# Wire spelling first, then the snake_case spelling (the attribute name of the client's models).
_ENTRY_FIELDS = {
    ORG_UNIT: ("orgUnit", "org_unit"),
    SPLIT_PERIOD: ("splitPeriod", "split_period"),
    PERIOD: ("period", "period"),
    QUANTILE: ("quantile", "quantile"),
    VALUE: ("value", "value"),
}
_ACTUAL_FIELDS = {ORG_UNIT: ("ou", "ou"), PERIOD: ("pe", "pe"), VALUE: ("value", "value")}


def entries_to_frame(
    entries: Raw | Sequence[Any], *, with_split_period: bool | None = None
) -> pd.DataFrame:
    """Evaluation or prediction entries -> the tidy frame, sorted chronologically.

    ``entries`` is the raw JSON bytes of an entries response, a list of wire (camelCase) or
    snake_case dicts, or a list of objects with ``org_unit``, ``period``, ``quantile``, ``value``
    and optionally ``split_period`` attributes. The ``split_period`` column is there when the
    entries carry one (evaluation entries); ``with_split_period`` forces the choice, which matters
    for an empty response. Every frame has a ``horizon`` column after ``period``, worked out from
    the periods (1 = the forecast's first period; see ``with_horizon``). Empty input gives an
    empty frame with the right dtypes.
    """
    if isinstance(entries, Raw):
        frame = _regular_frame(entries, with_split_period)
        if frame is not None:
            return with_horizon(frame)
    rows = load_rows(entries, "entries")
    if with_split_period is None:
        with_split_period = bool(rows) and has_field(rows[0], _ENTRY_FIELDS[SPLIT_PERIOD])
    if not rows:
        return with_horizon(empty_tidy(with_split_period=with_split_period))
    fields = {
        name: spellings
        for name, spellings in _ENTRY_FIELDS.items()
        if with_split_period or name != SPLIT_PERIOD
    }
    return with_horizon(_build(rows, fields, "entry"))


def actuals_to_frame(payload: Raw | Mapping[str, Any]) -> pd.DataFrame:
    """An actual-cases response ``{"featureId", "dhis2Id", "data": [{"pe", "ou", "value"}]}``
    -> a frame with ``org_unit``, ``period`` and ``value``, sorted chronologically."""
    document = load_json(payload) if isinstance(payload, Raw) else payload
    if not isinstance(document, Mapping) or "data" not in document:
        raise ArgumentError("actual cases must be an object with a 'data' list of {pe, ou, value}")
    rows = load_rows(document["data"], "actual cases 'data'")
    if not rows:
        return empty_tidy(with_split_period=False, with_quantile=False)
    return _build(rows, _ACTUAL_FIELDS, "actual case")


def _build(rows: list[Any], fields: Mapping[str, Sequence[str]], what: str) -> pd.DataFrame:
    """Pull each field out of the rows, convert it column-wise, assemble and sort."""
    columns: dict[str, Any] = {}
    for name, spellings in fields.items():
        values = column(rows, spellings, what)
        if name == ORG_UNIT:
            columns[name] = category_column(values, spellings[0])
        elif name in (PERIOD, SPLIT_PERIOD):
            columns[name] = _periods(values, spellings[0])
        else:
            columns[name] = float_column(values, spellings[0])
    return sort_tidy(pd.DataFrame(columns, copy=False))


def _periods(values: Sequence[Any] | np.ndarray, field: str) -> pd.arrays.PeriodArray:
    try:
        return parse_periods(values).array
    except ValueError as error:
        raise ArgumentError(f"{field}: {error}") from None


def _regular_frame(body: Raw, with_split_period: bool | None) -> pd.DataFrame | None:
    """The frame of a regularly laid out entries body, or None to parse it in full."""
    for split in (True, False) if with_split_period is None else (with_split_period,):
        fields = [name for name in _ENTRY_FIELDS if split or name != SPLIT_PERIOD]
        keys = {name: _ENTRY_FIELDS[name][0] for name in fields}
        numbers = [keys[QUANTILE], keys[VALUE]]
        texts = [key for key in keys.values() if key not in numbers]
        columns = regular_columns(body, texts, numbers)
        if columns is not None:
            return _sorted_frame({name: columns[key] for name, key in keys.items()})
    return None


def _sorted_frame(columns: Mapping[str, Column]) -> pd.DataFrame:
    """The tidy frame of coded columns, sorted as ``sort_tidy`` sorts: each key column's codes
    are ranked, and the ranks combined into one sort key."""
    coded = {name: _coded(column) for name, column in columns.items() if name != VALUE}
    built = {name: _built(name, uniques) for name, (_, uniques) in coded.items()}
    order = _order([built[name][1][coded[name][0]] for name in KEY_COLUMNS if name in built])
    frame = {name: values.take(coded[name][0][order]) for name, (values, _) in built.items()}
    return pd.DataFrame({**frame, VALUE: np.asarray(columns[VALUE]).take(order)}, copy=False)


def _coded(column: Column) -> tuple[np.ndarray, Sequence[Any]]:
    """A column's codes and distinct values (numbers coded by value: a few quantile levels)."""
    if isinstance(column, Coded):
        return column.codes, column.uniques
    codes, uniques = pd.factorize(column, use_na_sentinel=False)
    return codes, uniques


def _built(name: str, uniques: Sequence[Any]) -> tuple[Any, np.ndarray]:
    """The distinct values of a column, typed for the frame, and each one's dense rank in the
    frame's order (equal values share a rank)."""
    if name == ORG_UNIT:
        labels = np.asarray(uniques, dtype=object).astype(str)
        ranks = np.argsort(np.argsort(labels, kind="stable"))
        categories = pd.Index(np.sort(labels))
        return pd.Categorical.from_codes(ranks, categories=categories), ranks
    if name in (PERIOD, SPLIT_PERIOD):
        periods = _periods(uniques, _ENTRY_FIELDS[name][0])
        return periods, np.unique(periods.asi8, return_inverse=True)[1]
    values = np.asarray(uniques, dtype=np.float64)
    return values, np.unique(values, return_inverse=True)[1]


def _order(ranks: list[np.ndarray]) -> np.ndarray:
    """The stable order of rows by ``ranks`` (the first most significant): one integer key, its
    order a single scatter when every row has its own key (a full grid)."""
    sizes = [int(rank.max()) + 1 for rank in ranks]
    if float(np.prod(sizes, dtype=np.float64)) >= 2.0**62:
        return np.lexsort(ranks[::-1])
    key = np.zeros(ranks[0].size, dtype=np.int64)
    for rank, size in zip(ranks, sizes, strict=True):
        key *= size
        key += rank
    if int(np.prod(sizes, dtype=np.int64)) == key.size:
        order = np.full(key.size, -1, dtype=np.intp)
        order[key] = np.arange(key.size)
        if int(order.min()) >= 0:
            return order
    return np.argsort(key, kind="stable")
