"""JSON texts copied into a body at many positions at once.

A :class:`Texts` holds many JSON texts back to back in one buffer (with slack at its end, so a
fixed-width read from any start stays inside it). :func:`write_rows` copies them into rows with
one numpy assignment of fixed-width items (``V{width}`` views with a stride of one byte) per
member: a shorter text copies bytes past its end, which the member written next overwrites
(where that is safe), so no Python object is made per row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import orjson


@dataclass(frozen=True)
class Texts:
    """JSON texts: text ``i`` is ``text[starts[i]:starts[i] + lengths[i]]`` (``starts`` and
    ``lengths`` of any shape); ``width`` and ``shortest`` are the longest and shortest lengths.
    ``text`` has ``width`` bytes of slack at its end."""

    text: np.ndarray
    starts: np.ndarray
    lengths: np.ndarray
    width: int
    shortest: int


def texts_of(text: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> Texts:
    """Texts, their longest and shortest lengths measured once."""
    width, shortest = (int(lengths.max()), int(lengths.min())) if lengths.size else (0, 0)
    return Texts(text, starts, lengths, width, shortest)


def joined_texts(texts: Sequence[bytes]) -> Texts:
    """Texts from a list of byte strings (one per distinct value: few of them)."""
    lengths = np.fromiter(map(len, texts), dtype=np.intp, count=len(texts))
    width = int(lengths.max()) if len(texts) else 0
    text = np.frombuffer(b"".join(texts) + bytes(width), dtype=np.uint8)
    return texts_of(text, np.cumsum(lengths) - lengths, lengths)


def number_texts(values: np.ndarray) -> Texts:
    """The JSON text of each number of ``values`` (any shape) as orjson writes it: the shortest
    text that reads back as the same float64 (float32: as the same float32), NaN as null."""
    flat = np.ascontiguousarray(values).reshape(-1)
    text = orjson.dumps(flat, option=orjson.OPT_SERIALIZE_NUMPY)
    # orjson writes "[a,b,...]": number k spans from after the k-th separator to the next one.
    array = np.frombuffer(text, dtype=np.uint8)
    ends = np.append(np.flatnonzero(array == ord(",")), array.size - 1)[: flat.size]
    starts = np.concatenate(([1], ends[:-1] + 1)) if flat.size else np.empty(0, np.intp)
    lengths = ends - starts
    slack = int(lengths.max()) if flat.size else 0
    return texts_of(
        np.frombuffer(text + bytes(slack), dtype=np.uint8),
        starts.reshape(values.shape),
        lengths.reshape(values.shape),
    )


def fixed_width(buffer: np.ndarray, width: int) -> np.ndarray:
    """Every ``width``-byte run of ``buffer`` (uint8, contiguous) as one item: item i starts at
    byte i. Assigning to items writes into ``buffer``."""
    return np.ndarray((buffer.size - width + 1,), dtype=f"V{width}", buffer=buffer, strides=(1,))


@dataclass(frozen=True)
class Placed:
    """A member of every row: ``texts``, and for each row which of them it takes: its start in
    the texts' buffer and its length (arrays with one item per row, or one scalar that every
    row shares)."""

    texts: Texts
    sources: np.ndarray
    lengths: np.ndarray


def write_rows(
    parts: Sequence[Placed], rows: int, offset: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """``rows`` rows, each ``parts``' texts back to back, written after ``offset`` free bytes:
    the buffer (with at least a row's length of slack at its end) and each row's end."""
    row_lengths = np.zeros(rows, dtype=np.intp)
    for part in parts:
        row_lengths += part.lengths
    ends = np.cumsum(row_lengths) + offset
    slack = sum(part.texts.width for part in parts)  # at least any row's length
    out = np.empty(int(ends[-1]) + slack if rows else offset + slack, dtype=np.uint8)
    positions = ends - row_lengths
    for part, spill in zip(parts, _spills([part.texts for part in parts]), strict=True):
        _copy(out, positions, part, spill)
        positions += part.lengths
    return out, ends


def _copy(out: np.ndarray, positions: np.ndarray, part: Placed, spill: bool) -> None:
    """Copy each row's text of ``part`` to its position in ``out``. With ``spill`` a shorter
    text may write up to the texts' width (the next part overwrites the excess); without,
    texts are copied exactly, one assignment per distinct length."""
    texts = part.texts
    width = texts.width
    if spill or texts.shortest == width:
        fixed_width(out, width)[positions] = fixed_width(texts.text, width)[part.sources]
        return
    for length in np.unique(texts.lengths):
        chosen = part.lengths == length
        target = fixed_width(out, int(length))
        target[positions[chosen]] = fixed_width(texts.text, int(length))[part.sources[chosen]]


def _spills(in_order: Sequence[Texts]) -> list[bool]:
    """Whether each of the texts written one after another in a row may copy past its end:
    never the last; the others when the excess (width minus shortest text) fits in the next
    one's shortest text."""
    flags = [
        current.width - current.shortest <= following.shortest
        for current, following in zip(in_order[:-1], in_order[1:], strict=True)
    ]
    return [*flags, False]
