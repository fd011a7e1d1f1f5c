"""Write a compact JSON array of flat objects laid out on a grid, without one Python object per row.

Forecast entries are a full grid (split x org unit x period x quantile): every member of a row
depends on some of the grid's axes. A *segment* holds JSON text for each combination of its axes:
few texts for an org unit or a period, one per cell for a value (orjson's text of the values,
float32 with its shortest text). A row is its segments' texts back to back, without padding:
the body is exactly what ``orjson.dumps`` writes for the same rows. Rows are written a block of
the leading axis at a time, each segment with one numpy assignment of fixed-width items
(``V{width}`` views with a stride of one byte) at the rows' offsets; the bytes that a shorter
text copies past its end land in the next segment, which is written afterwards. Key and
separator literals are merged into the texts beside them first, so a row is a few segments.
Values can be computed block by block (:func:`block_number_field`), and blocks sent as written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace

import numpy as np
import orjson

from chaplab.jsonrows import Placed, Texts, joined_texts, number_texts, texts_of, write_rows

BLOCK_ROWS = 1 << 16
"""Rows written at a time (whole slices of the leading axis; at least one)."""


@dataclass(frozen=True)
class Segment:
    """JSON text for each combination of ``axes``: ``texts`` (see :class:`chaplab.jsonrows.Texts`)
    with ``starts`` and ``lengths`` shaped like those axes."""

    texts: Texts
    axes: tuple[int, ...]


@dataclass(frozen=True)
class BlockNumbers:
    """Numbers over ``axes`` (the leading axis among them) computed when a block is written:
    ``values(lead)`` has the shape of ``axes`` with the leading axis sliced by ``lead``."""

    values: Callable[[slice], np.ndarray]
    axes: tuple[int, ...]


Part = Segment | BlockNumbers
Member = list[Part]
"""The parts of one object member (``"key":value``)."""


@dataclass(frozen=True)
class JsonStream:
    """A JSON body produced by ``chunks`` as it is written; its ``length`` in bytes when known
    before (``None`` when numbers are computed block by block)."""

    length: int | None
    chunks: Iterator[memoryview]


def _segment(texts: Sequence[bytes], axes: tuple[int, ...], shape: tuple[int, ...]) -> Segment:
    """A segment from one text per combination of ``axes`` (C order over sizes ``shape``)."""
    joined = joined_texts(texts)
    shaped = texts_of(joined.text, joined.starts.reshape(shape), joined.lengths.reshape(shape))
    return Segment(shaped, axes)


def literal(text: bytes) -> Segment:
    """The same text in every row."""
    return _segment([text], (), ())


def string_field(
    key: str, values: Sequence[str], axes: tuple[int, ...], shape: tuple[int, ...]
) -> Member:
    """A string member; ``values`` in C order over ``axes`` with sizes ``shape``."""
    lead = orjson.dumps(key) + b":"
    return [_segment([lead + orjson.dumps(value) for value in values], axes, shape)]


def number_field(key: str, values: np.ndarray, axes: tuple[int, ...]) -> Member:
    """A numeric member with one value per cell of ``axes`` (``values`` has their shape); float32
    values are written with float32's shortest round-trip text, NaN as null."""
    return [_key(key), _numbers(values, axes)]


def block_number_field(
    key: str, values: Callable[[slice], np.ndarray], axes: tuple[int, ...]
) -> Member:
    """A numeric member like :func:`number_field` whose values are computed a block at a time:
    ``values(lead)`` gives those of the leading axis' slice ``lead`` (``axes`` include it)."""
    if not axes or axes[0] != 0:
        raise ValueError("a block number field must vary along the leading axis")
    return [_key(key), BlockNumbers(values, axes)]


def _key(key: str) -> Segment:
    return literal(orjson.dumps(key) + b":")


def _numbers(values: np.ndarray, axes: tuple[int, ...]) -> Segment:
    """The JSON text of each number of ``values`` (shaped like ``axes``), as orjson writes it."""
    return Segment(number_texts(values), axes)


def _broadcast(table: np.ndarray, segment: Segment, shape: tuple[int, ...]) -> np.ndarray:
    """A per-combination ``table`` of ``segment`` for every cell of ``shape``, flat."""
    expanded = table.reshape([shape[a] if a in segment.axes else 1 for a in range(len(shape))])
    return np.broadcast_to(expanded, shape).reshape(-1)


