"""Datasets: stored observations per org unit and period, uploaded as JSON, CSV or built in a
job, read back as models, CSV or frames; and the kinds of data the service's models read."""

from __future__ import annotations

import csv as csv_module
import io
import json
from collections.abc import Callable, Mapping
from datetime import datetime
from functools import partial
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import orjson
from pydantic import Field, field_validator

from chaplab import vocabulary
from chaplab.client._capabilities import Route, RouteCache
from chaplab.client._errors import ArgumentError, ArgumentTypeError, NotFoundError
from chaplab.client._jobs import Job, JobRef, Jobs
from chaplab.client._plumbing import (
    DATASETS,
    Listing,
    RequestBuilder,
    Resource,
    convert,
    decode,
    decode_failure,
    frame_observations,
    geojson_body,
    require_id,
    require_name,
    validate,
)
from chaplab.client._steps import Operation, RetryPolicy
from chaplab.client._wire import NullableList, RecordKey, StoredRecord, WireModel
from chaplab.vocabulary import DATASET_TYPES, JobType, missing_target

if TYPE_CHECKING:
    import pandas as pd

TIME_PERIOD = "time_period"
"""The period column of a dataset's rows (CSV, frames)."""

# -- wire models -----------------------------------------------------------------------------


class DataSource(WireModel):
    """Which data element feeds a covariate."""

    covariate: str
    data_element_id: str | None = None


class Observation(WireModel):
    """One observed value of a feature, for an org unit and a period."""

    feature_name: str
    org_unit: str
    period: str
    value: float | None = None


class Dataset(StoredRecord):
    """A stored dataset; ``observations`` and ``geojson`` (the org units' polygons, a
    FeatureCollection dict also where the server sends it as JSON text, as chap-core 2.5.1
    does) are filled by ``get_dataset`` only."""

    type: str | None = None
    first_period: str | None = None
    last_period: str | None = None
    period_type: str | None = None
    org_units: NullableList[str] = Field(default_factory=list)
    covariates: NullableList[str] = Field(default_factory=list)
    data_sources: NullableList[DataSource] = Field(default_factory=list)
    observations: list[Observation] | None = None
    geojson: dict[str, Any] | None = None

    @field_validator("geojson", mode="before")
    @classmethod
    def _parsed(cls, value: Any) -> Any:
        return json.loads(value) if isinstance(value, str) and value.strip() else value

    @property
    def span(self) -> str | None:
        """``2015-01 – 2024-12``: the first and last period as people read them; None when
        the server did not say (or said something that is no period)."""
        if not self.first_period or not self.last_period:
            return None
        try:
            first, last = (
                vocabulary.readable_period(vocabulary.canonical_period(period))
                for period in (self.first_period, self.last_period)
            )
        except ValueError:
            return None
        return f"{first} – {last}"


class DataSourceKind(WireModel):
    """A kind of data the service's models read."""

    name: str
    display_name: str | None = None
    description: str | None = None
    period_types: NullableList[str] = Field(default_factory=list)
    used_by: NullableList[str] = Field(default_factory=list)
    role: str | None = None


# -- operations ------------------------------------------------------------------------------


LIST = Route("list_datasets", "GET", "/v1/crud/datasets", "list_datasets()")
CREATE = Route("create_dataset", "POST", "/v1/crud/datasets", "make_dataset(name, frame, geojson)")
CSV_UPLOAD = Route(
    "upload_dataset_csv",
    "POST",
    "/v1/crud/datasets/csvFile",
    "create_dataset(name, frame, geojson)",
)


GEOJSON = Route(
    "dataset_geojson",
    "GET",
    "/v1/crud/datasets/{datasetId}/geojson",
    "get_dataset(dataset_id).geojson",
)
"""A dataset's polygons alone (our service); other servers send them with every observation."""


