"""Forecast entries (quantiles per org unit and period) from stored sorted samples, as JSON bytes
or as a stream of JSON chunks written while they are sent.

The org unit ``adm0`` is the sum over all org units: samples are summed across org units per
sample draw, sorted, and its quantiles taken. An evaluation's entries are computed a block of
splits at a time; :class:`StoredSplits` reads those splits' samples from SQLite as the blocks
are written, so sending starts before the whole sample blob (80 MB for a million entries) is read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy import Engine

from chaplab import vocabulary as period_math
from chaplab.service.errors import FieldProblem
from chaplab.service.gridjson import (
    JsonStream,
    Member,
    block_number_field,
    grid_json,
    grid_json_stream,
    number_field,
    string_field,
)
from chaplab.service.metrics import quantiles_from_sorted

TOTAL_ORG_UNIT = "adm0"


def checked_quantiles(levels: Sequence[float]) -> np.ndarray:
    """Quantile levels strictly inside (0, 1); FieldProblem naming ``quantiles`` otherwise."""
    if not levels:
        raise FieldProblem("quantiles", "give at least one quantile level, e.g. quantiles=0.5")
    array = np.asarray(levels, dtype=np.float64)
    bad = array[~((array > 0.0) & (array < 1.0))]
    if bad.size:
        raise FieldProblem(
            "quantiles", f"{bad[0]!r} is outside (0, 1); levels must be strictly between 0 and 1"
        )
    return array


def org_unit_choice(org_units: list[str], requested: Sequence[str] | None) -> list[str] | None:
    """The requested org units without repeats (``adm0`` allowed), or None for all of them;
    FieldProblem naming ``orgUnits`` for an unknown one."""
    if not requested:
        return None
    known = set(org_units)
    unknown = [unit for unit in requested if unit not in known and unit != TOTAL_ORG_UNIT]
    if unknown:
        raise FieldProblem(
            "orgUnits",
            f"{unknown[0]!r} is not an org unit of this result (it has {', '.join(org_units[:20])}"
            f"{' ...' if len(org_units) > 20 else ''}, and {TOTAL_ORG_UNIT} for their sum)",
        )
    return list(dict.fromkeys(requested))


def _selected(
    samples: np.ndarray, org_units: list[str], names: list[str] | None, axis: int
) -> np.ndarray:
    """Samples of the org units ``names`` (all when None), ``adm0`` being their sum, sorted."""
    if names is None:
        return samples
    index = {unit: i for i, unit in enumerate(org_units)}
    parts = []
    for name in names:
        if name == TOTAL_ORG_UNIT:
            parts.append(np.sort(samples.sum(axis=axis, keepdims=True, dtype=np.float64), axis=-1))
        else:
            parts.append(np.take(samples, [index[name]], axis=axis))
    return np.concatenate([part.astype(np.float32) for part in parts], axis=axis)


SplitSamples = Callable[[int, int], np.ndarray]
"""Sorted samples of the splits ``start:stop``: (stop - start, org units, periods, samples)."""


class StoredSplits:
    """An evaluation's sorted float32 samples (its ``samples`` blob, one row of ``table``) read
    split by split from SQLite.

    The blob is opened on the first read, on a connection of its own (a read snapshot while the
    blob is open); :meth:`close` gives the connection back.
    """

    def __init__(self, engine: Engine, table: str, row_id: int, shape: tuple[int, ...]) -> None:
        self._engine, self._table, self._row_id, self._shape = engine, table, row_id, shape
        self._connection: Any = None
        self._blob: Any = None

    def __call__(self, start: int, stop: int) -> np.ndarray:
        blob = self._open()
        split_bytes = int(np.prod(self._shape[1:], dtype=np.int64)) * 4
        blob.seek(start * split_bytes)
        data = blob.read((stop - start) * split_bytes)
        return np.frombuffer(data, dtype=np.float32).reshape((stop - start, *self._shape[1:]))

    def _open(self) -> Any:
        if self._blob is None:
            self._connection = self._engine.raw_connection()
            driver = self._connection.driver_connection
            query = f"SELECT rowid FROM {self._table} WHERE id = ?"
            found = driver.execute(query, (self._row_id,)).fetchone()
            if found is None:
                raise LookupError(f"{self._table} {self._row_id} was deleted while being sent")
            self._blob = driver.blobopen(self._table, "samples", found[0], readonly=True)
            if len(self._blob) != int(np.prod(self._shape, dtype=np.int64)) * 4:
                raise ValueError(
                    f"the samples of {self._table} {self._row_id} are not {self._shape}"
                )
        return self._blob

    def close(self) -> None:
        """Close the blob and give the connection back (again: nothing)."""
        if self._blob is not None:
            self._blob.close()
            self._blob = None
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    @staticmethod
    def usable(engine: Engine) -> bool:
        """Whether the engine's database is a SQLite file (whose blobs can be read in parts, and
        which a second connection sees as it is)."""
        return engine.dialect.name == "sqlite" and engine.url.database not in (None, "", ":memory:")


@dataclass(frozen=True)
class EvaluationLayout:
    """Where an evaluation's samples sit: its org units, its split periods and, per split, the
    periods forecast (the same lists an ``EvaluationRow`` stores)."""

    org_units: list[str]
    split_periods: list[str]
    periods: list[list[str]]


def evaluation_entries_json(
    samples: np.ndarray,
    layout: EvaluationLayout,
    levels: Sequence[float],
    split_period: str | None = None,
    requested_org_units: Sequence[str] | None = None,
) -> bytes:
    """Entries ``{orgUnit, period, quantile, value, splitPeriod}`` of an evaluation whose samples
    have shape (splits, org units, periods, samples)."""
    return grid_json(
        *_evaluation_grid(_slicer(samples), layout, levels, split_period, requested_org_units)
    )


def evaluation_entries_stream(
    samples: np.ndarray | StoredSplits,
    layout: EvaluationLayout,
    levels: Sequence[float],
    *,
    split_period: str | None = None,
    requested_org_units: Sequence[str] | None = None,
) -> JsonStream:
    """:func:`evaluation_entries_json` written block by block as it is sent, the samples read
    as the blocks need them. The request is checked (FieldProblem) before the stream is
    returned; stored samples are closed when the stream ends."""
    reader = samples if isinstance(samples, StoredSplits) else _slicer(samples)
    stream = grid_json_stream(
        *_evaluation_grid(reader, layout, levels, split_period, requested_org_units)
    )
    if isinstance(samples, StoredSplits):
        return JsonStream(stream.length, _closing(stream.chunks, samples))
    return stream


def _slicer(samples: np.ndarray) -> SplitSamples:
    return lambda start, stop: samples[start:stop]


def _closing(chunks: Iterator[memoryview], samples: StoredSplits) -> Iterator[memoryview]:
    try:
        yield from chunks
    finally:
        samples.close()


def _evaluation_grid(
    samples: SplitSamples,
    layout: EvaluationLayout,
    levels: Sequence[float],
    split_period: str | None,
    requested_org_units: Sequence[str] | None,
) -> tuple[tuple[int, ...], list[Member]]:
    """The grid (splits, org units, periods, quantiles) of evaluation entries and its members;
    the values are computed a block of splits at a time."""
    org_units, split_periods, periods = layout.org_units, layout.split_periods, layout.periods
    quantiles = checked_quantiles(levels)
    chosen = list(range(len(split_periods)))
    if split_period is not None:
        try:
            wanted = period_math.canonical_period(split_period)
        except ValueError as error:
            raise FieldProblem("splitPeriod", str(error)) from None
        chosen = [k for k in chosen if split_periods[k] == wanted]
    names = org_unit_choice(org_units, requested_org_units)
    units = org_units if names is None else names
    n_periods = len(periods[chosen[0]]) if chosen else 0
    shape = (len(chosen), len(units), n_periods, len(quantiles))

    def values(lead: slice) -> np.ndarray:
        block = _splits(samples, chosen[lead])
        chosen_units = _selected(block, org_units, names, axis=1)
        return quantiles_from_sorted(chosen_units, quantiles).astype(np.float32)

    return shape, [
        string_field("orgUnit", units, (1,), (shape[1],)),
        string_field(
            "period", [p for k in chosen for p in periods[k]], (0, 2), (shape[0], shape[2])
        ),
        number_field("quantile", quantiles, (3,)),
        block_number_field("value", values, (0, 1, 2, 3)),
        string_field("splitPeriod", [split_periods[k] for k in chosen], (0,), (shape[0],)),
    ]


def _splits(samples: SplitSamples, indices: list[int]) -> np.ndarray:
    """The samples of the splits ``indices``, reading each run of consecutive splits at once."""
    runs: list[list[int]] = []
    for index in indices:
        if runs and runs[-1][1] == index:
            runs[-1][1] = index + 1
        else:
            runs.append([index, index + 1])
    parts = [samples(start, stop) for start, stop in runs]
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def prediction_entries_json(
    samples: np.ndarray,
    org_units: list[str],
    periods: list[str],
    levels: Sequence[float],
    requested_org_units: Sequence[str] | None = None,
    prediction_id: int | None = None,
) -> bytes:
    """Entries ``{orgUnit, period, quantile, value}`` of a prediction whose samples have shape
    (org units, periods, samples); with ``prediction_id`` each entry also has ``predictionId``."""
    return grid_json(
        *_prediction_grid(samples, org_units, periods, levels, requested_org_units, prediction_id)
    )


def prediction_entries_stream(
    samples: np.ndarray,
    org_units: list[str],
    periods: list[str],
    levels: Sequence[float],
    requested_org_units: Sequence[str] | None = None,
) -> JsonStream:
    """:func:`prediction_entries_json` written block by block as it is sent; the request is
    checked (FieldProblem) before the stream is returned."""
    return grid_json_stream(
        *_prediction_grid(samples, org_units, periods, levels, requested_org_units, None)
    )


def _prediction_grid(
    samples: np.ndarray,
    org_units: list[str],
    periods: list[str],
    levels: Sequence[float],
    requested_org_units: Sequence[str] | None,
    prediction_id: int | None,
) -> tuple[tuple[int, ...], list[Member]]:
    """The grid (org units, periods, quantiles) of prediction entries and its members."""
    quantiles = checked_quantiles(levels)
    names = org_unit_choice(org_units, requested_org_units)
    units = org_units if names is None else names
    chosen = _selected(samples, org_units, names, axis=0)
    values = quantiles_from_sorted(chosen, quantiles).astype(np.float32)
    shape = values.shape
    identifier = [] if prediction_id is None else [np.array(prediction_id)]
    return shape, [
        string_field("orgUnit", units, (0,), (shape[0],)),
        string_field("period", periods, (1,), (shape[1],)),
        number_field("quantile", quantiles, (2,)),
        number_field("value", values, (0, 1, 2)),
        *(number_field("predictionId", value, ()) for value in identifier),
    ]
