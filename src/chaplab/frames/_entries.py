"""Evaluation and prediction entries, and actual cases, -> tidy frames, built column-wise."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from chaplab.frames._columns import (
    Raw,
    category_column,
    column,
    float_column,
    has_field,
    load_json,
    load_rows,
)
from chaplab.frames._periods import parse_periods
from chaplab.frames._tidy import (
    ORG_UNIT,
    PERIOD,
    QUANTILE,
    SPLIT_PERIOD,
    VALUE,
    empty_tidy,
    sort_tidy,
)

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
    for an empty response. Empty input gives an empty frame with the right dtypes.
    """
    rows = load_rows(entries, "entries")
    if with_split_period is None:
        with_split_period = bool(rows) and has_field(rows[0], _ENTRY_FIELDS[SPLIT_PERIOD])
    if not rows:
        return empty_tidy(with_split_period=with_split_period)
    fields = {
        name: spellings
        for name, spellings in _ENTRY_FIELDS.items()
        if with_split_period or name != SPLIT_PERIOD
    }
    return _build(rows, fields, "entry")


def actuals_to_frame(payload: Raw | Mapping[str, Any]) -> pd.DataFrame:
    """An actual-cases response ``{"featureId", "dhis2Id", "data": [{"pe", "ou", "value"}]}``
    -> a frame with ``org_unit``, ``period`` and ``value``, sorted chronologically."""
    document = load_json(payload) if isinstance(payload, Raw) else payload
    if not isinstance(document, Mapping) or "data" not in document:
        raise ValueError("actual cases must be an object with a 'data' list of {pe, ou, value}")
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


def _periods(values: list[Any], field: str) -> pd.arrays.PeriodArray:
    try:
        return parse_periods(values).array
    except ValueError as error:
        raise ValueError(f"{field}: {error}") from None
