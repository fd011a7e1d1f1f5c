"""Datasets: the list, one dataset with its observations, storing one (from JSON, from CSV, or in
a job), deleting one nobody uses, its rows as CSV or records, and the kinds of data the models
read."""

from __future__ import annotations

import json
from itertools import groupby
from typing import Any, Literal

import numpy as np
import orjson
from sqlalchemy import Row, select
from sqlalchemy.orm import Session

from chaplab.service.domain.lookup import get_or_404
from chaplab.service.domain.paging import Listed, Page, count
from chaplab.service.errors import Conflict, FieldProblem
from chaplab.service.job_types import queue_dataset_job
from chaplab.service.registered_templates import template_spec
from chaplab.service.spreadsheet import LOCATION, TIME_PERIOD, parse_dataset_csv
from chaplab.service.storage import (
    DatasetContent,
    add_dataset_row,
    check_geojson,
    dataset_content,
    observations_of,
    panel_of,
)
from chaplab.service.tables import (
    DatasetFeatureRow,
    DatasetRow,
    EvaluationRow,
    JobLogRow,
    JobRow,
    ModelTemplateRow,
    PredictionRow,
    finished_line,
    utc_now,
)
from chaplab.service.text import display_name, feature_description
from chaplab.service.validation import check_nothing_to_fetch
from chaplab.service.wire.common import from_row
from chaplab.service.wire.datasets import (
    DatasetCreate,
    DatasetRead,
    DataSourceKind,
    MakeDatasetRequest,
)
from chaplab.vocabulary import SUCCESS, missing_target, readable_period

CellValue = str | float | None
LISTED_COLUMNS = (
    DatasetRow.id,
    DatasetRow.name,
    DatasetRow.type,
    DatasetRow.created,
    DatasetRow.period_type,
    DatasetRow.periods,
    DatasetRow.org_units,
    DatasetRow.data_sources,
    DatasetRow.created_manually,
)
"""What the list shows of a dataset, beside its feature names (never values or polygons)."""
LIST_STATEMENT = (
    select(*LISTED_COLUMNS, DatasetFeatureRow.name.label("feature"))
    .outerjoin(DatasetFeatureRow, DatasetFeatureRow.dataset_id == DatasetRow.id)
    .order_by(DatasetRow.id, DatasetFeatureRow.id)
)
"""The datasets outer-joined with their feature names: one row per feature, in order."""


def dataset_read(row: DatasetRow) -> DatasetRead:
    return _dataset_read(row, [feature.name for feature in row.features])


def _dataset_read(row: DatasetRow | Row[Any], covariates: list[str]) -> DatasetRead:
    """The list item of a dataset row, or of the first joined row of :data:`LIST_STATEMENT`."""
    return from_row(
        DatasetRead,
        row,
        first_period=row.periods[0],
        last_period=row.periods[-1],
        covariates=covariates,
    )


def list_datasets(session: Session, page: Page) -> Listed[DatasetRead]:
    """The datasets of ``page`` as the list shows them, read in one statement of the columns
    it shows, and how many datasets there are.

    A dataset's feature values and polygons are never read: for 1,000 org units they are
    megabytes, which a list shows nothing of. One statement
    sees one snapshot, so a dataset created or deleted meanwhile is listed whole or not at
    all."""
    ids = select(DatasetRow.id).order_by(DatasetRow.id)
    statement = LIST_STATEMENT
    if not page.whole:
        statement = statement.where(DatasetRow.id.in_(page.window(ids).scalar_subquery()))
    items = [
        listed_dataset(list(rows))
        for _, rows in groupby(session.execute(statement), key=lambda row: row.id)
    ]
    return Listed(items, len(items) if page.whole else count(session, ids))


def listed_dataset(rows: list[Row[Any]]) -> DatasetRead:
    """One dataset from its joined rows (one per feature, or one without any feature)."""
    return _dataset_read(rows[0], [row.feature for row in rows if row.feature is not None])


