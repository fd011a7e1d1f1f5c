"""Datasets: list, read with observations, create (JSON, CSV upload, or in a job), delete,
download as CSV or records, and the kinds of data the models read.

Every way of creating validates the request at once (422 naming the field). ``POST
/v1/crud/datasets`` stores the dataset before answering with it; the dataset builder ``POST
/v1/analytics/make-dataset`` answers a job reference and stores it in a job.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, File, Form, Response, UploadFile
from pydantic import AfterValidator

from chaplab.service.domain import datasets
from chaplab.service.domain.datasets import CellValue
from chaplab.service.errors import FieldProblem
from chaplab.service.routes.dependencies import (
    DB,
    LIST_ANSWER,
    ObservationsRoute,
    Paged,
    State,
    csv_answer,
    job_reference,
    json_body,
    with_total,
)
from chaplab.service.spreadsheet import csv_response
from chaplab.service.text import printable
from chaplab.service.wire.datasets import (
    DatasetCreate,
    DatasetImportSummary,
    DatasetRead,
    DatasetWithObservations,
    DataSourceKind,
    MakeDatasetRequest,
)

router = APIRouter(tags=["datasets"])


@router.get("/v1/crud/datasets", responses=LIST_ANSWER)
def list_datasets(session: DB, page: Paged, response: Response) -> list[DatasetRead]:
    """Every stored dataset with its org units and covariates (no observations), by id; a
    page of them when ``limit`` or ``offset`` is given."""
    return with_total(response, datasets.list_datasets(session, page))


@router.get("/v1/crud/datasets/{dataset_id}", response_model=DatasetWithObservations)
def get_dataset(dataset_id: int, session: DB) -> Response:
    """The dataset with every observed value and its polygons (GeoJSON FeatureCollection)."""
    return json_body(datasets.dataset_json(session, dataset_id))


@router.get("/v1/crud/datasets/{dataset_id}/geojson", response_model=dict[str, Any] | None)
def dataset_geojson(dataset_id: int, session: DB) -> Response:
    """The dataset's org-unit polygons, a GeoJSON FeatureCollection (``null`` when it has
    none), without its observations: a country's names in kilobytes instead of the dataset's
    megabytes."""
    return json_body(datasets.dataset_geojson_json(session, dataset_id))


def create_dataset(request: DatasetCreate, session: DB) -> DatasetRead:
    """Store a dataset given as observations (and optional polygons) and answer with it."""
    return datasets.create_dataset(session, request)


router.add_api_route(
    "/v1/crud/datasets", create_dataset, methods=["POST"], route_class_override=ObservationsRoute
)


@router.post("/v1/analytics/make-dataset")
def make_dataset(request: MakeDatasetRequest, session: DB, state: State) -> DatasetImportSummary:
    """Build a dataset from provided data and org-unit polygons; answers the job's reference
    and, as 2.5.1's ``ImportSummaryResponse``, how many org units it stores (none is left out:
    data the service cannot store whole is refused with a 422)."""
    job, org_units = datasets.queue_dataset(session, request)
    reference = job_reference(state, job)
    return DatasetImportSummary(id=reference.id, imported_count=org_units, rejected=[])


@router.post("/v1/crud/datasets/csvFile")
async def create_dataset_from_csv(
    session: DB,
    name: Annotated[str, Form(min_length=1, max_length=200), AfterValidator(printable)],
    csv_file: Annotated[
        UploadFile | None,
        File(alias="csvFile", description="time_period, location, one column per feature"),
    ] = None,
    geojson_file: Annotated[
        UploadFile | None,
        File(alias="geojsonFile", description="FeatureCollection of the org units"),
    ] = None,
    type: Annotated[str, Form(pattern="^(evaluation|prediction)$")] = "evaluation",
    csv_file_2_5: Annotated[
        UploadFile | None, File(alias="csv_file", description="chap-core 2.5.1's csvFile")
    ] = None,
    geojson_file_2_5: Annotated[
        UploadFile | None, File(alias="geojson_file", description="chap-core 2.5.1's geojsonFile")
    ] = None,
) -> DatasetRead:
    """Store a dataset uploaded as CSV (multipart), with optional org-unit polygons. The parts
    are ``csvFile`` and ``geojsonFile``, or chap-core 2.5.1's ``csv_file`` and
    ``geojson_file``."""
    csv_part = csv_file or csv_file_2_5
    if csv_part is None:
        raise FieldProblem("csvFile", "Field required (the CSV file part)")
    geojson_part = geojson_file or geojson_file_2_5
    geojson = None if geojson_part is None else await geojson_part.read()
    return datasets.create_dataset_from_csv(session, name, type, await csv_part.read(), geojson)


@router.delete("/v1/crud/datasets/{dataset_id}", status_code=204, response_class=Response)
def delete_dataset(dataset_id: int, session: DB) -> Response:
    """Delete a dataset no evaluation or prediction uses (409 naming the users otherwise)."""
    datasets.delete_dataset(session, dataset_id)
    return Response(status_code=204)


@router.get(
    "/v1/crud/datasets/{dataset_id}/csv",
    response_class=Response,
    responses=csv_answer("time_period, location, one column per feature"),
)
def dataset_csv(dataset_id: int, session: DB) -> Response:
    """The dataset's rows as CSV, periods as people read them (``2021-01``, ``2021-W05``);
    text cells that look like formulas are neutralised."""
    header, rows = datasets.dataset_records(session, dataset_id, readable=True)
    return csv_response(header, rows, f"dataset-{dataset_id}.csv")


@router.get("/v1/crud/datasets/{dataset_id}/df")
def dataset_frame(dataset_id: int, session: DB) -> list[dict[str, CellValue]]:
    """The dataset's rows as records ``{time_period, location, <feature>: value}`` (pandas
    ``DataFrame.from_records`` reads them as they are)."""
    header, rows = datasets.dataset_records(session, dataset_id)
    return [dict(zip(header, row, strict=True)) for row in rows]


@router.get("/v1/analytics/data-sources")
def data_sources(session: DB) -> list[DataSourceKind]:
    """The kinds of data the models read (targets and covariates) and the features of stored
    datasets, with the templates that use each."""
    return datasets.data_sources(session)