class OrgUnitNames(Resource):
    """Org-unit id -> name of each dataset, read from its GeoJSON and kept per dataset (one per
    client, shared by its evaluations and predictions).

    A dataset is kept under its ``record_key``, its id and creation time: chap-core 2.5.1
    gives the id of a deleted dataset to the next one stored, whose places are others. Where
    the record asking carries its dataset's creation time (an evaluation on either server,
    a prediction on chap-core 2.5.1), nothing is asked to check it; otherwise the dataset list
    says it (one small request). chap-core 2.5.1 sends the GeoJSON only inside ``GET
    /v1/crud/datasets/{id}``, with every observation, so it is fetched once per dataset, not
    once per frame. A dataset without a GeoJSON, one the server no longer has, or one stored
    after the record asking (an evaluation left behind by its deleted dataset, whose id a later
    dataset took) has no names (``None``): its frames get no ``org_unit_name`` column. An org
    unit the GeoJSON does not name is named by its id.
    """

    def __init__(self, builder: RequestBuilder, retry: RetryPolicy, routes: RouteCache) -> None:
        super().__init__(builder, retry, routes)
        self._known: dict[RecordKey, dict[str, str] | None] = {}

    def of_dataset(
        self, dataset_id: int | None, created: datetime | None = None
    ) -> Operation[dict[str, str] | None]:
        """The names of ``dataset_id``'s org units (``None``: no names, or no dataset), of the
        dataset stored at ``created`` (read from the dataset list when not given)."""
        if dataset_id is None:
            return None
        if created is None:
            listed = yield from self._get(list[StoredRecord], DATASETS.path)
            found = next((dataset for dataset in listed if dataset.id == dataset_id), None)
            if found is None:
                return None
            created = found.created
        wanted = RecordKey(dataset_id, created)
        if created is None or wanted not in self._known:
            try:
                stored, geojson = yield from self._polygons(dataset_id, created)
            except NotFoundError:
                return None
            names = _names_of(geojson)
            if stored.created is None:
                return names  # nothing tells this dataset from a later one: not kept
            self._known[stored.record_key] = names
        return self._known.get(wanted)

    def _polygons(
        self, dataset_id: int, created: datetime | None
    ) -> Operation[tuple[StoredRecord, Any]]:
        """The dataset (its id and creation time) and its GeoJSON: from the route that answers
        the GeoJSON alone where the server has it, else from the whole dataset."""
        if (yield from self._lists(GEOJSON)):
            response = yield from self._request_route(GEOJSON, dataset_id)
            return StoredRecord(id=dataset_id, created=created), decode(response)
        response = yield from self._request("GET", f"/v1/crud/datasets/{dataset_id}")
        return _dataset_of(response)

    def of_record(self, record: Any) -> Operation[dict[str, str] | None]:
        """The names of the dataset an evaluation or prediction (``record``, as read now; None
        when the server has none) was made from."""
        if record is None or record.dataset_id is None:
            return None
        nested = getattr(record, "dataset", None)
        created = nested.created if nested is not None and nested.id == record.dataset_id else None
        if created is not None and record.created is not None and created > record.created:
            return None  # stored after the record: not the dataset it was made from
        return (yield from self.of_dataset(record.dataset_id, created))

    def add_to(
        self, to_frame: Callable[[bytes], pd.DataFrame], names: dict[str, str] | None
    ) -> Callable[[bytes], pd.DataFrame]:
        """``to_frame`` followed by the ``org_unit_name`` column, when there are ``names``."""
        if names is None:
            return to_frame
        return partial(_named_frame, to_frame, names)


def _dataset_of(response: httpx.Response) -> tuple[StoredRecord, Any]:
    """The dataset an answer of ``GET /v1/crud/datasets/{id}`` describes and its ``geojson``
    (parsed where it is JSON text, as chap-core 2.5.1 sends it), read without a model per
    observation: a country's 651,000 observations took seconds to validate only to be
    dropped."""
    try:
        body = orjson.loads(response.content)
    except orjson.JSONDecodeError as exc:
        raise decode_failure(response, f"a dataset that is not valid JSON ({exc})") from exc
    if not isinstance(body, dict):
        raise decode_failure(response, f"no dataset: {str(body)[:80]!r}")
    stored = validate(StoredRecord, {key: body.get(key) for key in ("id", "created")}, response)
    geojson = body.get("geojson")
    if isinstance(geojson, str) and geojson.strip():
        try:
            geojson = orjson.loads(geojson)
        except orjson.JSONDecodeError as exc:
            raise decode_failure(response, f"a GeoJSON that is not valid JSON ({exc})") from exc
    return stored, geojson


