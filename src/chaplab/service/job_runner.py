"""The job runner: one OS process per job, at most ``workers`` at once, watched from the API.

Jobs are rows first (PENDING, committed before the creating request is answered), so nothing
lives only in memory. The runner's asyncio task starts queued jobs in processes of a
``forkserver`` context whose server has the forecasting code preloaded (a new worker is a cheap
fork), marks them STARTED, and marks FAILURE any job whose process could not start or ended
without recording a final status. A job is cancelled by terminating its process. A worker
first lowers its own CPU priority (``worker.lower_priority``), so the API stays responsive while
jobs keep every core busy.

The runner sleeps until it is woken: by a queued or cancelled job (:meth:`JobRunner.wake`), by
a worker process ending (its sentinel becomes readable on the event loop) or, as a safeguard,
after :data:`WATCH_INTERVAL_SECONDS`. Each change it makes to a job's status (started, ended,
failed, cancelled) sets the event :meth:`JobRunner.next_change` handed out, so a request
waiting on a job (``Prefer: wait``) answers as soon as the job ends, not at its next check.

Workers die with the service. The fork server ends by itself when the service's end of its
pipe closes; the workers are its children, not the service's, so each also gets the read end of
a *lifeline* pipe whose only write end the service holds and never writes to. However the
service ends (SIGKILL included), the kernel closes that write end, the worker's read returns
end-of-file and the worker exits at once (``worker.exit_with_service``). This works on every
POSIX system and for any process tree, unlike ``PR_SET_PDEATHSIG``, which follows only the
immediate parent (the fork server) and only on Linux. A worker that outlives the service anyway
cannot overwrite what the restarted service decided: its final write is fenced (see
:mod:`chaplab.service.worker`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import signal
import threading
import time
from multiprocessing import forkserver
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from chaplab.service.db import transaction
from chaplab.service.instance_lock import InstanceLock
from chaplab.service.tables import ACTIVE_STATUSES, JobLogRow, JobRow, utc_now
from chaplab.service.worker import read_schema_version, run_job, service_settings
from chaplab.vocabulary import FAILURE, PENDING, REVOKED, STARTED

DEFAULT_WORKERS = 2
RESTART_ERROR = "interrupted: the service restarted while this job was running"
CANCELLED = "cancelled on request"
WATCH_INTERVAL_SECONDS = 1.0
"""The longest the runner sleeps between rounds when nothing wakes it."""
LOCK_CHECK_INTERVAL_SECONDS = 1.0
"""How often the runner checks that the service still holds its database's lock."""
_PRELOAD = [
    "chaplab.service.lean_imports",
    "chaplab.service.worker",
    "numpy.random",
    "chaplab.service.worker_preload",
]
"""Imported once by the fork server, so a worker forked from it starts with them: numpy loads
``numpy.random`` only when first used (by every model's sampling), which cost each worker
10-15 ms of its job; ``worker_preload`` does SQLAlchemy's first-use work on every table."""
logger = logging.getLogger("chaplab.service.job_runner")


