"""Rows of a response -> columns, without building one object per row.

A response is JSON bytes, a list of dicts in wire (camelCase) or snake_case spelling, or a list
of objects with snake_case attributes (the client's pydantic models).

JSON bytes laid out regularly (a compact array of flat objects, the same keys in the same order
in every row, no escapes: what our service and ``orjson.dumps`` write) are cut into columns with
numpy (:func:`regular_columns`): the colons after the keys are then the body's only colons, so
their positions give every value's span; the text between values is checked against the first
row's, so the body is exactly that layout, and each column's distinct texts are parsed once.
Anything else is parsed by orjson into rows; each column is then pulled out with one C-level
``map(itemgetter)`` pass, and a row that lacks the field is looked for only when that pass
fails, to name it in the error.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Coded:
    """A column as its distinct values (in order of first appearance) and each row's code into
    them: strings, or numbers as float64 (null -> NaN)."""

    codes: np.ndarray
    uniques: list[str] | np.ndarray


QUOTE, COLON = ord('"'), ord(":")
MAX_TEXT_WIDTH = 256
"""Longer values (in bytes) send a body to the full parse."""
_NUMBER_START = np.zeros(256, dtype=bool)
_NUMBER_START[list(b"-0123456789n")] = True  # a number or null: no true/false, no spaces


@dataclass(frozen=True)
class _Layout:
    """The first row's keys (JSON text, with quotes) and which values are strings."""

    keys: list[bytes]
    texts: list[bool]

    def literal(self, index: int) -> bytes:
        """The text from the end of value ``index - 1`` to the start of value ``index``."""
        return self._quote(index - 1) + b"," + self.keys[index] + b":" + self._quote(index)

    def between_rows(self) -> bytes:
        return self._quote(-1) + b"},{" + self.keys[0] + b":" + self._quote(0)

    def head(self) -> bytes:
        return b"[{" + self.keys[0] + b":" + self._quote(0)

    def tail(self) -> bytes:
        return self._quote(-1) + b"}]"

    def _quote(self, index: int) -> bytes:
        """The quote around value ``index``, if it is a string."""
        return b'"' if self.texts[index] else b""


def regular_columns(
    payload: Raw, texts: Sequence[str], numbers: Sequence[str]
) -> dict[str, Coded] | None:
    """The columns of a regularly laid out JSON array of flat objects (see the module's
    docstring) whose keys are exactly ``texts`` (string values) and ``numbers`` (numbers or
    null), in any one order; None for any other body, which the caller parses in full."""
    body = payload.encode() if isinstance(payload, str) else bytes(payload)
    layout = _first_row(body)
    if layout is None:
        return None
    try:
        names = [key[1:-1].decode() for key in layout.keys]
    except UnicodeDecodeError:
        return None
    wanted = {**dict.fromkeys(texts, True), **dict.fromkeys(numbers, False)}
    if len(names) != len(wanted) or dict(zip(names, layout.texts, strict=True)) != wanted:
        return None
    data = np.frombuffer(body, dtype=np.uint8)
    if body.find(b"\\") >= 0 or int(data.min()) < 0x20:  # escapes; control characters
        return None
    spans = _spans(data, layout)
    if spans is None:
        return None
    columns: dict[str, Coded] = {}
    for name, is_text, (starts, ends) in zip(names, layout.texts, spans, strict=True):
        column = _text_column(data, starts, ends) if is_text else _number_column(data, starts, ends)
        if column is None:
            return None
        columns[name] = column
    return columns


def _first_row(body: bytes) -> _Layout | None:
    """The layout of the first object, when the body starts ``[{"key":value,...}``."""
    if not body.startswith(b'[{"'):
        return None
    keys, texts, at = [], [], 2
    while body[at : at + 1] == b'"':
        close = body.find(b'"', at + 1)
        if close < 0 or body[close + 1 : close + 2] != b":":
            return None
        keys.append(body[at : close + 1])
        at = close + 2
        texts.append(body[at : at + 1] == b'"')
        if texts[-1]:
            at = body.find(b'"', at + 1) + 1
        else:
            ends = [end for end in (body.find(b",", at), body.find(b"}", at)) if end >= 0]
            at = min(ends, default=-1)
        if at <= 0:
            return None
        if body[at : at + 1] == b"}":
            return _Layout(keys, texts) if len(set(keys)) == len(keys) else None
        at += 1
    return None


