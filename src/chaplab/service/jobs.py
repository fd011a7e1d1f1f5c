"""The job runner: one OS process per job, at most ``workers`` at once, watched from the API.

Jobs are rows first (PENDING, committed before the creating request is answered), so nothing
lives only in memory. The runner's asyncio task starts queued jobs in processes of a
``forkserver`` context whose server has the forecasting code preloaded (a new worker is a cheap
fork), marks them STARTED, and marks FAILURE any job whose process ended without recording a
final status. A job is cancelled by terminating its process.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import threading
import uuid
from multiprocessing import forkserver
from multiprocessing.process import BaseProcess
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from chaplab.service.db import (
    ACTIVE_STATUSES,
    FAILURE,
    PENDING,
    REVOKED,
    STARTED,
    JobLogRow,
    JobRow,
    transaction,
    utc_now,
)
from chaplab.service.tasks import run_job

DEFAULT_WORKERS = 2
RESTART_ERROR = "interrupted: the service restarted while this job was running"
WATCH_INTERVAL_SECONDS = 0.05
_PRELOAD = ["chaplab.service.tasks"]


def worker_context() -> multiprocessing.context.ForkServerContext:
    """The forkserver context with the worker code preloaded in its server."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(_PRELOAD)
    return context


def create_job(session: Session, job_type: str, name: str, payload: dict[str, Any]) -> JobRow:
    """Add a PENDING job to ``session`` (committed by the caller's transaction)."""
    job = JobRow(id=str(uuid.uuid4()), type=job_type, name=name, status=PENDING, payload=payload)
    session.add(job)
    return job


def fail_interrupted_jobs(factory: sessionmaker[Session]) -> int:
    """Mark FAILURE every job a stopped service left PENDING or STARTED; returns how many."""
    with transaction(factory) as session:
        outcome = session.execute(
            update(JobRow)
            .where(JobRow.status.in_(ACTIVE_STATUSES))
            .values(status=FAILURE, error=RESTART_ERROR, end_time=utc_now())
        )
        return int(outcome.rowcount or 0)


class JobRunner:
    """Starts queued jobs in worker processes and watches them until they end."""

    def __init__(self, database_url: str, factory: sessionmaker[Session], workers: int) -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self.database_url = database_url
        self.workers = workers
        self._factory = factory
        self._processes: dict[str, BaseProcess] = {}
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Begin watching (call from the service's event loop); the fork server, which imports
        the forecasting code once, starts in the background so the first job starts fast."""
        worker_context()
        threading.Thread(
            target=forkserver.ensure_running, name="chaplab-forkserver", daemon=True
        ).start()
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self._task = self._loop.create_task(self._watch(), name="chaplab-job-runner")

    async def stop(self) -> None:
        """Stop watching and end running workers; their jobs are failed at the next start."""
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
        with self._lock:
            processes = list(self._processes.values())
            self._processes.clear()
        for process in processes:
            process.terminate()
        for process in processes:
            process.join(timeout=5)

    def wake(self) -> None:
        """A job was queued: start it as soon as a worker is free (thread-safe)."""
        if self._loop is not None and self._wake is not None:
            self._loop.call_soon_threadsafe(self._wake.set)

    def cancel(self, job_id: str) -> str:
        """Revoke a queued or running job (its process is terminated); returns the final status."""
        with self._lock:
            process = self._processes.pop(job_id, None)
        if process is not None:
            process.terminate()
            process.join(timeout=5)
        with transaction(self._factory) as session:
            job = session.get_one(JobRow, job_id)
            if job.status in ACTIVE_STATUSES:
                job.status = REVOKED
                job.end_time = utc_now()
                job.error = "cancelled on request"
                session.add(JobLogRow(job_id=job_id, line="cancelled on request"))
            return job.status

    async def _watch(self) -> None:
        assert self._wake is not None
        while True:
            await asyncio.to_thread(self._step)
            try:
                await asyncio.wait_for(self._wake.wait(), WATCH_INTERVAL_SECONDS)
            except TimeoutError:
                pass
            self._wake.clear()

    def _step(self) -> None:
        """Reap ended workers, then start queued jobs while workers are free."""
        with self._lock:
            ended = {job_id: p for job_id, p in self._processes.items() if not p.is_alive()}
            for job_id in ended:
                del self._processes[job_id]
            free = self.workers - len(self._processes)
        for job_id, process in ended.items():
            process.join()
            self._fail_if_unfinished(job_id, process.exitcode)
        if free > 0:
            self._start_queued(free)

    def _fail_if_unfinished(self, job_id: str, exit_code: int | None) -> None:
        with transaction(self._factory) as session:
            job = session.get(JobRow, job_id)
            if job is not None and job.status in ACTIVE_STATUSES:
                job.status = FAILURE
                job.end_time = utc_now()
                job.error = (
                    f"the worker process ended (exit code {exit_code}) without recording a result"
                )

    def _start_queued(self, free: int) -> None:
        with transaction(self._factory) as session:
            jobs = session.scalars(
                select(JobRow).where(JobRow.status == PENDING).order_by(JobRow.created).limit(free)
            ).all()
            for job in jobs:
                job.status = STARTED
                job.start_time = utc_now()
            job_ids = [job.id for job in jobs]
        context = worker_context()
        for job_id in job_ids:
            process = context.Process(
                target=run_job,
                args=(self.database_url, job_id),
                name=f"chaplab-job-{job_id[:8]}",
                daemon=True,
            )
            with self._lock:  # a cancel waits until the process is started and known
                process.start()
                self._processes[job_id] = process
