"""Jobs beyond the main table: deleting a finished job's entry and reading what a successful job
created. A job that has not succeeded gets 409 with the reason, never a 500."""

from __future__ import annotations

from fastapi import APIRouter, Response
from sqlalchemy.orm import Session

from chaplab.service.db import (
    ACTIVE_STATUSES,
    SUCCESS,
    DatasetRow,
    EvaluationRow,
    JobRow,
    PredictionRow,
)
from chaplab.service.result_views import (
    DEFAULT_QUANTILES,
    backtest_full_json,
    prediction_full_json,
    prediction_read,
)
from chaplab.service.routes._deps import DB, OptionalQuantileLevels, get_or_404
from chaplab.service.views import backtest_read, dataset_read
from chaplab.service.wire_results import BacktestFull, JobDatabaseResult, PredictionFull
from chaplab.toolkit import ProblemError

router = APIRouter(tags=["jobs"])
RESULT_TABLES = {
    "create_backtest": ("backtest", EvaluationRow),
    "make_prediction": ("prediction", PredictionRow),
    "create_dataset": ("dataset", DatasetRow),
}


@router.delete("/v1/jobs/{job_id}", status_code=204, response_class=Response)
def delete_job(job_id: str, session: DB) -> Response:
    """Delete a finished job's entry and logs (what it created stays); 409 while it runs."""
    job = get_or_404(session, JobRow, job_id, "job")
    if job.status in ACTIVE_STATUSES:
        raise ProblemError(
            409, detail=f"job {job_id} is {job.status}; cancel it or wait until it finishes"
        )
    session.delete(job)
    session.commit()
    return Response(status_code=204)


@router.get("/v1/jobs/{job_id}/database_result")
def job_database_result(job_id: str, session: DB) -> JobDatabaseResult:
    """The row a successful job created (an evaluation, a prediction or a dataset)."""
    job = _succeeded(session, job_id)
    kind, table = RESULT_TABLES[job.type]
    row = _created_row(session, job, kind, table)
    read = (
        backtest_read(row)
        if isinstance(row, EvaluationRow)
        else prediction_read(session, row)
        if isinstance(row, PredictionRow)
        else dataset_read(row)
    )
    return JobDatabaseResult(job_id=job.id, result_type=kind, id=row.id, row=read)


@router.get("/v1/jobs/{job_id}/evaluation_result", response_model=BacktestFull)
def job_evaluation_result(
    job_id: str, session: DB, quantiles: OptionalQuantileLevels = None
) -> Response:
    """The full evaluation a successful evaluation job created, with its entries."""
    row = _created_row(
        session, _succeeded(session, job_id, "create_backtest"), "backtest", EvaluationRow
    )
    return Response(
        backtest_full_json(row, quantiles or DEFAULT_QUANTILES), media_type="application/json"
    )


@router.get("/v1/jobs/{job_id}/prediction_result", response_model=PredictionFull)
def job_prediction_result(
    job_id: str, session: DB, quantiles: OptionalQuantileLevels = None
) -> Response:
    """The full prediction a successful prediction job created, with its entries."""
    row = _created_row(
        session, _succeeded(session, job_id, "make_prediction"), "prediction", PredictionRow
    )
    return Response(
        prediction_full_json(session, row, quantiles or DEFAULT_QUANTILES),
        media_type="application/json",
    )


def _succeeded(session: Session, job_id: str, job_type: str | None = None) -> JobRow:
    """The job, when it succeeded (and is of ``job_type``); 409 saying why not otherwise."""
    job = get_or_404(session, JobRow, job_id, "job")
    if job_type is not None and job.type != job_type:
        raise ProblemError(409, detail=f"job {job_id} is a {job.type} job, not a {job_type} job")
    if job.status != SUCCESS:
        reason = f": {job.error}" if job.error else ""
        state = "has not finished yet" if job.status in ACTIVE_STATUSES else "did not succeed"
        raise ProblemError(409, detail=f"job {job_id} {state} (status {job.status}){reason}")
    if job.type not in RESULT_TABLES or job.result is None or not job.result.isdigit():
        raise ProblemError(409, detail=f"job {job_id} ({job.type}) records no created row")
    return job


def _created_row(
    session: Session,
    job: JobRow,
    kind: str,
    table: type[EvaluationRow | PredictionRow | DatasetRow],
) -> EvaluationRow | PredictionRow | DatasetRow:
    row = session.get(table, int(job.result or 0))
    if row is None:
        raise ProblemError(
            404, detail=f"the {kind} {job.result} that job {job.id} created has been deleted since"
        )
    return row
