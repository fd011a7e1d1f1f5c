"""Datasets as files and frames: CSV upload (with optional GeoJSON), CSV and record downloads,
deletion, and the kinds of data the service's models read."""

from __future__ import annotations

import json
from typing import Annotated

import numpy as np
from fastapi import APIRouter, File, Form, Response, UploadFile
from pydantic import AfterValidator
from sqlalchemy import select

from chaplab.service.db import (
    DatasetFeatureRow,
    DatasetRow,
    EvaluationRow,
    ModelTemplateRow,
    PredictionRow,
)
from chaplab.service.errors import FieldProblem
from chaplab.service.routes._deps import DB, get_or_404
from chaplab.service.spreadsheet import LOCATION, TIME_PERIOD, csv_response, parse_dataset_csv
from chaplab.service.storage import (
    DatasetContent,
    check_geojson,
    dataset_content,
    new_dataset_row,
    panel_of,
)
from chaplab.service.text import printable
from chaplab.service.views import dataset_read, display_name, spec_of
from chaplab.service.wire import DatasetRead
from chaplab.service.wire_registry import DataSourceKind
from chaplab.toolkit import ProblemError

router = APIRouter(tags=["datasets"])
CellValue = str | float | None
KNOWN_FEATURES = {
    "disease_cases": "Reported cases of the disease per org unit and period (the forecast target).",
    "rainfall": "Total rainfall in the period, in millimetres.",
    "mean_temperature": "Mean air temperature in the period, in degrees Celsius.",
    "population": "Number of people living in the org unit.",
}


@router.post("/v1/crud/datasets/csvFile")
async def create_dataset_from_csv(
    session: DB,
    name: Annotated[str, Form(min_length=1, max_length=200), AfterValidator(printable)],
    csv_file: Annotated[
        UploadFile,
        File(alias="csvFile", description="time_period, location, one column per feature"),
    ],
    geojson_file: Annotated[
        UploadFile | None,
        File(alias="geojsonFile", description="FeatureCollection of the org units"),
    ] = None,
    type: Annotated[str, Form(pattern="^(evaluation|prediction)$")] = "evaluation",
) -> DatasetRead:
    """Store a dataset uploaded as CSV (multipart), with optional org-unit polygons."""
    parsed = parse_dataset_csv(await csv_file.read(), "csvFile")
    geojson = None
    if geojson_file is not None:
        try:
            geojson = json.loads(await geojson_file.read())
        except (UnicodeDecodeError, ValueError) as error:
            raise FieldProblem("geojsonFile", f"is not valid JSON ({error})") from None
        except RecursionError:
            raise FieldProblem("geojsonFile", "is nested too deeply to be GeoJSON") from None
    content = dataset_content(parsed.observations, None, [], "csvFile")
    if geojson is not None:
        check_geojson(geojson, content.panel.org_units, "geojsonFile")
        content = DatasetContent(content.panel, geojson, [])
    row = new_dataset_row(name, type, content)
    session.add(row)
    session.commit()
    return dataset_read(row)


@router.delete("/v1/crud/datasets/{dataset_id}", status_code=204, response_class=Response)
def delete_dataset(dataset_id: int, session: DB) -> Response:
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
        raise ProblemError(
            409,
            detail=f"dataset {dataset_id} is used by {', '.join(users[:10])}; delete those first",
            extensions={"backtestIds": evaluations, "predictionIds": predictions},
        )
    session.delete(row)
    session.commit()
    return Response(status_code=204)


def dataset_records(row: DatasetRow) -> tuple[list[str], list[list[CellValue]]]:
    """Header and rows (one per org unit and period) of a stored dataset; NaN as None."""
    panel = panel_of(row)
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
            rows.append([period, unit, *values])
    return [TIME_PERIOD, LOCATION, *names], rows


@router.get(
    "/v1/crud/datasets/{dataset_id}/csv",
    response_class=Response,
    responses={
        200: {
            "content": {"text/csv": {"schema": {"type": "string"}}},
            "description": "time_period, location, one column per feature",
        }
    },
)
def dataset_csv(dataset_id: int, session: DB) -> Response:
    """The dataset's rows as CSV; text cells that look like formulas are neutralised."""
    header, rows = dataset_records(get_or_404(session, DatasetRow, dataset_id, "dataset"))
    return csv_response(header, rows, f"dataset-{dataset_id}.csv")


@router.get("/v1/crud/datasets/{dataset_id}/df")
def dataset_frame(dataset_id: int, session: DB) -> list[dict[str, CellValue]]:
    """The dataset's rows as records ``{time_period, location, <feature>: value}`` (pandas
    ``DataFrame.from_records`` reads them as they are)."""
    header, rows = dataset_records(get_or_404(session, DatasetRow, dataset_id, "dataset"))
    return [dict(zip(header, row, strict=True)) for row in rows]


@router.get("/v1/analytics/data-sources")
def data_sources(session: DB) -> list[DataSourceKind]:
    """The kinds of data the models read (targets and covariates) and the features of stored
    datasets, with the templates that use each."""
    used_by: dict[str, list[str]] = {}
    roles: dict[str, str] = {}
    period_types: dict[str, set[str]] = {}
    for template in session.scalars(select(ModelTemplateRow).order_by(ModelTemplateRow.id)):
        spec = spec_of(template)
        for name, role in [
            (spec.target, "target"),
            *((c, "covariate") for c in spec.required_covariates),
        ]:
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
            description=KNOWN_FEATURES.get(name, f"the feature {name!r} as stored in datasets"),
            period_types=sorted(period_types[name]),
            used_by=templates,
            role=roles[name],
        )
        for name, templates in sorted(used_by.items())
    ]