def _names_of(geojson: Any) -> dict[str, str] | None:
    from chaplab.frames import org_unit_names

    if not geojson or not isinstance(geojson, dict):
        return None
    try:
        return org_unit_names(geojson) or None
    except ValueError:
        return None  # a GeoJSON the frames cannot read names from: ids it is


def _named_frame(
    to_frame: Callable[[bytes], pd.DataFrame], names: dict[str, str], content: bytes
) -> pd.DataFrame:
    from chaplab.frames import with_org_unit_names

    return with_org_unit_names(to_frame(content), names)


class Datasets(Resource):
    """``/v1/crud/datasets`` and the dataset builder and data-source list of
    ``/v1/analytics``."""

    def __init__(self, builder: RequestBuilder, retry: RetryPolicy, routes: RouteCache) -> None:
        super().__init__(builder, retry, routes)
        self._jobs = Jobs(builder, retry, routes)

    def list_datasets(
        self, limit: int | None = None, offset: int = 0
    ) -> Operation[Listing[Dataset]]:
        """The stored datasets, by id: all of them, or ``limit`` from ``offset`` (a negative
        offset counts from the end: ``offset=-20`` the newest 20). ``.total`` says how many
        there are. A server that pages its lists sends only the page."""
        return (yield from self._listing(list[Dataset], LIST, limit, offset))

    def get_dataset(self, dataset_id: int | str) -> Operation[Dataset]:
        """One dataset, with its ``observations``; ``dataset_id`` is its id or its name."""
        dataset_id = yield from self._id_of("dataset_id", dataset_id, DATASETS)
        return (yield from self._get(Dataset, f"/v1/crud/datasets/{dataset_id}"))

    def create_dataset(
        self,
        name: str,
        frame: pd.DataFrame,
        geojson: Mapping[str, Any] | None = None,
        type: str = "evaluation",
    ) -> Operation[Dataset]:
        """Store a dataset from a wide frame of observations.

        ``frame`` has columns ``time_period``, ``location`` and one column per feature
        (see ``chaplab.frames.frame_to_observations``); ``type`` is ``"evaluation"`` or
        ``"prediction"``; an evaluation dataset needs the target, ``disease_cases`` (refused
        before anything is sent otherwise). Returns the stored dataset.

        Sent to ``POST /v1/crud/datasets``; where that route answers a job instead of the
        dataset (chap-core 2.5.1, whose route there keeps only some features), the dataset is
        built with ``make_dataset``, which keeps every feature, and the client waits for its
        job. chap-core 2.5.1 matches polygons by each feature's top-level ``id`` and stores
        every dataset as ``"evaluation"`` whatever ``type`` says.
        """
        body = _dataset_body(name, frame, geojson, type)
        routes = yield from self._server_routes()
        if routes.answer_fields(CREATE) and "name" not in routes.answer_fields(CREATE):
            job = yield from self.make_dataset(name, frame, geojson, type)
            return (yield from self._stored_dataset_of_job(job.id))
        body["observations"] = body.pop("providedData")
        response = yield from self._request("POST", CREATE.path, json=body)
        return (yield from self._stored_dataset(response))

    def upload_dataset_csv(
        self,
        name: str,
        csv: str | bytes | PathLike[str] | pd.DataFrame,
        geojson: Mapping[str, Any] | bytes | PathLike[str] | None = None,
        type: str = "evaluation",
    ) -> Operation[Dataset]:
        """Store a dataset uploaded as a CSV file (columns ``time_period``, ``location`` and one
        per feature), with optional org-unit polygons. ``csv`` is CSV text (``str``), bytes, a
        file path or a wide frame; ``geojson`` a FeatureCollection dict, bytes or a file path.
        An evaluation dataset needs the target column, ``disease_cases``: a CSV without it is
        refused before anything is sent. Cells that look like spreadsheet formulas are refused
        by the service. chap-core 2.5.1 needs ``geojson`` and ignores ``name`` and ``type``
        (its datasets uploaded this way are named ``csv_file``)."""
        fields = {"name": require_name("name", name), "type": _dataset_type(type)}
        content = _csv_bytes(csv)
        _require_target("csv", _csv_columns(content), fields["type"])
        csv_file = ("data.csv", content, "text/csv")
        geojson_file = (
            None
            if geojson is None
            else ("org_units.geojson", _geojson_bytes(geojson), "application/geo+json")
        )
        routes = yield from self._server_routes()
        snake_parts = "csv_file" in routes.body_fields(CSV_UPLOAD)
        csv_part, geojson_part = (
            ("csv_file", "geojson_file") if snake_parts else ("csvFile", "geojsonFile")
        )
        files = {csv_part: csv_file}
        if geojson_file is not None:
            files[geojson_part] = geojson_file
        response = yield from self._request_route(CSV_UPLOAD, files=files, data=fields)
        return (yield from self._stored_dataset(response))

    def make_dataset(
        self,
        name: str,
        frame: pd.DataFrame,
        geojson: Mapping[str, Any] | None = None,
        type: str = "evaluation",
    ) -> Operation[Job]:
        """Build a dataset in a job (the dataset builder); the job's result is the dataset id.
        ``frame`` is a wide frame as for ``create_dataset``. chap-core 2.5.1 stores
        it as ``"evaluation"`` whatever ``type`` says."""
        body = {**_dataset_body(name, frame, geojson, type), "dataToBeFetched": []}
        ref = yield from self._call(JobRef, "POST", "/v1/analytics/make-dataset", json=body)
        return ref.pending_job(JobType.CREATE_DATASET, body["name"])

    def _stored_dataset(self, response: httpx.Response) -> Operation[Dataset]:
        """The dataset an upload stored: the answer itself, or the dataset its id names, or the
        dataset the job it started stores (waited for)."""
        payload = decode(response)
        if not isinstance(payload, dict):
            raise decode_failure(response, f"no dataset and no job reference: {payload!r}")
        dataset_id = payload.get("id")
        if isinstance(dataset_id, str):
            return (yield from self._stored_dataset_of_job(dataset_id))
        if "name" in payload:
            return validate(Dataset, payload, response)
        return (yield from self._listed_dataset(require_id("id", dataset_id)))

    def _stored_dataset_of_job(self, job_id: str) -> Operation[Dataset]:
        """The dataset a dataset job stores, once the job has succeeded."""
        job = yield from self._jobs.wait_for_job(job_id)
        dataset_id = yield from self._jobs.job_created_id(job)
        return (yield from self._listed_dataset(dataset_id))

    def _listed_dataset(self, dataset_id: int) -> Operation[Dataset]:
        """The dataset as the dataset list shows it (no observations)."""
        datasets = yield from self.list_datasets()
        for dataset in datasets:
            if dataset.id == dataset_id:
                return dataset
        return (yield from self.get_dataset(dataset_id))

    def dataset_csv(self, dataset_id: int | str) -> Operation[str]:
        """The dataset's (by id or name) rows as CSV text, periods as people read them
        (``2021-01``, ``2021-W05``, whichever spelling the server wrote: chap-core 2.5.1 writes
        a week as its dates); text cells that look like spreadsheet formulas come prefixed
        with ``'``. ``upload_dataset_csv`` takes it back as it is."""
        dataset_id = yield from self._id_of("dataset_id", dataset_id, DATASETS)
        response = yield from self._request("GET", f"/v1/crud/datasets/{dataset_id}/csv")
        return _with_readable_periods(response.text)

    def dataset_frame(self, dataset_id: int | str) -> Operation[pd.DataFrame]:
        """The dataset's (by id or name) rows as a wide frame: ``time_period`` (periods, as
        in every frame of ``chaplab.frames``: weeks print as ``2021-W05``), ``location``, then
        one float64 column per feature (missing values NaN), in the order the server gives
        them. chap-core 2.5.1 adds ``parent``, each org unit's parent in the GeoJSON (text,
        ``"-"`` for none); it is a label, so the frame can be sent back as it is
        (``run_prediction``, ``create_dataset``, ``chaplab.backtest``) on either server."""
        dataset_id = yield from self._id_of("dataset_id", dataset_id, DATASETS)
        response = yield from self._request("GET", f"/v1/crud/datasets/{dataset_id}/df")
        return (yield from convert(_observation_frame, decode(response), response))

    def list_data_sources(self) -> Operation[list[DataSourceKind]]:
        """The kinds of data the service's models read, and which templates use each."""
        return (yield from self._get(list[DataSourceKind], "/v1/analytics/data-sources"))


