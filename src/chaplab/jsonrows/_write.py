"""Columns -> a compact JSON array of flat objects, without one Python object per row.

Each member of a row is its key and value text, coming from a table of texts: one text per
distinct string of a coded column (keys and separators merged into it), or orjson's text of
each number. A row is its members' texts back to back; each member is copied into a block of
rows at once (:func:`chaplab.jsonrows.write_rows`), so the body is written with a few numpy
assignments per member and block, exactly as ``orjson.dumps`` writes the same rows. Beside
the body, memory holds one block's rows at a time.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import orjson

from chaplab.jsonrows._read import Coded, Column
from chaplab.jsonrows._texts import Placed, Texts, joined_texts, number_texts, write_rows

BLOCK_ROWS = 1 << 16
"""Rows written at a time."""


@dataclass(frozen=True)
class _Part:
    """Texts written in every row: one per distinct string of a coded column (``codes`` picks
    each row's), the same literal in every row (``codes`` None), or each row's number
    (``numbers``)."""

    texts: Texts | None = None
    codes: np.ndarray | None = None
    numbers: np.ndarray | None = None

    def placed(self, block: slice) -> Placed:
        if self.numbers is not None:
            numbers = number_texts(self.numbers[block])
            return Placed(numbers, numbers.starts, numbers.lengths)
        assert self.texts is not None
        if self.codes is None:
            return Placed(self.texts, self.texts.starts[0], self.texts.lengths[0])
        codes = self.codes[block]
        return Placed(self.texts, self.texts.starts[codes], self.texts.lengths[codes])


@dataclass(frozen=True)
class Rows:
    """Columns to write as a JSON array of one object per row: ``members`` (key, column) in
    the order each row lists them, every column with one value per row (coded strings, or
    float64 numbers whose NaN is written as null)."""

    members: Sequence[tuple[str, Column]]

    def __post_init__(self) -> None:
        sizes = {_rows(column) for _, column in self.members}
        if len(sizes) > 1:
            raise ValueError(f"every column needs one value per row, got lengths {sorted(sizes)}")

    def __len__(self) -> int:
        return _rows(self.members[0][1]) if self.members else 0

    def json(self) -> bytes:
        """The array: byte for byte what ``orjson.dumps`` writes for the same list of dicts."""
        return b"".join(self.chunks())

    def chunks(self) -> Iterator[bytes]:
        """The array written a block of rows at a time, each block's bytes as it is written
        (joined, they are :meth:`json`)."""
        rows = len(self)
        if not rows:
            yield b"[]"
            return
        parts = _parts(self.members)
        for first in range(0, rows, BLOCK_ROWS):
            block = slice(first, min(first + BLOCK_ROWS, rows))
            placed = [part.placed(block) for part in parts]
            out, ends = write_rows(placed, block.stop - block.start, offset=int(first == 0))
            if first == 0:
                out[0] = ord("[")
            if block.stop == rows:
                out[ends[-1] - 1] = ord("]")  # in place of the last row's ","
            yield out[: int(ends[-1])].tobytes()


def _rows(column: Column) -> int:
    return int(column.codes.size if isinstance(column, Coded) else column.size)


def _parts(members: Sequence[tuple[str, Column]]) -> list[_Part]:
    """The parts of a row: ``{``, each member's key and value, ``},``. Literal text goes into
    the texts of the coded member after it, else of the part before it; only text between
    two numbers (or before the first, or after the last) is a part of its own."""
    pieces: list[tuple[list[bytes], Column | None]] = []  # texts and their column, if any
    pending = b"{"
    for index, (key, column) in enumerate(members):
        pending += (b"," if index else b"") + orjson.dumps(key) + b":"
        if isinstance(column, Coded):
            pieces.append(([pending + orjson.dumps(value) for value in column.uniques], column))
        else:
            _place(pieces, pending)
            pieces.append(([], column))
        pending = b""
    _place(pieces, pending + b"},")
    return [
        _Part(numbers=np.asarray(column, dtype=np.float64))
        if column is not None and not isinstance(column, Coded)
        else _Part(joined_texts(texts), column.codes if column is not None else None)
        for texts, column in pieces
    ]


def _place(pieces: list[tuple[list[bytes], Column | None]], literal: bytes) -> None:
    """Put ``literal`` after the texts of the last piece, or as a piece of its own after a
    number."""
    if pieces and (pieces[-1][1] is None or isinstance(pieces[-1][1], Coded)):
        texts, column = pieces[-1]
        pieces[-1] = ([text + literal for text in texts], column)
    else:
        pieces.append(([literal], None))
