"""Datasets: list, read with observations, and create.

Both ways of creating validate the request at once (422 naming the field). ``POST
/v1/crud/datasets`` stores the dataset before answering with it; the dataset builder ``POST
/v1/analytics/make-dataset`` answers a job reference and stores it in a job.
"""

from __future__ import annotations

from itertools import groupby
from typing import Any

from fastapi import APIRouter
from sqlalchemy import Row, select
from sqlalchemy.orm import Session

from chaplab.service.db import DatasetFeatureRow, DatasetRow
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
LISTED_COLUMNS = (
    DatasetRow.id,
    DatasetRow.name,
    DatasetRow.type,
    DatasetRow.created,
    DatasetRow.period_type,
    DatasetRow.periods,
    DatasetRow.org_units,
    DatasetRow.data_sources,
)
"""What the list shows of a dataset, beside its feature names (never values or polygons)."""
LIST_STATEMENT = (
    select(*LISTED_COLUMNS, DatasetFeatureRow.name.label("feature"))
    .outerjoin(DatasetFeatureRow, DatasetFeatureRow.dataset_id == DatasetRow.id)
    .order_by(DatasetRow.id, DatasetFeatureRow.id)
)
"""The datasets outer-joined with their feature names: one row per feature, in order."""


def listed_datasets(session: Session) -> list[DatasetRead]:
    """Every dataset as the list shows it, read in one statement of the columns it shows.

    A dataset's feature values and polygons are never read: for 1,000 org units they are
    megabytes, which the list used to load, parse and drop on every request. One statement
    sees one snapshot, so a dataset created or deleted meanwhile is listed whole or not at
    all."""
    return [
        listed_dataset(list(rows))
        for _, rows in groupby(session.execute(LIST_STATEMENT), key=lambda row: row.id)
    ]


def listed_dataset(rows: list[Row[Any]]) -> DatasetRead:
    """One dataset from its joined rows (one per feature, or one without any feature)."""
    first = rows[0]
    return DatasetRead(
        id=first.id,
        name=first.name,
        type=first.type,
        created=first.created,
        first_period=first.periods[0],
        last_period=first.periods[-1],
        period_type=first.period_type,
        org_units=first.org_units,
        covariates=[row.feature for row in rows if row.feature is not None],
        data_sources=first.data_sources,
    )


@router.get("/v1/crud/datasets")
def list_datasets(session: DB) -> list[DatasetRead]:
    """Every stored dataset with its org units and covariates (no observations)."""
    return listed_datasets(session)


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
