"""Datasets: list, read with observations, and create.

Both ways of creating validate the request at once (422 naming the field). ``POST
/v1/crud/datasets`` stores the dataset before answering with it; the dataset builder ``POST
/v1/analytics/make-dataset`` answers a job reference and stores it in a job.
"""

from __future__ import annotations

from fastapi import APIRouter
from sqlalchemy import select
from sqlalchemy.orm import selectinload

from chaplab.service.db import DatasetRow
from chaplab.service.errors import FieldProblem
from chaplab.service.jobs import create_job
from chaplab.service.routes._deps import DB, State, get_or_404
from chaplab.service.storage import dataset_content, new_dataset_row, observations_of
from chaplab.service.views import dataset_read
from chaplab.service.wire import (
    DatasetCreate,
    DatasetRead,
    DatasetWithObservations,
    JobReference,
    MakeDatasetRequest,
)

router = APIRouter(tags=["datasets"])


@router.get("/v1/crud/datasets")
def list_datasets(session: DB) -> list[DatasetRead]:
    rows = session.scalars(
        select(DatasetRow).options(selectinload(DatasetRow.features)).order_by(DatasetRow.id)
    )
    return [dataset_read(row) for row in rows]


@router.get("/v1/crud/datasets/{dataset_id}")
def get_dataset(dataset_id: int, session: DB) -> DatasetWithObservations:
    row = get_or_404(session, DatasetRow, dataset_id, "dataset")
    return DatasetWithObservations(
        **dataset_read(row).model_dump(), observations=observations_of(row), geojson=row.geojson
    )


@router.post("/v1/crud/datasets")
def create_dataset(request: DatasetCreate, session: DB) -> DatasetRead:
    """Store a dataset given as observations (and optional polygons) and answer with it."""
    content = dataset_content(
        request.observations, request.geojson, request.data_sources, "observations"
    )
    row = new_dataset_row(request.name, request.type, content)
    session.add(row)
    session.commit()
    return dataset_read(row)


@router.post("/v1/analytics/make-dataset")
def make_dataset(request: MakeDatasetRequest, session: DB, state: State) -> JobReference:
    """Build a dataset from provided data and org-unit polygons; answers a job reference."""
    if request.data_to_be_fetched:
        raise FieldProblem(
            "dataToBeFetched",
            "this service fetches no data from outside; send every value in providedData",
        )
    content = dataset_content(
        request.provided_data, request.geojson, request.data_sources, "providedData"
    )
    job = create_job(
        session,
        "create_dataset",
        request.name,
        {"name": request.name, "type": request.type, "dataset": content.to_payload()},
    )
    session.commit()
    state.runner.wake()
    return JobReference(id=job.id)