def dataset_json(session: Session, dataset_id: int) -> bytes:
    """The dataset with every observed value and its polygons, as ``DatasetWithObservations``
    JSON bytes: the observations are written by orjson from the stored arrays, never validated
    as models (for a country's 651,000 observations that took half a minute)."""
    row = get_or_404(session, DatasetRow, dataset_id, "dataset")
    head = dataset_read(row).model_dump(mode="json", by_alias=True)
    geojson = None if row.geojson is None else orjson.dumps(row.geojson).decode()
    return orjson.dumps({**head, "observations": observations_of(row), "geojson": geojson})


def dataset_geojson_json(session: Session, dataset_id: int) -> bytes:
    """The dataset's polygons (a GeoJSON FeatureCollection, ``null`` when it has none) as JSON
    bytes, without reading its observations: what names and maps need of a country."""
    return orjson.dumps(get_or_404(session, DatasetRow, dataset_id, "dataset").geojson)


def store_dataset(
    session: Session, name: str, dataset_type: str, content: DatasetContent
) -> DatasetRead:
    """Store validated content as a dataset and commit."""
    row = add_dataset_row(session, name, dataset_type, content, created_manually=True)
    session.commit()
    return dataset_read(row)


def create_dataset(session: Session, request: DatasetCreate) -> DatasetRead:
    """Store a dataset given as observations (and optional polygons)."""
    content = dataset_content(
        request.observations, request.geojson, request.data_sources, "observations"
    )
    check_target(content, request.type, "observations")
    return store_dataset(session, request.name, request.type, content)


def create_dataset_from_csv(
    session: Session, name: str, dataset_type: str, csv_file: bytes, geojson_file: bytes | None
) -> DatasetRead:
    """Store a dataset uploaded as CSV (``csvFile``), with optional polygons (``geojsonFile``)."""
    parsed = parse_dataset_csv(csv_file, "csvFile")
    geojson = None
    if geojson_file is not None:
        try:
            geojson = json.loads(geojson_file)
        except (UnicodeDecodeError, ValueError) as error:
            raise FieldProblem("geojsonFile", f"is not valid JSON ({error})") from None
        except RecursionError:
            raise FieldProblem("geojsonFile", "is nested too deeply to be GeoJSON") from None
    content = dataset_content(parsed.observations, None, [], "csvFile")
    check_target(content, dataset_type, "csvFile")
    if geojson is not None:
        check_geojson(geojson, content.panel.org_units, "geojsonFile")
        content = DatasetContent(content.panel, geojson, [])
    return store_dataset(session, name, dataset_type, content)


def check_target(content: DatasetContent, dataset_type: str, field: str) -> None:
    """Refuse (422 naming ``field``) an evaluation dataset without the target column, at
    upload rather than at its first evaluation (chaplab.vocabulary.missing_target)."""
    problem = missing_target([TIME_PERIOD, LOCATION, *content.panel.features], dataset_type)
    if problem is not None:
        raise FieldProblem(field, problem)


AT_ONCE_VALUES = 20_000
"""A make-dataset request of at most this many values (features x org units x periods) is
stored while the request is answered: its job is committed SUCCESS with the dataset, in the
request's one commit, so a small upload needs no worker and no second commit. A larger one is
stored by a worker, at its lower CPU priority, so a big upload never holds the API."""


def queue_dataset(session: Session, request: MakeDatasetRequest) -> tuple[JobRow, int]:
    """Validate a dataset from provided data and polygons, then commit a job that stores it
    (a small one stored at once, see :data:`AT_ONCE_VALUES`); the job and how many org units
    it stores (all of them: data the service cannot store whole is refused)."""
    check_nothing_to_fetch(request.data_to_be_fetched)
    content = dataset_content(
        request.provided_data, request.geojson, request.data_sources, "providedData"
    )
    check_target(content, request.type, "providedData")
    job = queue_dataset_job(session, request.name, request.type, content.to_payload())
    if content.value_count() <= AT_ONCE_VALUES:
        _store_at_once(session, job, request.type, content)
    session.commit()
    return job, content.panel.n_org_units