def worker_context() -> multiprocessing.context.ForkServerContext:
    """The forkserver context with the worker code preloaded in its server."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(_PRELOAD)
    return context


def claim_queued_jobs(factory: sessionmaker[Session], limit: int) -> list[str]:
    """Mark STARTED the ``limit`` oldest PENDING jobs and return their ids, oldest first.

    One statement claims them, so two runners looking at once never claim the same job. On
    PostgreSQL the rows are picked ``FOR UPDATE SKIP LOCKED`` (a job another claim holds is
    passed over) in a materialized CTE (evaluated once: a subquery with LIMIT may be run again
    for every row and claim more than ``limit``); SQLite runs one write at a time."""
    queued = (
        select(JobRow.id)
        .where(JobRow.status == PENDING)
        .order_by(JobRow.created, JobRow.id)
        .limit(limit)
        .with_for_update(skip_locked=True)
        .cte("queued")
        .prefix_with("MATERIALIZED", dialect="postgresql")
    )
    with transaction(factory) as session:
        claimed = session.execute(
            update(JobRow)
            .where(JobRow.id == queued.c.id, JobRow.status == PENDING)
            .values(status=STARTED, start_time=utc_now())
            .returning(JobRow.id, JobRow.created)
        ).all()
    return [job_id for job_id, _ in sorted(claimed, key=lambda row: (row.created, row.id))]


def fail_interrupted_jobs(factory: sessionmaker[Session]) -> int:
    """Mark FAILURE every job a stopped service left PENDING or STARTED; returns how many."""
    with transaction(factory) as session:
        outcome = session.execute(
            update(JobRow)
            .where(JobRow.status.in_(ACTIVE_STATUSES))
            .values(status=FAILURE, error=RESTART_ERROR, end_time=utc_now())
        )
        return int(outcome.rowcount or 0)


def fail_if_active(factory: sessionmaker[Session], job_id: str, error: str) -> bool:
    """Mark the job FAILURE with ``error`` unless it has already ended; whether it was marked.

    One conditional UPDATE, so a final status its worker committed meanwhile is never
    overwritten."""
    with transaction(factory) as session:
        outcome = session.execute(
            update(JobRow)
            .where(JobRow.id == job_id, JobRow.status.in_(ACTIVE_STATUSES))
            .values(status=FAILURE, error=error, end_time=utc_now())
        )
        marked = bool(outcome.rowcount)
        if marked:
            session.add(JobLogRow(job_id=job_id, line=error))
        return marked


def ended_without_result(exit_code: int | None) -> str:
    """The error of a job whose worker process ended without recording how the job ended."""
    if exit_code is not None and exit_code < 0:
        how = f"was killed by {signal.Signals(-exit_code).name}"
    else:
        how = f"ended with exit code {exit_code}"
    return (
        f"the worker process {how} without recording a result (it may have failed to start, "
        'e.g. a script serving the app in-process needs an `if __name__ == "__main__":` guard)'
    )


class JobRunner:
    """Starts queued jobs in worker processes and watches them until they end."""

    def __init__(
        self,
        database_url: str,
        factory: sessionmaker[Session],
        workers: int,
        instance_lock: InstanceLock | None = None,
    ) -> None:
        """``instance_lock`` is the database's lock the service holds: jobs are started only
        while it is held (see :meth:`InstanceLock.check`)."""
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self.database_url = database_url
        self.workers = workers
        self._settings = service_settings()
        """The environment's settings when the service was made, which its workers use."""
        self._factory = factory
        self._instance_lock = instance_lock
        self._lock_problem: str | None = None
        self._lock_checked = -LOCK_CHECK_INTERVAL_SECONDS
        self._processes: dict[str, BaseProcess] = {}
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._changed: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._lifeline: tuple[Connection, Connection] | None = None
        self._round_error: str | None = None

    def start(self) -> None:
        """Begin watching (call from the service's event loop); the fork server, which imports
        the forecasting code once, starts in the background so the first job starts fast."""
        self._lifeline = worker_context().Pipe(duplex=False)
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
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        with self._lock:
            processes = list(self._processes.values())
            self._processes.clear()
        for process in processes:
            process.terminate()
        for process in processes:
            process.join(timeout=5)
        if self._lifeline is not None:
            for end in self._lifeline:
                end.close()
            self._lifeline = None

    def wake(self) -> None:
        """A job was queued: start it as soon as a worker is free (thread-safe)."""
        if self._loop is not None and self._wake is not None:
            self._loop.call_soon_threadsafe(self._wake.set)

    def next_change(self) -> asyncio.Event:
        """An event set when the runner next changes a job's status (a job started, ended,
        failed or was cancelled); call it on the service's event loop, before reading the status
        the change is awaited from."""
        if self._changed is None:
            self._changed = asyncio.Event()
        return self._changed

    def _announce(self) -> None:
        """Set the event of :meth:`next_change` (on the event loop); the next caller gets a
        new one."""
        if self._changed is not None:
            self._changed.set()
            self._changed = None

    def _announce_from_thread(self) -> None:
        if self._loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop has closed: nobody waits
                self._loop.call_soon_threadsafe(self._announce)

    def cancel(self, job_id: str) -> str:
        """Revoke a queued or running job (its process is terminated); returns the final status."""
        with self._lock:
            process = self._processes.pop(job_id, None)
        if process is not None:
            process.terminate()
            process.join(timeout=5)
        with transaction(self._factory) as session:
            revoked = session.execute(
                update(JobRow)
                .where(JobRow.id == job_id, JobRow.status.in_(ACTIVE_STATUSES))
                .values(status=REVOKED, end_time=utc_now(), error=CANCELLED)
            ).rowcount
            if revoked:
                session.add(JobLogRow(job_id=job_id, line=CANCELLED))
            status = session.get_one(JobRow, job_id).status
        self._announce_from_thread()
        return status

    def problem(self) -> str | None:
        """Why the runner cannot start jobs now (not started, stopped, the service no longer
        holds its database's lock, or its last round of starting and reaping workers failed), or
        None while it works."""
        if self._task is None:
            return "the job runner has not been started"
        if self._task.done():
            return "the job runner has stopped"
        if self._lock_problem is not None:
            return f"no jobs are started: {self._lock_problem}"
        if self._round_error is not None:
            return f"the job runner's last round failed: {self._round_error}"
        return None

    def roundtrip(self, timeout: float) -> str | None:
        """Start a worker process as a job's is started and have it read the database's schema
        version; None when it answers the version within ``timeout`` seconds, else why not."""
        receiving, sending = worker_context().Pipe(duplex=False)
        process = worker_context().Process(
            target=read_schema_version,
            args=(self.database_url, sending),
            name="chaplab-probe",
            daemon=True,
        )
        try:
            process.start()
            sending.close()
            if not receiving.poll(timeout):
                return f"a worker process did not answer within {timeout:g} s"
            answer = receiving.recv()
        except (OSError, EOFError) as error:
            return f"a worker process could not run: {type(error).__name__}: {error}"
        finally:
            receiving.close()
            if process.is_alive():
                process.terminate()
            if process.pid is not None:
                process.join(timeout=5)
        if isinstance(answer, str):
            return f"a worker process could not read the database: {answer}"
        return None

    async def _watch(self) -> None:
        while True:
            try:
                await asyncio.to_thread(self._step)
                self._round_error = None
            except Exception as error:  # noqa: BLE001 - a failed round (e.g. a locked database) is retried
                self._round_error = f"{type(error).__name__}: {error}"
                logger.exception("job runner: a round of starting and reaping workers failed")
            with self._lock:
                running = list(self._processes.values())
            await self._sleep(running)

    async def _sleep(self, running: list[BaseProcess]) -> None:
        """Until :meth:`wake`, one of the ``running`` processes ends (its sentinel becomes
        readable) or :data:`WATCH_INTERVAL_SECONDS` pass. The list holds the processes, so
        their sentinels stay open while they are watched."""
        assert self._loop is not None and self._wake is not None
        sentinels = [process.sentinel for process in running]
        for sentinel in sentinels:
            self._loop.add_reader(sentinel, self._wake.set)
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), WATCH_INTERVAL_SECONDS)
        finally:
            for sentinel in sentinels:
                self._loop.remove_reader(sentinel)
        self._wake.clear()

    def _step(self) -> None:
        """Reap ended workers, then start queued jobs while workers are free and the service
        holds its database's lock."""
        with self._lock:
            ended = {job_id: p for job_id, p in self._processes.items() if not p.is_alive()}
            for job_id in ended:
                del self._processes[job_id]
            free = self.workers - len(self._processes)
        for process in ended.values():
            process.join()
        if ended:  # the final status their workers committed is visible now
            self._announce_from_thread()
        failed = [
            job_id
            for job_id, process in ended.items()
            if fail_if_active(self._factory, job_id, ended_without_result(process.exitcode))
        ]
        if failed:
            self._announce_from_thread()
        if self._holds_database_lock() and free > 0:
            self._start_queued(free)

    def _holds_database_lock(self) -> bool:
        """Whether the service holds its database's lock, checked at most every
        :data:`LOCK_CHECK_INTERVAL_SECONDS`; a change is logged."""
        if self._instance_lock is None:
            return True
        now = time.monotonic()
        if now - self._lock_checked >= LOCK_CHECK_INTERVAL_SECONDS:
            self._lock_checked = now
            problem = self._instance_lock.check()
            if problem is not None and problem != self._lock_problem:
                logger.error("job runner: starting no jobs: %s", problem)
            elif problem is None and self._lock_problem is not None:
                logger.warning("job runner: holds the database's lock again; starting jobs")
            self._lock_problem = problem
        return self._lock_problem is None

    def _start_queued(self, free: int) -> None:
        job_ids = claim_queued_jobs(self._factory, free)
        assert self._lifeline is not None, "start() the runner before it starts jobs"
        context = worker_context()
        for job_id in job_ids:
            process = context.Process(
                target=run_job,
                args=(self.database_url, job_id, self._lifeline[0], self._settings),
                name=f"chaplab-job-{job_id[:8]}",
                daemon=True,
            )
            with self._lock:  # a cancel waits until the process is started and known
                try:
                    process.start()
                except Exception as error:  # noqa: BLE001 - recorded on the job
                    reason = f"the worker process could not start: {type(error).__name__}: {error}"
                    fail_if_active(self._factory, job_id, reason)
                    continue
                self._processes[job_id] = process
        if job_ids:
            self._announce_from_thread()