def _dataset_body(
    name: str, frame: pd.DataFrame, geojson: Mapping[str, Any] | None, type: str
) -> dict[str, Any]:
    dataset_type = _dataset_type(type)
    if hasattr(frame, "columns"):  # frame_observations says what else a frame needs
        _require_target("frame", [str(column) for column in frame.columns], dataset_type)
    return {
        "name": require_name("name", name),
        "type": dataset_type,
        "geojson": geojson_body(geojson),
        "providedData": frame_observations(frame),
        "dataSources": [],
    }


def _observation_frame(records: Any) -> pd.DataFrame:
    """Dataset rows (``[{time_period, location, <column>: value}]``) as a wide frame with the
    time (as periods) and location first and every column of numbers (or of nulls only: a
    feature never observed) as float64; text columns, such as chap-core's ``parent``, stay
    text."""
    import pandas as pd

    from chaplab.frames import parse_periods

    frame = pd.DataFrame.from_records(records)
    first = [name for name in (TIME_PERIOD, "location") if name in frame.columns]
    frame = frame[first + [name for name in frame.columns if name not in first]]
    if TIME_PERIOD in frame.columns:
        frame[TIME_PERIOD] = parse_periods(frame[TIME_PERIOD]).array
    for name in frame.columns[len(first) :]:
        column = frame[name]
        if column.isna().all() or pd.api.types.is_numeric_dtype(column):
            frame[name] = column.astype("float64")
    return frame


