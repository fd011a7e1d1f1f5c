"""Evaluations beyond the main table: a row without forecasts, deleting several, renaming, the
full payload, an evaluation on inline data (with a dry run), overlaps, comparable evaluations,
and all metrics as CSV."""

from __future__ import annotations

from typing import Annotated, Any

import numpy as np
from fastapi import APIRouter, Query, Response
from sqlalchemy import select

from chaplab.service.db import DatasetRow, EvaluationRow
from chaplab.service.errors import FieldProblem, NotFound
from chaplab.service.forecasting import ModelTemplateSpec, Panel
from chaplab.service.result_views import DEFAULT_QUANTILES, ROW_ONLY_SAMPLES, backtest_full_json
from chaplab.service.routes._deps import (
    DB,
    MAX_ROW_ID,
    OptionalQuantileLevels,
    State,
    get_or_404,
)
from chaplab.service.routes.backtests import configured_model_by_name, queue_evaluation
from chaplab.service.spreadsheet import csv_response
from chaplab.service.storage import (
    DatasetContent,
    check_geojson,
    new_dataset_row,
    panel_from_observations,
)
from chaplab.service.validation import check_backtest_history, check_model_fits
from chaplab.service.views import backtest_read, spec_of
from chaplab.service.wire import BacktestRead
from chaplab.service.wire_results import (
    BacktestFull,
    BacktestOverlap,
    BacktestRowCreate,
    BacktestUpdate,
    CreateBacktestWithDataRequest,
    DataImportReport,
    DeletedIds,
    RejectedOrgUnit,
)

router = APIRouter(tags=["backtests"])


@router.post("/v1/crud/backtests")
def create_backtest_row(request: BacktestRowCreate, session: DB) -> BacktestRead:
    """Store an evaluation row without running it: no splits, no forecasts, no metrics."""
    model = configured_model_by_name(session, request.model_id)
    dataset = get_or_404(session, DatasetRow, request.dataset_id, "dataset", "datasetId")
    row = EvaluationRow(
        name=request.name,
        dataset_id=dataset.id,
        configured_model_id=model.id,
        org_units=list(dataset.org_units),
        split_periods=[],
        periods=[],
        n_periods=request.n_periods,
        n_splits=0,
        stride=1,
        n_samples=ROW_ONLY_SAMPLES,
        aggregate_metrics={},
        samples=b"",
    )
    session.add(row)
    session.commit()
    return backtest_read(row)


@router.delete("/v1/crud/backtests")
def delete_backtests(
    session: DB, ids: Annotated[str, Query(description="comma-separated evaluation ids, e.g. 1,2")]
) -> DeletedIds:
    """Delete several evaluations at once; when any id is unknown nothing is deleted (404)."""
    wanted = parse_id_list(ids, "ids")
    storable = [identifier for identifier in wanted if identifier <= MAX_ROW_ID]
    rows = {
        row.id: row
        for row in session.scalars(select(EvaluationRow).where(EvaluationRow.id.in_(storable)))
    }
    missing = [identifier for identifier in wanted if identifier not in rows]
    if missing:
        raise NotFound("backtest", missing[0] if len(missing) == 1 else missing, "ids")
    for row in rows.values():
        session.delete(row)
    session.commit()
    return DeletedIds(deleted_ids=wanted)


@router.patch("/v1/crud/backtests/{backtest_id}")
def update_backtest(backtest_id: int, request: BacktestUpdate, session: DB) -> BacktestRead:
    """Rename an evaluation (``name`` is its one editable field)."""
    row = get_or_404(session, EvaluationRow, backtest_id, "backtest")
    row.name = request.name
    session.commit()
    return backtest_read(row)


@router.get("/v1/crud/backtests/{backtest_id}/full", response_model=BacktestFull)
def get_backtest_full(
    backtest_id: int,
    session: DB,
    quantiles: OptionalQuantileLevels = None,
) -> Response:
    """The evaluation with its configuration, configured model, dataset and predicted entries."""
    row = get_or_404(session, EvaluationRow, backtest_id, "backtest")
    return Response(
        backtest_full_json(row, quantiles or DEFAULT_QUANTILES), media_type="application/json"
    )


@router.post("/v1/analytics/create-backtest-with-data/")
def create_backtest_with_data(
    request: CreateBacktestWithDataRequest,
    session: DB,
    state: State,
    dry_run: Annotated[bool, Query(alias="dryRun", description="validate and report only")] = False,
) -> DataImportReport:
    """Evaluate a configured model (by NAME) on data sent inline. Org units the model cannot use
    (no polygon, no observed cases, missing covariate values) are left out and reported; with
    ``dryRun`` nothing is stored."""
    model = configured_model_by_name(session, request.model_id)
    template = spec_of(model.template)
    panel = panel_from_observations(request.provided_data, "providedData")
    rejected = rejected_org_units(template, panel, request.geojson)
    imported = [unit for unit in panel.org_units if unit not in rejected]
    report = DataImportReport(
        dry_run=dry_run,
        imported_org_units=imported,
        periods=panel.periods,
        rejected=[
            RejectedOrgUnit(org_unit=unit, reason=reason) for unit, reason in rejected.items()
        ],
    )
    if not imported:
        reasons = "; ".join(f"{unit}: {reason}" for unit, reason in list(rejected.items())[:5])
        raise FieldProblem(
            "providedData", f"no org unit can be used by {template.name!r} ({reasons})"
        )
    usable = org_unit_subset(panel, imported)
    check_model_fits(template, model.user_option_values, usable, "providedData")
    check_backtest_history(
        template,
        model.user_option_values,
        usable,
        request.n_periods,
        request.n_splits,
        request.stride,
    )
    if dry_run:
        return report
    sources = [source.model_dump(by_alias=True) for source in request.data_sources]
    dataset = new_dataset_row(
        request.name, "evaluation", DatasetContent(usable, request.geojson, sources)
    )
    session.add(dataset)
    session.flush()
    job = queue_evaluation(session, state, request, model, dataset)
    return report.model_copy(update={"id": job.id, "dataset_id": dataset.id})