def _store_at_once(
    session: Session, job: JobRow, dataset_type: str, content: DatasetContent
) -> None:
    """Store the job's dataset in ``session`` and end the job SUCCESS with its id, as its
    worker would have, with the same log line."""
    row = add_dataset_row(session, job.name, dataset_type, content, created_manually=True)
    now = utc_now()
    job.logs.append(JobLogRow(line=f"storing {content.size()} while answering the request"))
    job.logs.append(JobLogRow(line=finished_line(row.id)))
    job.status, job.start_time, job.end_time, job.result = SUCCESS, now, now, str(row.id)


def delete_dataset(session: Session, dataset_id: int) -> None:
    """Delete a dataset no evaluation or prediction uses (409 naming the users otherwise)."""
    row = get_or_404(session, DatasetRow, dataset_id, "dataset")
    evaluations = list(
        session.scalars(select(EvaluationRow.id).where(EvaluationRow.dataset_id == dataset_id))
    )
    predictions = list(
        session.scalars(select(PredictionRow.id).where(PredictionRow.dataset_id == dataset_id))
    )
    if evaluations or predictions:
        users = [f"evaluation {i}" for i in evaluations] + [f"prediction {i}" for i in predictions]
        named = ", ".join(users[:10]) + (f" and {len(users) - 10} more" if len(users) > 10 else "")
        raise Conflict(
            f"dataset {dataset_id} is used by {named}; delete those first",
            extensions={"backtestIds": evaluations, "predictionIds": predictions},
        )
    session.delete(row)
    session.commit()


def dataset_records(
    session: Session, dataset_id: int, *, readable: bool = False
) -> tuple[list[str], list[list[CellValue]]]:
    """Header and rows (one per org unit and period) of a stored dataset; NaN as None. Periods
    are canonical (``202101``, ``2021W05``) or, ``readable``, as people read them (``2021-01``,
    ``2021-W05``: the CSV export)."""
    panel = panel_of(get_or_404(session, DatasetRow, dataset_id, "dataset"))
    names = list(panel.features)
    stacked = np.stack([panel.features[name] for name in names], axis=-1) if names else None
    rows: list[list[CellValue]] = []
    for u, unit in enumerate(panel.org_units):
        for p, period in enumerate(panel.periods):
            values = (
                []
                if stacked is None
                else [None if np.isnan(v) else float(v) for v in stacked[u, p].tolist()]
            )
            rows.append([readable_period(period) if readable else period, unit, *values])
    return [TIME_PERIOD, LOCATION, *names], rows


def data_sources(session: Session) -> list[DataSourceKind]:
    """The kinds of data the models read (targets and covariates) and the features of stored
    datasets, with the templates that use each."""
    used_by: dict[str, list[str]] = {}
    roles: dict[str, Literal["target", "covariate"]] = {}
    period_types: dict[str, set[str]] = {}
    for template in session.scalars(select(ModelTemplateRow).order_by(ModelTemplateRow.id)):
        spec = template_spec(template)
        uses: list[tuple[str, Literal["target", "covariate"]]] = [
            (spec.target, "target"),
            *((c, "covariate") for c in spec.required_covariates),
        ]
        for name, role in uses:
            used_by.setdefault(name, []).append(spec.name)
            roles.setdefault(name, role)
            period_types.setdefault(name, set()).add(spec.supported_period_type)
    for name in session.scalars(
        select(DatasetFeatureRow.name).distinct().order_by(DatasetFeatureRow.name)
    ):
        used_by.setdefault(name, [])
        roles.setdefault(name, "covariate")
        period_types.setdefault(name, {"any"})
    return [
        DataSourceKind(
            name=name,
            display_name=display_name(name),
            description=feature_description(name),
            period_types=sorted(period_types[name]),
            used_by=templates,
            role=roles[name],
            supported_features=[name],
            dataset="provided",
        )
        for name, templates in sorted(used_by.items())
    ]
