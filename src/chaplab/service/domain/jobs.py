"""Jobs as the API shows them: descriptions, status, logs, which ones may be cancelled or
deleted, and what a successful job created (a job that has not succeeded gets 409 with the
reason, never a 500). Jobs are queued by the builders of :mod:`chaplab.service.job_types` and run by
:mod:`chaplab.service.job_runner`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from chaplab.service.domain.datasets import dataset_read
from chaplab.service.domain.evaluations import backtest_full_json, backtest_read
from chaplab.service.domain.lookup import get_or_404
from chaplab.service.domain.paging import Listed, Page, listed_rows
from chaplab.service.domain.predictions import prediction_full_json, prediction_read
from chaplab.service.errors import Conflict, Missing
from chaplab.service.tables import (
    ACTIVE_STATUSES,
    DatasetRow,
    EvaluationRow,
    JobRow,
    PredictionRow,
)
from chaplab.service.wire.common import from_row
from chaplab.service.wire.jobs import JobDatabaseResult, JobDescription
from chaplab.vocabulary import SUCCESS, JobType

ResultKind = Literal["backtest", "prediction", "dataset"]
ResultRow = EvaluationRow | PredictionRow | DatasetRow
RESULT_TABLES: dict[JobType, tuple[ResultKind, type[ResultRow]]] = {
    JobType.CREATE_BACKTEST: ("backtest", EvaluationRow),
    JobType.CREATE_BACKTEST_FROM_DATA: ("backtest", EvaluationRow),
    JobType.RUN_BASELINE: ("backtest", EvaluationRow),
    JobType.CREATE_PREDICTION: ("prediction", PredictionRow),
    JobType.CREATE_DATASET: ("dataset", DatasetRow),
}
"""Job type -> the kind and table of the row a successful job of that type created."""


def describe(job: JobRow) -> JobDescription:
    """The job as listed; a run of a prediction setup names the setup."""
    return from_row(JobDescription, job)


def get_job(session: Session, job_id: str) -> JobRow:
    return get_or_404(session, JobRow, job_id, "job")


@dataclass(frozen=True)
class JobFilter:
    """Which jobs a list shows: the runs of one prediction setup, the jobs of ``ids`` (a client
    waiting on one job reads it alone, not every job's row), of ``statuses`` and of
    ``job_type`` (both compared in any case, as chap-core 2.5.1 compares them); each when
    given."""

    prediction_setup_id: int | None = None
    ids: tuple[str, ...] = ()
    statuses: tuple[str, ...] = ()
    job_type: str | None = None


def list_jobs(session: Session, chosen: JobFilter, page: Page) -> Listed[JobDescription]:
    """The jobs ``chosen`` of ``page``, newest first."""
    query = select(JobRow).order_by(JobRow.created.desc(), JobRow.id)
    if chosen.ids:
        query = query.where(JobRow.id.in_(chosen.ids))
    if chosen.prediction_setup_id is not None:
        query = query.where(JobRow.prediction_setup_id == chosen.prediction_setup_id)
    if chosen.statuses:
        query = query.where(JobRow.status.in_([status.upper() for status in chosen.statuses]))
    if chosen.job_type is not None:
        query = query.where(func.lower(JobRow.type) == chosen.job_type.lower())
    return listed_rows(session, query, page, describe)


def job_status(factory: sessionmaker[Session], job_id: str) -> str | None:
    """The job's status in a session of its own (None for an unknown job)."""
    with factory() as session:
        return session.scalar(select(JobRow.status).where(JobRow.id == job_id))


def job_logs(session: Session, job_id: str) -> str:
    """The job's captured log as text, as chap-core 2.5.1 answers it: one line per logged line,
    oldest first, each after its time in UTC (``2026-01-01T10:00:00Z worker process ...``);
    empty before the job has logged anything."""
    return "".join(
        f"{line.time.strftime('%Y-%m-%dT%H:%M:%SZ')} {line.line}\n"
        for line in get_job(session, job_id).logs
    )


def job_request(session: Session, job_id: str) -> dict[str, Any]:
    """The JSON body of the request that queued the job; 404 for a job queued without one
    (the demo's, or one queued before jobs kept their requests)."""
    job = get_job(session, job_id)
    if job.request is None:
        raise Missing(f"job {job_id} was not queued by a request with a body")
    return job.request.body


def check_cancellable(session: Session, job_id: str) -> None:
    """A 409 when the job has already finished (only a queued or running job is cancelled)."""
    job = get_job(session, job_id)
    if job.status not in ACTIVE_STATUSES:
        raise Conflict(f"job {job_id} has already finished with status {job.status}")


def delete_job(session: Session, job_id: str) -> None:
    """Delete a finished job's entry and logs (what it created stays); 409 while it runs."""
    job = get_job(session, job_id)
    if job.status in ACTIVE_STATUSES:
        raise Conflict(f"job {job_id} is {job.status}; cancel it or wait until it finishes")
    session.delete(job)
    session.commit()


def database_result(session: Session, job_id: str) -> JobDatabaseResult:
    """The row a successful job created (an evaluation, a prediction or a dataset)."""
    job = succeeded(session, job_id)
    kind, _ = RESULT_TABLES[JobType(job.type)]
    row = created_row(session, job)
    read = (
        backtest_read(row)
        if isinstance(row, EvaluationRow)
        else prediction_read(session, row)
        if isinstance(row, PredictionRow)
        else dataset_read(row)
    )
    return JobDatabaseResult(job_id=job.id, result_type=kind, id=row.id, row=read)


def evaluation_result_json(session: Session, job_id: str, quantiles: Sequence[float]) -> bytes:
    """The full evaluation a successful evaluation job created, with its entries."""
    row = created_row(session, succeeded(session, job_id, "backtest"))
    assert isinstance(row, EvaluationRow)
    return backtest_full_json(row, quantiles)


def prediction_result_json(session: Session, job_id: str, quantiles: Sequence[float]) -> bytes:
    """The full prediction a successful prediction job created, with its entries."""
    row = created_row(session, succeeded(session, job_id, "prediction"))
    assert isinstance(row, PredictionRow)
    return prediction_full_json(session, row, quantiles)


def succeeded(session: Session, job_id: str, kind: ResultKind | None = None) -> JobRow:
    """The job, when it succeeded (and creates a ``kind`` of row); 409 saying why not
    otherwise."""
    job = get_job(session, job_id)
    created = RESULT_TABLES.get(JobType(job.type))
    if kind is not None and (created is None or created[0] != kind):
        raise Conflict(f"job {job_id} is a {job.type} job, which creates no {kind}")
    if job.status != SUCCESS:
        reason = f": {job.error}" if job.error else ""
        state = "has not finished yet" if job.status in ACTIVE_STATUSES else "did not succeed"
        raise Conflict(f"job {job_id} {state} (status {job.status}){reason}")
    if job.type not in RESULT_TABLES or job.result is None or not job.result.isdigit():
        raise Conflict(f"job {job_id} ({job.type}) records no created row")
    return job


def created_row(session: Session, job: JobRow) -> ResultRow:
    """The row a succeeded job created; 404 when it has been deleted since."""
    kind, table = RESULT_TABLES[JobType(job.type)]
    row = session.get(table, int(job.result or 0))
    if row is None:
        raise Missing(f"the {kind} {job.result} that job {job.id} created has been deleted since")
    assert isinstance(row, ResultRow), "a row of the table RESULT_TABLES names"
    return row
