"""Write a JSON array of flat objects laid out on a grid, without one Python object per row.

Forecast entries are a full grid (split x org unit x period x quantile): every member of a row
depends on some of the grid's axes. Each member's JSON text (with its key) is encoded once per
distinct value, padded with spaces to a fixed width (whitespace between JSON tokens is allowed)
and copied by numpy broadcasting into a structured array of fixed-width rows, whose bytes are the
response. Consecutive members over few distinct combinations are merged first, so that the big
copy touches few columns. Numbers are written by orjson (float32 with its shortest text).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import orjson

SPACE = 0x20


@dataclass(frozen=True)
class GridField:
    """Object members over ``axes`` of the grid: ``texts`` (``bytes_`` array shaped like those
    axes) holds the JSON text of the members, ``,"key":value``, for each combination."""

    texts: np.ndarray
    axes: tuple[int, ...]


def _fixed(texts: Sequence[bytes], shape: tuple[int, ...]) -> np.ndarray:
    """``bytes_`` array of ``shape``, each text right-padded with spaces (not NULs)."""
    fixed = np.asarray(texts, dtype=np.bytes_).reshape(shape)
    raw = fixed.view(np.uint8)
    raw[raw == 0] = SPACE
    return fixed


def _member(key: str) -> bytes:
    return b"," + orjson.dumps(key) + b":"


def string_field(
    key: str, values: Sequence[str], axes: tuple[int, ...], shape: tuple[int, ...]
) -> GridField:
    """A string member; ``values`` in C order over ``axes`` with sizes ``shape``."""
    lead = _member(key)
    return GridField(_fixed([lead + orjson.dumps(value) for value in values], shape), axes)


def number_field(key: str, values: np.ndarray, axes: tuple[int, ...]) -> GridField:
    """A numeric member with one value per cell of ``axes`` (``values`` has their shape); float32
    values are written with float32's shortest round-trip text, NaN as null."""
    flat = np.ascontiguousarray(values).reshape(-1)
    text = orjson.dumps(flat, option=orjson.OPT_SERIALIZE_NUMPY)
    numbers = _fixed(text[1:-1].split(b",") if flat.size else [], values.shape)
    lead = np.bytes_(_member(key))
    return GridField(
        np.char.add(lead, numbers) if flat.size < 4096 else _prefixed(lead, numbers), axes
    )


def _prefixed(lead: np.bytes_, numbers: np.ndarray) -> np.ndarray:
    """``lead`` + each number, as one fixed-width array (vectorised for large arrays)."""
    joined = np.empty(numbers.shape, dtype=[("lead", f"S{len(lead)}"), ("text", numbers.dtype)])
    joined["lead"] = lead
    joined["text"] = numbers
    return joined.view(f"S{joined.dtype.itemsize}")


def _broadcastable(field: GridField, rank: int, shape: tuple[int, ...]) -> np.ndarray:
    return field.texts.reshape([shape[axis] if axis in field.axes else 1 for axis in range(rank)])


def _merged(first: GridField, second: GridField, shape: tuple[int, ...]) -> GridField:
    axes = tuple(sorted(set(first.axes) | set(second.axes)))
    sub_shape = tuple(shape[axis] for axis in axes)
    rank = len(shape)
    combined = np.empty(
        tuple(shape[a] if a in axes else 1 for a in range(rank)),
        dtype=[("a", first.texts.dtype), ("b", second.texts.dtype)],
    )
    combined["a"] = _broadcastable(first, rank, shape)
    combined["b"] = _broadcastable(second, rank, shape)
    return GridField(combined.reshape(sub_shape).view(f"S{combined.dtype.itemsize}"), axes)


def grid_json(shape: tuple[int, ...], fields: Sequence[GridField]) -> bytes:
    """The JSON array of ``prod(shape)`` objects in C order of the grid, members in field order."""
    n_rows = int(np.prod(shape, dtype=np.int64))
    if n_rows == 0 or not fields:
        return b"[]" if n_rows == 0 else b"[" + b",".join([b"{}"] * n_rows) + b"]"
    merge_limit = max(1, n_rows // 8)
    groups: list[GridField] = [fields[0]]
    for field in fields[1:]:
        union = set(groups[-1].axes) | set(field.axes)
        if int(np.prod([shape[axis] for axis in union], dtype=np.int64)) <= merge_limit:
            groups[-1] = _merged(groups[-1], field, shape)
        else:
            groups.append(field)
    groups[0] = _opening(groups[0])
    rank = len(shape)
    row_type = np.dtype(
        [(f"f{index}", group.texts.dtype) for index, group in enumerate(groups)] + [("end", "S2")]
    )
    rows = np.empty(shape, dtype=row_type)
    for index, group in enumerate(groups):
        rows[f"f{index}"] = _broadcastable(group, rank, shape)
    rows["end"] = b"},"
    body = rows.reshape(-1).view(np.uint8)
    body[-1] = ord("]")  # the last row's trailing comma closes the array
    return b"[" + body.tobytes()


def _opening(field: GridField) -> GridField:
    """The first member opens its object: its leading comma becomes ``{``."""
    texts = field.texts.copy()
    texts.reshape(-1).view(np.uint8).reshape(texts.size, -1)[:, 0] = ord("{")
    return GridField(texts, field.axes)
