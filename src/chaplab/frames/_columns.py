"""Rows of a response -> columns, without building one object per row.

A response is JSON bytes, a list of dicts in wire (camelCase) or snake_case spelling, or a list
of objects with snake_case attributes (the client's pydantic models).

JSON bytes laid out regularly (a compact array of flat objects, the same keys in the same order
in every row, no escapes: what our service and ``orjson.dumps`` write) are cut into columns
with numpy (:func:`chaplab.jsonrows.regular_columns`). Anything else is parsed by orjson into
rows; each column is then pulled out with one C-level ``map(itemgetter)`` pass, and a row that
lacks the field is looked for only when that pass fails, to name it in the error.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import attrgetter, itemgetter
from typing import Any

import numpy as np
import orjson
import pandas as pd

from chaplab.errors import ArgumentError

Raw = bytes | bytearray | memoryview | str


def load_json(payload: Raw) -> Any:
    """JSON bytes or text -> Python objects (ValueError on malformed JSON)."""
    try:
        return orjson.loads(payload)
    except orjson.JSONDecodeError as error:
        raise ArgumentError(f"response is not valid JSON: {error}") from None


def load_rows(entries: Raw | Sequence[Any], what: str) -> list[Any]:
    """The rows of a response: parse bytes, accept a list as it is."""
    rows = load_json(entries) if isinstance(entries, Raw) else entries
    if not isinstance(rows, (list, tuple)):
        raise ArgumentError(f"{what} must be a JSON array (a list), got {type(rows).__name__}")
    return list(rows)


def has_field(row: Any, spellings: Sequence[str]) -> bool:
    """Whether a row (dict or object) carries a field under one of its spellings, not null."""
    if isinstance(row, dict):
        return any(row.get(key) is not None for key in spellings)
    return getattr(row, spellings[-1], None) is not None


def column(rows: list[Any], spellings: Sequence[str], what: str) -> list[Any]:
    """One field of every row; dicts use the spelling of the first row, objects the snake name.

    ``spellings`` lists the wire name(s) first and the snake_case attribute name last.
    """
    first = rows[0]
    getter: Callable[[Any], Any]
    if isinstance(first, dict):
        key = next((name for name in spellings if name in first), spellings[0])
        getter = itemgetter(key)
    else:
        key = spellings[-1]
        getter = attrgetter(key)
    try:
        return list(map(getter, rows))
    except (KeyError, AttributeError, TypeError):
        position = next(i for i, row in enumerate(rows) if not _has_key(row, key))
        raise ArgumentError(
            f"{what} {position} has no {spellings[0]!r} field"
            + (f" (spelled {key!r} like the first {what})" if key != spellings[0] else "")
        ) from None


def _has_key(row: Any, key: str) -> bool:
    return key in row if isinstance(row, dict) else hasattr(row, key)


def float_column(values: list[Any], field: str) -> np.ndarray:
    """Numbers (null -> NaN) -> float64, with an error naming the field for anything else."""
    try:
        return np.array(values, dtype=np.float64)
    except (TypeError, ValueError):
        position = next(i for i, v in enumerate(values) if not _is_number(v))
        raise ArgumentError(
            f"{field} at position {position} is {values[position]!r}, not a number"
        ) from None


def _is_number(value: Any) -> bool:
    return value is None or (
        isinstance(value, (int, float, np.number)) and not isinstance(value, bool)
    )


def category_column(values: list[Any] | np.ndarray, field: str) -> pd.Categorical:
    """Strings -> a categorical with sorted categories and the smallest integer codes."""
    codes, uniques = pd.factorize(np.asarray(values, dtype=object), sort=True)
    if (codes < 0).any():
        position = int(np.flatnonzero(codes < 0)[0])
        raise ArgumentError(f"{field} at position {position} is missing")
    return pd.Categorical.from_codes(codes, categories=pd.Index(uniques.astype(str)))