def _write_block(
    segments: Sequence[Segment], shape: tuple[int, ...], offset: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """The rows of the grid ``shape`` written after ``offset`` free bytes: the buffer (with at
    least a row's length of slack at its end) and each row's end."""
    parts = [
        Placed(
            segment.texts,
            _broadcast(segment.texts.starts, segment, shape),
            _broadcast(segment.texts.lengths, segment, shape),
        )
        for segment in segments
    ]
    return write_rows(parts, _combinations(range(len(shape)), shape), offset)


def _combinations(axes: Sequence[int], shape: tuple[int, ...]) -> int:
    return int(np.prod([shape[axis] for axis in axes], dtype=np.int64))


def _merged(segments: Sequence[Segment], shape: tuple[int, ...]) -> Segment:
    """One segment whose texts are ``segments``' texts concatenated, over the union of axes."""
    axes = tuple(sorted({axis for segment in segments for axis in segment.axes}))
    sub_shape = tuple(shape[axis] for axis in axes)
    if not axes:
        return literal(b"".join(_only_text(segment) for segment in segments))
    local = [
        replace(segment, axes=tuple(axes.index(a) for a in segment.axes)) for segment in segments
    ]
    out, ends = _write_block(local, sub_shape)
    lengths = np.diff(ends, prepend=0)
    starts = (ends - lengths).reshape(sub_shape)
    return Segment(texts_of(out, starts, lengths.reshape(sub_shape)), axes)


def _only_text(segment: Segment) -> bytes:
    """The text of a segment without axes."""
    texts = segment.texts
    start = int(texts.starts)
    return texts.text[start : start + texts.width].tobytes()


def _grouped(parts: Sequence[Part], shape: tuple[int, ...], limit: int) -> list[Part]:
    """Merge adjacent segments when one's axes contain the other's (the merged texts are no
    more than the larger one's) and they have at most ``limit`` combinations: mostly the key
    and separator literals into the values' texts."""
    merged: list[Part] = [parts[0]]
    for part in parts[1:]:
        previous = merged[-1]
        union = set(previous.axes) | set(part.axes)
        if (
            isinstance(previous, Segment)
            and isinstance(part, Segment)
            and union in (set(previous.axes), set(part.axes))
            and _combinations(sorted(union), shape) <= limit
        ):
            merged[-1] = _merged([previous, part], shape)
        else:
            merged.append(part)
    return merged


def _row_parts(shape: tuple[int, ...], members: Sequence[Member]) -> list[Part]:
    """The parts of a row, ``{``, members separated by ``,``, and ``},``, merged."""
    parts: list[Part] = [literal(b"{")]
    for index, member in enumerate(members):
        parts.extend([literal(b",")] if index else [])
        parts.extend(member)
    parts.append(literal(b"},"))
    n_rows = _combinations(range(len(shape)), shape)
    return _grouped(parts, shape, max(1, n_rows // 4))


def _blocks(shape: tuple[int, ...]) -> list[slice]:
    """Slices of the leading axis of about ``BLOCK_ROWS`` rows each."""
    step = max(1, BLOCK_ROWS // max(1, _combinations(range(1, len(shape)), shape)))
    return [slice(start, min(start + step, shape[0])) for start in range(0, shape[0], step)]


def _in_block(part: Part, lead: slice) -> Segment:
    """The segment of ``part`` for the leading axis' slice ``lead``."""
    if isinstance(part, BlockNumbers):
        return _numbers(part.values(lead), part.axes)
    if 0 not in part.axes:
        return part
    texts = part.texts
    return Segment(texts_of(texts.text, texts.starts[lead], texts.lengths[lead]), part.axes)


def _body_length(parts: Sequence[Part], shape: tuple[int, ...]) -> int | None:
    if any(isinstance(part, BlockNumbers) for part in parts):
        return None
    n_rows = _combinations(range(len(shape)), shape)
    texts = sum(
        int(part.texts.lengths.sum()) * (n_rows // max(1, _combinations(part.axes, shape)))
        for part in parts
        if isinstance(part, Segment)
    )
    return 1 + texts  # "[" and the rows; the last row's "," becomes "]"


def _chunks(parts: Sequence[Part], shape: tuple[int, ...]) -> Iterator[memoryview]:
    blocks = _blocks(shape)
    for index, lead in enumerate(blocks):
        first, last = index == 0, index == len(blocks) - 1
        segments = [_in_block(part, lead) for part in parts]
        block_shape = (lead.stop - lead.start, *shape[1:])
        out, ends = _write_block(segments, block_shape, offset=int(first))
        if first:
            out[0] = ord("[")
        if last:
            out[ends[-1] - 1] = ord("]")
        yield out.data[: int(ends[-1])]


def grid_json_stream(shape: tuple[int, ...], members: Sequence[Member]) -> JsonStream:
    """The JSON array of ``prod(shape)`` objects in C order of the grid (every member's axes in
    increasing order), members in the given order, written block by block as the chunks are
    taken."""
    if _combinations(range(len(shape)), shape) == 0:
        return JsonStream(2, iter([memoryview(b"[]")]))
    parts = _row_parts(shape, members)
    return JsonStream(_body_length(parts, shape), _chunks(parts, shape))


def grid_json(shape: tuple[int, ...], members: Sequence[Member]) -> bytes:
    """The whole JSON array of :func:`grid_json_stream` as bytes."""
    return b"".join(grid_json_stream(shape, members).chunks)
