"""Evaluations (backtests): create as a job (on a stored dataset or on data sent inline) or as a
row only, list, read (also in full with entries), rename, delete, the entries, the actual cases,
metrics (JSON and CSV), overlaps and comparable evaluations.

Their paths span ``/v1/crud``, ``/v1/analytics`` and ``/v1/visualization``, so the router has no
prefix. Entries are written straight to JSON bytes from the stored sorted samples (see
``chaplab.service.gridjson``), so a million entries never become a million Python objects, and
are sent block by block while the next block is written.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response

from chaplab.service.domain import evaluations
from chaplab.service.routes.dependencies import (
    DB,
    LIST_ANSWER,
    OrgUnits,
    Paged,
    QuantileLevels,
    QuantileLevelsOrDefault,
    QueryInteger,
    State,
    csv_answer,
    job_reference,
    json_body,
    streamed,
    with_total,
)
from chaplab.service.spreadsheet import csv_response
from chaplab.service.wire.evaluations import (
    ActualCases,
    BacktestFull,
    BacktestMetrics,
    BacktestOverlap,
    BacktestRead,
    BacktestRowCreate,
    BacktestUpdate,
    CreateBacktestRequest,
    CreateBacktestWithDataRequest,
    DataImportReport,
    DeletedIds,
    EvaluationEntry,
)
from chaplab.service.wire.jobs import JobReference

router = APIRouter(tags=["evaluations"])


@router.post("/v1/analytics/create-backtest")
def create_backtest(request: CreateBacktestRequest, session: DB, state: State) -> JobReference:
    """Queue a rolling-origin evaluation of a configured model (by NAME) on a dataset."""
    return job_reference(state, evaluations.queue_backtest(session, request))


@router.get("/v1/crud/backtests", responses=LIST_ANSWER)
def list_backtests(
    session: DB,
    page: Paged,
    response: Response,
    specification_id: Annotated[QueryInteger | None, Query(alias="specificationId")] = None,
    dataset_id: Annotated[QueryInteger | None, Query(alias="datasetId")] = None,
) -> list[BacktestRead]:
    """Finished evaluations (an evaluation is stored only when its job succeeds), by id, those
    filed under one specification (comparable with each other) or run on one dataset when
    asked, as 2.5.1 filters them; a page of them when ``limit`` or ``offset`` is given."""
    listed = evaluations.list_backtests(session, specification_id, dataset_id, page)
    return with_total(response, listed)


@router.get("/v1/crud/backtests/{backtest_id}", summary="Get backtest")
@router.get("/v1/crud/backtests/{backtest_id}/info", summary="Get backtest info")
def get_backtest(backtest_id: int, session: DB) -> BacktestRead:
    return evaluations.backtest_read(evaluations.get_evaluation(session, backtest_id))


@router.delete("/v1/crud/backtests/{backtest_id}", status_code=204)
def delete_backtest(backtest_id: int, session: DB) -> Response:
    evaluations.delete_backtest(session, backtest_id)
    return Response(status_code=204)


@router.get("/v1/analytics/evaluation-entry", response_model=list[EvaluationEntry])
def evaluation_entries(
    session: DB,
    backtest_id: Annotated[int, Query(alias="backtestId")],
    quantiles: QuantileLevels,
    split_period: Annotated[str | None, Query(alias="splitPeriod")] = None,
    org_units: OrgUnits = None,
) -> Response:
    """Quantiles of every (split, org unit, period) of an evaluation."""
    return streamed(
        evaluations.entries_stream(session, backtest_id, quantiles, split_period, org_units)
    )


@router.get("/v1/analytics/actual-cases/{backtest_id}", summary="Actual cases (alias)")
@router.get("/v1/analytics/actualCases/{backtest_id}", summary="Actual cases")
def actual_cases(
    backtest_id: int,
    session: DB,
    org_units: OrgUnits = None,
    is_dataset_id: Annotated[
        bool, Query(alias="isDatasetId", description="the id is a dataset's, not an evaluation's")
    ] = False,
) -> ActualCases:
    """The observed target of the evaluation's dataset (decorators apply bottom up, so
    ``actualCases`` is the route listed first)."""
    return evaluations.actual_cases(session, backtest_id, org_units, is_dataset_id)


@router.post("/v1/crud/backtests")
def create_backtest_row(request: BacktestRowCreate, session: DB) -> BacktestRead:
    """Store an evaluation row without running it: no splits, no forecasts, no metrics."""
    return evaluations.create_backtest_row(session, request)


@router.delete("/v1/crud/backtests")
def delete_backtests(
    session: DB, ids: Annotated[str, Query(description="comma-separated evaluation ids, e.g. 1,2")]
) -> DeletedIds:
    """Delete several evaluations at once; when any id is unknown nothing is deleted (404)."""
    return evaluations.delete_backtests(session, ids)


@router.patch("/v1/crud/backtests/{backtest_id}")
def update_backtest(backtest_id: int, request: BacktestUpdate, session: DB) -> BacktestRead:
    """Rename an evaluation (``name`` is its one editable field)."""
    return evaluations.rename_backtest(session, backtest_id, request.name)


@router.get("/v1/crud/backtests/{backtest_id}/full", response_model=BacktestFull)
def get_backtest_full(
    backtest_id: int, session: DB, quantiles: QuantileLevelsOrDefault
) -> Response:
    """The evaluation with its configuration, configured model, dataset and predicted entries."""
    row = evaluations.get_evaluation(session, backtest_id)
    return json_body(evaluations.backtest_full_json(row, quantiles))


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
    report = evaluations.import_and_queue(session, request, dry_run)
    if report.id is not None:
        state.runner.wake()
    return report


@router.get("/v1/analytics/backtest-overlap/{id1}/{id2}")
def backtest_overlap(id1: int, id2: int, session: DB) -> BacktestOverlap:
    """The org units, split periods and forecast periods two evaluations share."""
    return evaluations.backtest_overlap(session, id1, id2)


@router.get("/v1/analytics/compatible-backtests/{backtest_id}")
def compatible_backtests(backtest_id: int, session: DB) -> list[BacktestRead]:
    """Other evaluations on the same dataset that share at least one split period and org unit,
    so their forecasts can be compared cell by cell."""
    return evaluations.compatible_backtests(session, backtest_id)


@router.get(
    "/v1/crud/metric/csv",
    response_class=Response,
    responses=csv_answer("one row per evaluation and metric"),
)
def metrics_csv(
    session: DB, backtest_id: Annotated[int | None, Query(alias="backtestId")] = None
) -> Response:
    """Columns ``backtest_id, backtest_name, model_id, dataset_id, metric, value``."""
    rows = evaluations.metric_rows(session, backtest_id)
    return csv_response(evaluations.METRICS_CSV_HEADER, rows, "metrics.csv")


@router.get("/v1/visualization/metrics/{backtest_id}")
def backtest_metrics(backtest_id: int, session: DB) -> BacktestMetrics:
    """Aggregate metrics and their breakdown per org unit and per horizon."""
    return evaluations.evaluation_metrics(evaluations.get_evaluation(session, backtest_id))
