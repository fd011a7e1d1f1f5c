"""What evaluations and predictions share: a job makes each, and each holds forecast quantiles
per org unit and period, read as entry models or as a tidy frame named by place. chap-core 2.5.1
leaves the entries out of a full record, so they are then read from the entry route."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, Literal, Protocol, Self, TypeVar

from chaplab.client._capabilities import RouteCache
from chaplab.client._datasets import OrgUnitNames
from chaplab.client._errors import ArgumentError, NotFoundError
from chaplab.client._jobs import Jobs
from chaplab.client._plumbing import (
    RequestBuilder,
    Resource,
    convert,
    decode,
    org_unit_params,
    quantile_params,
    validate,
)
from chaplab.client._steps import Operation, RetryPolicy
from chaplab.client._wire import WireModel

if TYPE_CHECKING:
    import pandas as pd


class QuantileEntry(WireModel):
    """One forecast quantile for an org unit and a period."""

    org_unit: str
    period: str
    quantile: float
    value: float


class _FullRecord(Protocol):
    """An evaluation or prediction with its entries (``forecasts``) and their ``quantiles``."""

    id: int

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """The record with the fields of ``update`` replaced."""
        ...


Full = TypeVar("Full", bound=_FullRecord)
ReadEntries = Callable[[int, Sequence[float]], Operation[Sequence[QuantileEntry]]]


class QuantileRecordResource(Resource):
    """The base of ``Evaluations`` and ``Predictions``: their jobs, the place names of their
    datasets (one ``OrgUnitNames`` per client), a full record and an entry frame."""

    def __init__(
        self, builder: RequestBuilder, retry: RetryPolicy, routes: RouteCache, names: OrgUnitNames
    ) -> None:
        super().__init__(builder, retry, routes)
        self._jobs = Jobs(builder, retry, routes)
        self._names = names

    def _full(
        self, shape: type[Full], path: str, quantiles: Sequence[float], entries: ReadEntries
    ) -> Operation[Full]:
        """The record at ``path`` with its entries at ``quantiles``; where the server leaves
        the entries out (chap-core 2.5.1) they are read with ``entries``."""
        response = yield from self._request("GET", path, params=quantile_params(quantiles))
        payload = decode(response)
        full = validate(shape, payload, response)
        if isinstance(payload, dict) and "forecasts" not in payload:
            read = yield from entries(full.id, quantiles)
            levels = sorted({entry.quantile for entry in read})
            full = full.model_copy(update={"forecasts": read, "quantiles": levels})
        return full

    def _entry_frame(
        self,
        kind: Literal["evaluation", "prediction"],
        record: RecordOnce,
        path: str,
        params: Sequence[tuple[str, Any]],
    ) -> Operation[pd.DataFrame]:
        """The entries at ``path`` as a tidy frame (``split_period`` for an evaluation), with
        an ``org_unit_name`` column when the record's dataset has a GeoJSON."""
        from chaplab.frames import entries_to_frame

        names = yield from self._names.of_record((yield from record.read()))
        response = yield from self._request("GET", path, params=params)
        # a frame also for an empty answer, with the split column of its kind
        to_frame = partial(entries_to_frame, with_split_period=kind == "evaluation")
        return (yield from convert(self._names.add_to(to_frame, names), response.content, response))

    def _org_unit_params(
        self,
        kind: Literal["evaluation", "prediction"],
        record: RecordOnce,
        org_units: Iterable[str] | str | None,
    ) -> Operation[list[tuple[str, str]]]:
        """``org_units`` (ids or place names) as ``orgUnits`` query parameters of the record's
        org unit ids. A name is sent as its id; one the record does not have is an
        ``ArgumentError`` before anything is sent (chap-core 2.5.1 answers an empty list for
        it, or ignores the filter; our service a 422). ``adm0`` passes as it is."""
        from chaplab.frames import NATIONAL

        params = org_unit_params(org_units)
        if not params:
            return params
        wanted = [unit for _, unit in params]
        found = yield from record.read()
        units = list(found.org_units) if found is not None else []
        if not units or all(unit in units or unit == NATIONAL for unit in wanted):
            return params
        from chaplab.frames import resolve_org_units

        names = (yield from self._names.of_record(found)) or {}
        labels = {unit: names.get(unit, unit) for unit in units} | {NATIONAL: NATIONAL}
        try:
            ids = resolve_org_units(wanted, labels, where=f"{kind} {record.record_id}")
        except ValueError as error:
            raise ArgumentError(str(error)) from None
        return org_unit_params(ids)


class RecordOnce:
    """An evaluation or prediction as its get operation (``read``) answers it, read at most once
    within one operation and only when asked: what a client keeps about a record is never kept
    across calls by id alone, since a server may give a deleted record's id to another."""

    def __init__(self, record_id: int, read: Callable[[int], Operation[Any]]) -> None:
        self.record_id = record_id
        self._read = read
        self._record: Any = None
        self._done = False

    def read(self) -> Operation[Any]:
        """The record, or None when the server has none."""
        if not self._done:
            try:
                self._record = yield from self._read(self.record_id)
            except NotFoundError:
                self._record = None  # the entries' own request says so
            self._done = True
        return self._record
