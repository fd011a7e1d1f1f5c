"""Dataset endpoints beyond the main table, as sans-IO operations (see ``_operations``)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

from chaplab.client._models import Dataset, Job, JobRef
from chaplab.client._operations import (
    Operations,
    _checked,
    _convert,
    _decode,
    _parse,
    _require_id,
    _require_name,
    operation,
)
from chaplab.client._result_models import DataSourceKind
from chaplab.client._steps import Operation, send_with_retry

if TYPE_CHECKING:
    import pandas as pd

DATASET_TYPES = ("evaluation", "prediction")


class DatasetOperations(Operations):
    @operation
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
        Cells that look like spreadsheet formulas are refused by the service."""
        body = {"name": _require_name("name", name), "type": _dataset_type(type)}
        files = {"csvFile": ("data.csv", _csv_bytes(csv), "text/csv")}
        if geojson is not None:
            files["geojsonFile"] = (
                "org_units.geojson",
                _geojson_bytes(geojson),
                "application/geo+json",
            )
        response = yield from self._multipart("/v1/crud/datasets/csvFile", files, body)
        return _parse(Dataset, response)

    @operation
    def make_dataset(
        self,
        name: str,
        frame: pd.DataFrame,
        geojson: Mapping[str, Any] | None = None,
        type: str = "evaluation",
    ) -> Operation[Job]:
        """Build a dataset in a job (the dataset builder); the job's result is the dataset id.
        ``frame`` is a wide frame as for ``create_dataset``."""
        from chaplab.frames import frame_to_observations

        body = {
            "name": _require_name("name", name),
            "type": _dataset_type(type),
            "geojson": dict(geojson) if geojson is not None else None,
            "providedData": frame_to_observations(frame),
            "dataSources": [],
        }
        ref = yield from self._call(JobRef, "POST", "/v1/analytics/make-dataset", json=body)
        return Job(id=ref.id, type="create_dataset", name=body["name"], status="PENDING")

    @operation
    def delete_dataset(self, dataset_id: int) -> Operation[None]:
        """Delete a dataset; ``ConflictError`` while evaluations or predictions use it."""
        dataset_id = _require_id("dataset_id", dataset_id)
        yield from self._request("DELETE", f"/v1/crud/datasets/{dataset_id}")

    @operation
    def dataset_csv(self, dataset_id: int) -> Operation[str]:
        """The dataset's rows as CSV text (text cells that look like spreadsheet formulas come
        prefixed with ``'``)."""
        dataset_id = _require_id("dataset_id", dataset_id)
        response = yield from self._request("GET", f"/v1/crud/datasets/{dataset_id}/csv")
        return response.text

    @operation
    def dataset_frame(self, dataset_id: int) -> Operation[pd.DataFrame]:
        """The dataset's rows as a wide frame: ``time_period``, ``location``, one column per
        feature (missing values NaN)."""
        import pandas as pd

        dataset_id = _require_id("dataset_id", dataset_id)
        response = yield from self._request("GET", f"/v1/crud/datasets/{dataset_id}/df")
        return (yield from _convert(
            lambda records: pd.DataFrame.from_records(records), _decode(response), response
        ))

    @operation
    def list_data_sources(self) -> Operation[list[DataSourceKind]]:
        """The kinds of data the service's models read, and which templates use each."""
        return (yield from self._get(list[DataSourceKind], "/v1/analytics/data-sources"))

    def _multipart(
        self, path: str, files: Mapping[str, tuple[str, bytes, str]], data: Mapping[str, str]
    ) -> Operation[httpx.Response]:
        """POST a multipart form, with the headers and time limit of every other request."""
        base = self._builder.build("POST", path)
        headers = {
            k: v
            for k, v in base.headers.items()
            if k.lower() not in ("content-type", "content-length")
        }
        request = httpx.Request(
            "POST",
            base.url,
            headers=headers,
            files=dict(files),
            data=dict(data),
            extensions=base.extensions,
        )
        return _checked((yield from send_with_retry(request, self._retry)))


def _dataset_type(value: str) -> str:
    if value not in DATASET_TYPES:
        raise ValueError(f"type must be 'evaluation' or 'prediction', got {value!r}")
    return value


def _csv_bytes(csv: Any) -> bytes:
    if isinstance(csv, bytes):
        return csv
    if isinstance(csv, str):
        if "\n" not in csv:
            raise ValueError(
                f"csv is one line ({csv[:60]!r}): pass CSV text with a header and rows, or "
                "pathlib.Path(...) to upload a file"
            )
        return csv.encode("utf-8")
    if isinstance(csv, PathLike):
        return Path(csv).read_bytes()
    if hasattr(csv, "to_csv"):
        return csv.to_csv(index=False).encode("utf-8")
    raise TypeError(f"csv must be CSV text, bytes, a path or a DataFrame, got {type(csv).__name__}")


def _geojson_bytes(geojson: Any) -> bytes:
    if isinstance(geojson, bytes):
        return geojson
    if isinstance(geojson, PathLike):
        return Path(geojson).read_bytes()
    if isinstance(geojson, Mapping):
        return json.dumps(geojson).encode("utf-8")
    raise TypeError(f"geojson must be a dict, bytes or a path, got {type(geojson).__name__}")
