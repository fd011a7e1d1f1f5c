"""Jobs: the list (snake_case descriptions), the bare status with long polling, logs, cancel.

``GET /v1/jobs/{id}`` honours ``Prefer: wait=N`` (RFC 7240): the answer is held until the
status differs from the one at request time or N seconds (at most 30) pass, and carries
``Preference-Applied: wait=N``.
"""

from __future__ import annotations

import asyncio
import re
import time
from typing import Annotated

from fastapi import APIRouter, Header, Request, Response
from sqlalchemy import select
from starlette.concurrency import run_in_threadpool

from chaplab.service.db import ACTIVE_STATUSES, JobRow
from chaplab.service.routes._deps import DB, State, get_or_404, service_state
from chaplab.service.wire import JobDescription, JobLogLine
from chaplab.toolkit import ProblemError

router = APIRouter(tags=["jobs"])
MAX_WAIT_SECONDS = 30
POLL_SECONDS = 0.05
_WAIT = re.compile(r"(?:^|[,;\s])wait\s*=\s*(\d+)", re.IGNORECASE)


def describe(job: JobRow) -> JobDescription:
    return JobDescription(
        id=job.id,
        type=job.type,
        name=job.name,
        status=job.status,
        created=job.created,
        start_time=job.start_time,
        end_time=job.end_time,
        result=job.result,
        error=job.error,
    )


@router.get("/v1/jobs")
def list_jobs(session: DB) -> list[JobDescription]:
    """Every job on record, newest first."""
    return [
        describe(job) for job in session.scalars(select(JobRow).order_by(JobRow.created.desc()))
    ]


@router.get("/v1/jobs/{job_id}", response_model=str)
async def job_status(
    job_id: str, request: Request, prefer: Annotated[str | None, Header()] = None
) -> Response:
    """The job's status as a bare JSON string, e.g. ``"STARTED"``."""
    factory = service_state(request).factory

    def read_status() -> str | None:
        with factory() as session:
            return session.scalar(select(JobRow.status).where(JobRow.id == job_id))

    status = await run_in_threadpool(read_status)
    if status is None:
        with factory() as session:
            get_or_404(session, JobRow, job_id, "job")
    match = _WAIT.search(prefer or "")
    headers: dict[str, str] = {}
    if match:
        wait = min(int(match.group(1)), MAX_WAIT_SECONDS)
        deadline = time.monotonic() + wait
        first = status
        while status == first and time.monotonic() < deadline:
            await asyncio.sleep(POLL_SECONDS)
            status = await run_in_threadpool(read_status)
        headers["Preference-Applied"] = f"wait={wait}"
    return Response(content=f'"{status}"', media_type="application/json", headers=headers)


@router.get("/v1/jobs/{job_id}/logs")
def job_logs(job_id: str, session: DB) -> list[JobLogLine]:
    """The job's captured log lines, oldest first."""
    job = get_or_404(session, JobRow, job_id, "job")
    return [JobLogLine(time=line.time, line=line.line) for line in job.logs]


@router.post("/v1/jobs/{job_id}/cancel")
def cancel_job(job_id: str, session: DB, state: State) -> JobDescription:
    """Revoke a queued job or stop a running one (its worker process is terminated); a
    finished job gets 409."""
    job = get_or_404(session, JobRow, job_id, "job")
    if job.status not in ACTIVE_STATUSES:
        raise ProblemError(
            409, detail=f"job {job_id} has already finished with status {job.status}"
        )
    state.runner.cancel(job_id)
    session.expire_all()
    return describe(get_or_404(session, JobRow, job_id, "job"))
