"""A regularly laid out JSON array of flat objects -> columns, without one object per row.

Regular means compact (no whitespace), the same keys in the same order in every row, no escapes
and no control characters: what ``orjson.dumps``, JavaScript's ``JSON.stringify`` and chaplab's
service and client write. The colons after the keys are then the body's only colons, so their
positions give every value's span; the text between values is checked against the first row's,
eight bytes at a time, and the quotes are counted, so the array is exactly that layout. Each
column's distinct texts are parsed once.

Rows are read a block at a time, so what is held beside the body is each row's codes and the
colons' positions, never a copy of the body: a body of 60 MB is read with about 50 MB more.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import orjson

Raw = bytes | bytearray | memoryview | str

BLOCK_ROWS = 1 << 16
"""Rows read at a time."""
CHUNK_BYTES = 1 << 22
"""Bytes scanned at a time for escapes, control characters, colons and quotes."""
MAX_TEXT_WIDTH = 256
"""Longer values (in bytes) send a body to the full parse."""
FIRST_ROW_BYTES = 1 << 16
"""The first row is looked for in this many bytes."""
QUOTE, COLON, BACKSLASH = ord('"'), ord(":"), ord("\\")
_NUMBER_START = np.zeros(256, dtype=bool)
_NUMBER_START[list(b"-0123456789n")] = True  # a number or null: no true/false, no spaces


@dataclass(frozen=True)
class Coded:
    """A text column as its distinct strings (in order of first appearance) and each row's code
    into them."""

    codes: np.ndarray
    uniques: list[str]


Column = Coded | np.ndarray
"""A column read or written: coded strings, or numbers as float64 (null as NaN)."""


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

    def quotes_per_row(self) -> int:
        return 2 * (len(self.keys) + sum(self.texts))

    def _quote(self, index: int) -> bytes:
        """The quote around value ``index``, if it is a string."""
        return b'"' if self.texts[index] else b""


def regular_columns(
    payload: Raw, texts: Sequence[str], numbers: Sequence[str]
) -> dict[str, Column] | None:
    """The columns of a regularly laid out JSON array of flat objects (see the module's
    docstring) whose keys are exactly ``texts`` (string values) and ``numbers`` (numbers or
    null), in any one order; None for any other body, which the caller parses in full.
    ``payload`` is read where it lies (a memoryview of part of a larger body is not copied)."""
    data = np.frombuffer(payload.encode() if isinstance(payload, str) else payload, np.uint8)
    layout = _first_row(data[:FIRST_ROW_BYTES].tobytes())
    if layout is None:
        return None
    try:
        names = [key[1:-1].decode() for key in layout.keys]
    except UnicodeDecodeError:
        return None
    wanted = {**dict.fromkeys(texts, True), **dict.fromkeys(numbers, False)}
    if len(names) != len(wanted) or dict(zip(names, layout.texts, strict=True)) != wanted:
        return None
    colons = _plain_colons(data, layout)
    if colons is None or not _ends_match(data, colons, layout):
        return None
    merged: list[_TextMerge | _NumberMerge] = [
        _TextMerge() if is_text else _NumberMerge() for is_text in layout.texts
    ]
    for spans in _block_spans(data, colons, layout):
        if spans is None:
            return None
        for merge, (starts, ends) in zip(merged, spans, strict=True):
            if not merge.add(data, starts, ends):
                return None
    return {name: merge.result() for name, merge in zip(names, merged, strict=True)}


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


def _plain_colons(data: np.ndarray, layout: _Layout) -> np.ndarray | None:
    """The colons' positions, when the body has no escape and no control character, a colon
    for each key of every row and the quotes of its keys and string values only."""
    colons: list[np.ndarray] = []
    quotes = 0
    for start in range(0, data.size, CHUNK_BYTES):
        chunk = data[start : start + CHUNK_BYTES]
        if int(chunk.min()) < 0x20 or bool((chunk == BACKSLASH).any()):
            return None
        colons.append(np.flatnonzero(chunk == COLON) + start)
        quotes += int(np.count_nonzero(chunk == QUOTE))
    found = np.concatenate(colons) if colons else np.empty(0, np.intp)
    n_keys = len(layout.keys)
    if found.size == 0 or found.size % n_keys:
        return None
    if quotes != found.size // n_keys * layout.quotes_per_row():
        return None  # a quote inside a value
    return found


def _ends_match(data: np.ndarray, colons: np.ndarray, layout: _Layout) -> bool:
    """Whether the body starts with the first row's head and ends with its tail."""
    head, tail = layout.head(), layout.tail()
    return (
        data[: len(head)].tobytes() == head
        and int(colons[0]) + 1 + int(layout.texts[0]) == len(head)
        and data[data.size - len(tail) :].tobytes() == tail
    )