def _with_readable_periods(text: str) -> str:
    """Dataset CSV text with each ``time_period`` cell as people read it (``2021-W05``), the
    rest as it came; a cell that is no period stays as it is."""
    rows = list(csv_module.reader(io.StringIO(text, newline="")))
    if not rows or TIME_PERIOD not in rows[0]:
        return text
    column = rows[0].index(TIME_PERIOD)
    readable: dict[str, str] = {}
    for row in rows[1:]:
        if len(row) > column:
            cell = row[column]
            if cell not in readable:
                try:
                    readable[cell] = vocabulary.readable_period(vocabulary.canonical_period(cell))
                except ValueError:
                    readable[cell] = cell
            row[column] = readable[cell]
    line_end = "\r\n" if "\r\n" in text else "\n"
    buffer = io.StringIO()
    csv_module.writer(buffer, lineterminator=line_end).writerows(rows)
    return buffer.getvalue()


def _dataset_type(value: str) -> str:
    if value not in DATASET_TYPES:
        raise ArgumentError(f"type must be 'evaluation' or 'prediction', got {value!r}")
    return value


def _require_target(argument: str, columns: list[str], dataset_type: str) -> None:
    """Refuse an evaluation dataset without the target column, naming the columns found."""
    problem = missing_target(columns, dataset_type)
    if problem is not None:
        raise ArgumentError(f"{argument} {problem}")


def _csv_columns(content: bytes) -> list[str]:
    """The header of CSV bytes (empty when there is none, which the service then refuses)."""
    first_line = content.split(b"\n", 1)[0].decode("utf-8-sig", errors="replace")
    header = next(csv_module.reader(io.StringIO(first_line)), [])
    return [name.strip() for name in header]


def _csv_bytes(csv: Any) -> bytes:
    if isinstance(csv, bytes):
        return csv
    if isinstance(csv, str):
        if "\n" not in csv:
            raise ArgumentError(
                f"csv is one line ({csv[:60]!r}): pass CSV text with a header and rows, or "
                "pathlib.Path(...) to upload a file"
            )
        return csv.encode("utf-8")
    if isinstance(csv, PathLike):
        return Path(csv).read_bytes()
    if hasattr(csv, "to_csv"):
        return csv.to_csv(index=False).encode("utf-8")  # type: ignore[no-any-return]
    raise ArgumentTypeError(
        f"csv must be CSV text, bytes, a path or a DataFrame, got {type(csv).__name__}"
    )


def _geojson_bytes(geojson: Any) -> bytes:
    if isinstance(geojson, bytes):
        return geojson
    if isinstance(geojson, PathLike):
        return Path(geojson).read_bytes()
    if isinstance(geojson, Mapping):
        return json.dumps(geojson).encode("utf-8")
    raise ArgumentTypeError(
        f"geojson must be a dict, bytes or a path, got {type(geojson).__name__}"
    )