def _spans(data: np.ndarray, layout: _Layout) -> list[tuple[np.ndarray, np.ndarray]] | None:
    """Each value's start and end in every row, once the text between them is checked."""
    n_keys = len(layout.keys)
    colons = np.flatnonzero(data == COLON)
    if colons.size == 0 or colons.size % n_keys:
        return None
    at = np.ascontiguousarray(colons.reshape(-1, n_keys).T)  # row i: the colons of key i
    quoted = [int(text) for text in layout.texts]
    starts = [at[i] + 1 + quoted[i] for i in range(n_keys)]
    ends = [at[i + 1] - len(layout.keys[i + 1]) - 1 - quoted[i] for i in range(n_keys - 1)]
    after_last = np.append(at[0, 1:] - len(layout.keys[0]) - 3, data.size - 2)
    ends.append(after_last - quoted[-1])
    checks = [(ends[i - 1], layout.literal(i)) for i in range(1, n_keys)]
    checks.append((ends[-1][:-1], layout.between_rows()))
    head, tail = layout.head(), layout.tail()
    if data[: len(head)].tobytes() != head or int(starts[0][0]) != len(head):
        return None
    if data[int(ends[-1][-1]) :].tobytes() != tail:
        return None
    if not all(_all_equal(data, positions, text) for positions, text in checks):
        return None
    for i in range(n_keys):
        if int((ends[i] - starts[i]).min()) < 1 - quoted[i]:  # a number is never empty
            return None
    rows = at.shape[1]
    if np.count_nonzero(data == QUOTE) != rows * 2 * (n_keys + sum(quoted)):
        return None  # a quote inside a value
    return list(zip(starts, ends, strict=True))


