"""What evaluations and predictions share: a job makes each, and each holds forecast quantiles
per org unit and period, read as entry models or as a tidy frame named by place. chap-core 2.5.1
leaves the entries out of a full record, so they are then read from the entry route."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, Literal, Protocol, Self, TypeVar

from chaplab.client._capabilities import RouteCache
from chaplab.client._datasets import OrgUnitNames
from chaplab.client._jobs import Jobs
from chaplab.client._plumbing import (
    RequestBuilder,
    Resource,
    convert,
    decode,
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
        record_id: int,
        path: str,
        params: Sequence[tuple[str, Any]],
        read: Callable[[int], Operation[Any]],
    ) -> Operation[pd.DataFrame]:
        """The entries at ``path`` as a tidy frame (``split_period`` for an evaluation), with
        an ``org_unit_name`` column when the record's dataset (found with ``read``) has a
        GeoJSON."""
        from chaplab.frames import entries_to_frame

        names = yield from self._names.of_result(kind, record_id, read)
        response = yield from self._request("GET", path, params=params)
        # a frame also for an empty answer, with the split column of its kind
        to_frame = partial(entries_to_frame, with_split_period=kind == "evaluation")
        return (yield from convert(self._names.add_to(to_frame, names), response.content, response))