def _block_spans(
    data: np.ndarray, colons: np.ndarray, layout: _Layout
) -> Iterator[list[tuple[np.ndarray, np.ndarray]] | None]:
    """Each block's value spans (start, end per key), once the text between them is checked;
    None for a block that is not laid out as the first row."""
    n_keys = len(layout.keys)
    rows = colons.size // n_keys
    quoted = [int(text) for text in layout.texts]
    last_end = data.size - len(layout.tail())
    for first in range(0, rows, BLOCK_ROWS):
        stop = min(first + BLOCK_ROWS, rows)
        at = np.ascontiguousarray(colons[first * n_keys : stop * n_keys].reshape(-1, n_keys).T)
        starts = [at[i] + 1 + quoted[i] for i in range(n_keys)]
        ends = [at[i + 1] - len(layout.keys[i + 1]) - 1 - quoted[i] for i in range(n_keys - 1)]
        following = colons[stop * n_keys] if stop < rows else None
        next_rows = at[0, 1:] if following is None else np.append(at[0, 1:], following)
        after_last = next_rows - len(layout.keys[0]) - 3 - quoted[-1]
        ends.append(after_last if following is not None else np.append(after_last, last_end))
        checks = [(ends[i - 1], layout.literal(i)) for i in range(1, n_keys)]
        between = ends[-1] if following is not None else ends[-1][:-1]
        checks.append((between, layout.between_rows()))
        if not all(_all_equal(data, positions, text) for positions, text in checks):
            yield None
            return
        if any(int((ends[i] - starts[i]).min()) < 1 - quoted[i] for i in range(n_keys)):
            yield None  # a number is never empty
            return
        yield list(zip(starts, ends, strict=True))


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
    head_codes, head_firsts = _factorized_rows(words[heads])
    codes = np.repeat(head_codes, np.diff(np.append(heads, words.shape[0])))
    return codes, heads[head_firsts]


def _factorized_rows(words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes of the rows of a (rows, words) uint64 matrix, numbered in order of first
    appearance, and the first row of each code."""
    combined = words[:, 0]
    for column in words.T[1:]:
        more = _sorted_codes(column)
        combined = _sorted_codes(combined) * (int(more.max()) + 1) + more
    _, first, codes = np.unique(combined, return_index=True, return_inverse=True)
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return rank[codes.reshape(-1)], first[order]


def _sorted_codes(values: np.ndarray) -> np.ndarray:
    """Each value's rank among the distinct values."""
    codes: np.ndarray = np.unique(values, return_inverse=True)[1].reshape(-1)
    return codes


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


class _TextMerge:
    """A text column read block by block: the blocks' distinct strings numbered once."""

    def __init__(self) -> None:
        self._codes: list[np.ndarray] = []
        self._known: dict[str, int] = {}

    def add(self, data: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> bool:
        distinct = _distinct(data, starts, ends)
        if distinct is None:
            return False
        codes, words = distinct
        texts = words.view(f"S{words.shape[1] * 8}").reshape(-1).tolist()  # padding stripped
        try:
            strings = [text.decode("utf-8") for text in texts]
        except UnicodeDecodeError:
            return False
        known = self._known
        numbered = np.array([known.setdefault(text, len(known)) for text in strings], np.intp)
        self._codes.append(numbered[codes])
        return True

    def result(self) -> Coded:
        return Coded(np.concatenate(self._codes), list(self._known))


class _NumberMerge:
    """A number column read block by block: each value's text parsed (by orjson, in one call
    per block)."""

    def __init__(self) -> None:
        self._values: list[np.ndarray] = []

    def add(self, data: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> bool:
        if not _NUMBER_START[data[starts]].all():
            return False
        lengths = ends - starts
        if int(lengths.max()) > MAX_TEXT_WIDTH:
            return False
        words = _words(data, starts, 8 * max(1, -(-int(lengths.max()) // 8)))
        numbers = _numbers(_cut(words, lengths))
        if numbers is None:
            return False
        self._values.append(numbers)
        return True

    def result(self) -> np.ndarray:
        return np.concatenate(self._values)


def _numbers(words: np.ndarray) -> np.ndarray | None:
    """Zero-padded number texts (null -> NaN) as float64, parsed by orjson in one call."""
    listed = np.full((words.shape[0], words.shape[1] * 8 + 1), ord(","), dtype=np.uint8)
    texts = listed[:, :-1]
    texts[:] = words.view(np.uint8).reshape(texts.shape)
    texts[texts == 0] = ord(" ")  # padding becomes whitespace between JSON tokens
    try:
        values = orjson.loads(b"[" + listed.tobytes()[:-1] + b"]")
        numbers = np.array(values, dtype=np.float64)
    except (orjson.JSONDecodeError, TypeError, ValueError):
        return None
    return numbers if numbers.shape == (words.shape[0],) else None


def member_array(body: bytes, keys: Sequence[str]) -> tuple[str, int, int] | None:
    """Where a compact JSON object's member named one of ``keys`` (looked for in that order)
    may hold an array of objects: the key and the array's start and end in ``body``. Only a
    candidate: the array may be nested deeper, or end elsewhere when a string inside it holds
    ``}]``; reading it with :func:`regular_columns` and the rest with :func:`replaced` tells."""
    for key in keys:
        start = body.find(orjson.dumps(key) + b":[{")
        if start >= 0:
            start += len(key) + 3
            end = body.find(b"}]", start)
            return (key, start, end + 2) if end >= 0 else None
    return None


def replaced(body: bytes, key: str, start: int, end: int) -> dict[str, object] | None:
    """``body`` parsed as a JSON object with ``body[start:end]`` left out, when that span is
    exactly the value of its top-level member ``key`` (the member then holds None); None when
    it is not, or ``body`` is not a JSON object. The span is taken to be one JSON value (a
    regular array read with :func:`regular_columns` is).

    The span is replaced by a string no body holds (a fresh random token): when the rest parses
    and its top-level ``key`` holds that string, the span was that member's whole value."""
    token = secrets.token_hex(16)
    rest = b"".join((body[:start], orjson.dumps(token), body[end:]))
    try:
        parsed = orjson.loads(rest)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(parsed, dict) or parsed.get(key) != token:
        return None
    parsed[key] = None
    return parsed