def rejected_org_units(
    template: ModelTemplateSpec, panel: Panel, geojson: dict[str, Any] | None
) -> dict[str, str]:
    """Org unit -> why the model cannot use it (in the panel's order)."""
    polygons = polygon_ids(geojson) if geojson is not None else None
    reasons: dict[str, str] = {}
    for u, unit in enumerate(panel.org_units):
        if polygons is not None and unit not in polygons:
            reasons[unit] = "no polygon in geojson"
            continue
        target = panel.features.get(template.target)
        if target is None or np.isnan(target[u]).all():
            reasons[unit] = f"no observed {template.target}"
            continue
        for covariate in template.required_covariates:
            values = panel.features.get(covariate)
            if values is None:
                reasons[unit] = f"no values of the required covariate {covariate!r}"
                break
            missing = int(np.isnan(values[u]).sum())
            if missing:
                reasons[unit] = (
                    f"{missing} missing value(s) of the required covariate {covariate!r}"
                )
                break
    return reasons


def polygon_ids(geojson: dict[str, Any]) -> set[str]:
    """The org-unit ids of a checked FeatureCollection's polygons."""
    check_geojson(geojson, [])
    ids: set[str] = set()
    for feature in geojson["features"]:
        properties = feature.get("properties") or {}
        identifier = properties.get("id") if isinstance(properties, dict) else None
        ids.add(str(identifier if identifier is not None else feature.get("id")))
    return ids


def org_unit_subset(panel: Panel, org_units: list[str]) -> Panel:
    """The panel restricted to ``org_units`` (kept in the given order)."""
    rows = [panel.org_units.index(unit) for unit in org_units]
    return Panel(
        period_type=panel.period_type,
        periods=panel.periods,
        org_units=list(org_units),
        features={name: values[rows] for name, values in panel.features.items()},
    )


@router.get("/v1/analytics/backtest-overlap/{id1}/{id2}")
def backtest_overlap(id1: int, id2: int, session: DB) -> BacktestOverlap:
    """The org units, split periods and forecast periods two evaluations share."""
    first = get_or_404(session, EvaluationRow, id1, "backtest", "id1")
    second = get_or_404(session, EvaluationRow, id2, "backtest", "id2")
    return BacktestOverlap(
        backtest_ids=[id1, id2],
        same_dataset=first.dataset_id == second.dataset_id,
        org_units=_shared(first.org_units, second.org_units),
        split_periods=_shared(first.split_periods, second.split_periods),
        periods=_shared(_forecast_periods(first), _forecast_periods(second)),
    )


@router.get("/v1/analytics/compatible-backtests/{backtest_id}")
def compatible_backtests(backtest_id: int, session: DB) -> list[BacktestRead]:
    """Other evaluations on the same dataset that share at least one split period and org unit,
    so their forecasts can be compared cell by cell."""
    row = get_or_404(session, EvaluationRow, backtest_id, "backtest")
    others = session.scalars(
        select(EvaluationRow)
        .where(EvaluationRow.dataset_id == row.dataset_id, EvaluationRow.id != row.id)
        .order_by(EvaluationRow.id)
    )
    return [
        backtest_read(other)
        for other in others
        if _shared(row.split_periods, other.split_periods)
        and _shared(row.org_units, other.org_units)
    ]


@router.get(
    "/v1/crud/metric/csv",
    response_class=Response,
    responses={
        200: {
            "content": {"text/csv": {"schema": {"type": "string"}}},
            "description": "one row per evaluation and metric",
        }
    },
)
def metrics_csv(
    session: DB, backtest_id: Annotated[int | None, Query(alias="backtestId")] = None
) -> Response:
    """Columns ``backtest_id, backtest_name, model_id, dataset_id, metric, value``."""
    query = select(EvaluationRow).order_by(EvaluationRow.id)
    if backtest_id is not None:
        get_or_404(session, EvaluationRow, backtest_id, "backtest", "backtestId")
        query = query.where(EvaluationRow.id == backtest_id)
    rows = [
        [row.id, row.name, row.configured_model.name, row.dataset_id, metric, value]
        for row in session.scalars(query)
        for metric, value in row.aggregate_metrics.items()
    ]
    header = ["backtest_id", "backtest_name", "model_id", "dataset_id", "metric", "value"]
    return csv_response(header, rows, "metrics.csv")


def parse_id_list(text: str, field: str) -> list[int]:
    """``"1,2"`` -> ``[1, 2]`` (distinct, in order); FieldProblem naming ``field`` otherwise."""
    parts = [part.strip() for part in text.split(",")]
    if not text.strip() or any(not part.isdigit() for part in parts):
        raise FieldProblem(field, f"expects comma-separated integer ids such as 1,2, got {text!r}")
    return list(dict.fromkeys(int(part) for part in parts))


def _shared(first: list[str], second: list[str]) -> list[str]:
    others = set(second)
    return [value for value in dict.fromkeys(first) if value in others]


def _forecast_periods(row: EvaluationRow) -> list[str]:
    return sorted({period for split in row.periods for period in split})
