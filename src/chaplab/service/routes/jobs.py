"""Jobs (``/v1/jobs``): the list (snake_case descriptions), the bare status with long polling,
logs, the request that queued the job, cancel, delete, and what a successful job created.

``GET /v1/jobs/{id}`` honours ``Prefer: wait=N`` (RFC 7240): the answer is held until the
status differs from the one at request time or N seconds (at most 30) pass (a job that has
ended is answered at once: its status never changes again), and carries
``Preference-Applied: wait=N``. The held request reads the status again when the job runner
announces a change (:meth:`JobRunner.next_change`), so it answers as soon as the job ends, and
at least every :data:`RECHECK_SECONDS` as a safeguard.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Request, Response
from starlette.concurrency import run_in_threadpool

from chaplab.service.domain import jobs
from chaplab.service.routes.dependencies import (
    DB,
    JSON,
    LIST_ANSWER,
    Paged,
    QuantileLevelsOrDefault,
    QueryInteger,
    State,
    json_body,
    service_state,
    with_total,
)
from chaplab.service.wire.evaluations import BacktestFull
from chaplab.service.wire.jobs import JobDatabaseResult, JobDescription
from chaplab.service.wire.predictions import PredictionFull
from chaplab.vocabulary import is_terminal_status

router = APIRouter(prefix="/v1/jobs", tags=["jobs"])
MAX_WAIT_SECONDS = 30
RECHECK_SECONDS = 1.0
_WAIT = re.compile(r"(?:^|[,;\s])wait\s*=\s*(\d+)", re.IGNORECASE)


@router.get("", responses=LIST_ANSWER)
def list_jobs(
    session: DB,
    page: Paged,
    response: Response,
    prediction_setup_id: Annotated[
        QueryInteger | None,
        Query(alias="predictionSetupId", description="the runs of one setup only"),
    ] = None,
    ids: Annotated[list[str] | None, Query(description="these jobs only")] = None,
    status: Annotated[
        list[str] | None, Query(description="jobs of these statuses only (any case)")
    ] = None,
    job_type: Annotated[
        str | None, Query(alias="type", description="jobs of this type only (any case)")
    ] = None,
) -> list[JobDescription]:
    """Every job on record, newest first, or those matching every filter given (the runs of
    one prediction setup, the jobs of ``ids``, of ``status`` and of ``type``, as chap-core
    2.5.1 filters them); a page of them when ``limit`` or ``offset`` is given."""
    chosen = jobs.JobFilter(prediction_setup_id, tuple(ids or ()), tuple(status or ()), job_type)
    return with_total(response, jobs.list_jobs(session, chosen, page))


@router.get("/{job_id}", response_model=str)
async def job_status(
    job_id: str, request: Request, prefer: Annotated[str | None, Header()] = None
) -> Response:
    """The job's status as a bare JSON string, e.g. ``"STARTED"``."""
    state = service_state(request)
    factory = state.factory
    changed = state.runner.next_change()  # taken first: a change after the read is not missed
    status = await run_in_threadpool(jobs.job_status, factory, job_id)
    if status is None:
        with factory() as session:
            jobs.get_job(session, job_id)
    match = _WAIT.search(prefer or "")
    headers: dict[str, str] = {}
    if match:
        wait = min(int(match.group(1)), MAX_WAIT_SECONDS)
        deadline = time.monotonic() + wait
        first = status  # an ended job's status never changes: it is answered at once
        while (
            status == first
            and status is not None
            and not is_terminal_status(status)
            and (left := deadline - time.monotonic()) > 0
        ):
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), min(left, RECHECK_SECONDS))
            changed = state.runner.next_change()
            status = await run_in_threadpool(jobs.job_status, factory, job_id)
        headers["Preference-Applied"] = f"wait={wait}"
    return Response(content=f'"{status}"', media_type=JSON, headers=headers)


@router.get("/{job_id}/logs")
def job_logs(job_id: str, session: DB) -> str:
    """The job's captured log as text (a JSON string, as chap-core 2.5.1 answers it): one line
    per logged line, oldest first, after its time in UTC."""
    return jobs.job_logs(session, job_id)


@router.get("/{job_id}/request")
def job_request(job_id: str, session: DB) -> dict[str, Any]:
    """The JSON body of the request that queued the job, as it was sent; kept as long as the
    job (deleting the job deletes it)."""
    return jobs.job_request(session, job_id)


@router.post("/{job_id}/cancel")
def cancel_job(job_id: str, session: DB, state: State) -> JobDescription:
    """Revoke a queued job or stop a running one (its worker process is terminated); a
    finished job gets 409."""
    jobs.check_cancellable(session, job_id)
    state.runner.cancel(job_id)
    session.expire_all()
    return jobs.describe(jobs.get_job(session, job_id))


@router.delete("/{job_id}", status_code=204, response_class=Response)
def delete_job(job_id: str, session: DB) -> Response:
    """Delete a finished job's entry and logs (what it created stays); 409 while it runs."""
    jobs.delete_job(session, job_id)
    return Response(status_code=204)


@router.get("/{job_id}/database_result")
def job_database_result(job_id: str, session: DB) -> JobDatabaseResult:
    """The row a successful job created (an evaluation, a prediction or a dataset)."""
    return jobs.database_result(session, job_id)


@router.get("/{job_id}/evaluation_result", response_model=BacktestFull)
def job_evaluation_result(job_id: str, session: DB, quantiles: QuantileLevelsOrDefault) -> Response:
    """The full evaluation a successful evaluation job created, with its entries."""
    return json_body(jobs.evaluation_result_json(session, job_id, quantiles))


@router.get("/{job_id}/prediction_result", response_model=PredictionFull)
def job_prediction_result(job_id: str, session: DB, quantiles: QuantileLevelsOrDefault) -> Response:
    """The full prediction a successful prediction job created, with its entries."""
    return json_body(jobs.prediction_result_json(session, job_id, quantiles))
