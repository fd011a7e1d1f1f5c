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
    lead = np.frombuffer(_member(key), dtype=np.uint8)
    text = np.frombuffer(orjson.dumps(flat, option=orjson.OPT_SERIALIZE_NUMPY), dtype=np.uint8)
    # orjson writes "[a,b,...]": number k spans from after the k-th separator to the next one.
    separators = np.flatnonzero(text == ord(","))
    starts = np.concatenate(([1], separators + 1)) if flat.size else np.empty(0, np.intp)
    lengths = np.concatenate((separators, [text.size - 1]))[: flat.size] - starts
    width = lead.size + (int(lengths.max()) if flat.size else 0)
    texts = np.empty((flat.size, width), dtype=np.uint8)
    texts[:, : lead.size] = lead
    for offset in range(width - lead.size):  # one dense gather per character position
        characters = text[np.minimum(starts + offset, text.size - 1)]
        texts[:, lead.size + offset] = np.where(lengths > offset, characters, SPACE)
    return GridField(texts.view(f"S{width}").reshape(values.shape), axes)


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
    body = np.empty(1 + n_rows * row_type.itemsize, dtype=np.uint8)
    body[0] = ord("[")
    rows = body[1:].view(row_type).reshape(shape)  # fixed-width rows after the opening bracket
    for index, group in enumerate(groups):
        rows[f"f{index}"] = _broadcastable(group, rank, shape)
    rows["end"] = b"},"
    body[-1] = ord("]")  # the last row's trailing comma closes the array
    return body.tobytes()


def _opening(field: GridField) -> GridField:
    """The first member opens its object: its leading comma becomes ``{``."""
    texts = field.texts.copy()
    texts.reshape(-1).view(np.uint8).reshape(texts.size, -1)[:, 0] = ord("{")
    return GridField(texts, field.axes)