def _all_equal(data: np.ndarray, positions: np.ndarray, text: bytes) -> bool:
    """Whether ``text`` is found at every one of ``positions`` in ``data``: one read of whole
    64-bit words per position, ending where the text ends (bytes before it masked out)."""
    if positions.size == 0:
        return True
    width = 8 * -(-len(text) // 8)
    lead = width - len(text)
    if int(positions.min()) < lead or int(positions.max()) > data.size - len(text):
        return False
    padded = bytes(lead) + text
    expected = np.frombuffer(padded, dtype=np.uint64)
    mask = np.frombuffer(bytes(lead) + b"\xff" * len(text), dtype=np.uint64)
    starts = positions - lead if lead else positions
    found = _windows(data, width)[starts].view(np.uint64).reshape(-1, width // 8)
    if lead:
        found &= mask
    return bool((found == expected).all())


def _windows(data: np.ndarray, width: int) -> np.ndarray:
    """Every ``width``-byte run of ``data`` as one item (item i starts at byte i)."""
    return np.ndarray((data.size - width + 1,), dtype=f"V{width}", buffer=data, strides=(1,))


def _words(data: np.ndarray, starts: np.ndarray, width: int) -> np.ndarray:
    """The ``width`` bytes (a multiple of 8) from each of ``starts`` as rows of 64-bit words,
    zeros past the end of ``data``: shape (rows, width / 8)."""
    last = int(np.searchsorted(starts, data.size - width, side="right"))
    items = np.empty(starts.size, dtype=f"V{width}")
    if last:
        items[:last] = _windows(data, width)[starts[:last]]
    if last < starts.size:  # windows that would run past the end: from a padded copy
        tail = np.concatenate([data[starts[last] :], np.zeros(width, np.uint8)])
        items[last:] = _windows(tail, width)[starts[last:] - starts[last]]
    return items.view(np.uint64).reshape(starts.size, width // 8)


def _cut(words: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Rows of words with the bytes past each row's length set to zero."""
    width = words.shape[1] * 8
    kept = np.arange(width) < np.arange(width + 1)[:, None]  # bytes kept, by text length
    cut: np.ndarray = words & (kept * np.uint8(0xFF)).view(np.uint64)[lengths]
    return cut


def _codes(words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes of the rows of ``words`` (numbered in order of first appearance) and the first row
    of each code. Runs of equal rows (an org unit's entries) are coded once."""
    same = np.ones(words.shape[0], dtype=bool)  # as the row before
    same[0] = False
    for column in words.T:
        same[1:] &= column[1:] == column[:-1]
    heads = np.flatnonzero(~same)
    if heads.size > words.shape[0] // 2:
        codes = _factorized_rows(words)
        return codes, _first_rows(codes)
    head_codes = _factorized_rows(words[heads])
    codes = np.repeat(head_codes, np.diff(np.append(heads, words.shape[0])))
    return codes, heads[_first_rows(head_codes)]


def _factorized_rows(words: np.ndarray) -> np.ndarray:
    """Codes of the rows of a (rows, words) uint64 matrix, one hash pass per word."""
    codes: np.ndarray
    codes, _ = pd.factorize(words[:, 0])
    for column in words.T[1:]:
        more, distinct = pd.factorize(column)
        codes, _ = pd.factorize(codes * len(distinct) + more)
    return codes


def _first_rows(codes: np.ndarray) -> np.ndarray:
    """The first row of each code, for codes numbered in order of first appearance (where
    their running maximum grows)."""
    highest = np.maximum.accumulate(codes)
    return np.flatnonzero(np.r_[True, highest[1:] > highest[:-1]])


def _distinct(
    data: np.ndarray, starts: np.ndarray, ends: np.ndarray
) -> tuple[np.ndarray, np.ndarray] | None:
    """Each row's code and the distinct texts as rows of zero-padded words; None when a text
    is longer than ``MAX_TEXT_WIDTH``.

    Rows are coded by the whole words from their start (a text and what follows it): rows with
    the same words and the same length have the same text. Only the distinct ones are cut to
    their length, and coded again where what followed made equal texts look different."""
    lengths = ends - starts
    if int(lengths.max()) > MAX_TEXT_WIDTH:
        return None
    words = _words(data, starts, 8 * max(1, -(-int(lengths.max()) // 8)))
    codes, firsts = _codes(words)
    if not np.array_equal(lengths[firsts][codes], lengths):
        codes, firsts = _codes(_cut(words, lengths))
    texts = _cut(words[firsts], lengths[firsts])
    merged, first_texts = _codes(texts)
    if first_texts.size < texts.shape[0]:
        codes, texts = merged[codes], texts[first_texts]
    return codes, texts


def _text_column(data: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> Coded | None:
    distinct = _distinct(data, starts, ends)
    if distinct is None:
        return None
    codes, words = distinct
    texts = words.view(f"S{words.shape[1] * 8}").reshape(-1).tolist()  # padding stripped
    try:
        return Coded(codes, [text.decode("utf-8") for text in texts])
    except UnicodeDecodeError:
        return None


def _number_column(data: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> Coded | None:
    """Numbers (null -> NaN) parsed by orjson, each distinct text once."""
    if not _NUMBER_START[data[starts]].all():
        return None
    distinct = _distinct(data, starts, ends)
    if distinct is None:
        return None
    codes, words = distinct
    listed = np.full((words.shape[0], words.shape[1] * 8 + 1), ord(","), dtype=np.uint8)
    texts = listed[:, :-1]
    texts[:] = words.view(np.uint8).reshape(texts.shape)
    texts[texts == 0] = ord(" ")  # padding becomes whitespace between JSON tokens
    try:
        values = orjson.loads(b"[" + listed.tobytes()[:-1] + b"]")
        numbers = np.array(values, dtype=np.float64)
    except (orjson.JSONDecodeError, TypeError, ValueError):
        return None
    if numbers.shape != (words.shape[0],):
        return None
    return Coded(codes, numbers)
