"""The job runner: warm worker processes, started ahead of time and reused across jobs,
watched from the API.

Jobs are rows first (PENDING, committed before the creating request is answered), so nothing
lives only in memory. A worker process (:func:`chaplab.service.worker.serve_jobs`) is forked
from the server of a ``forkserver`` context, which has the forecasting code preloaded; it lowers
its own CPU priority (``worker.lower_priority``, so the API stays responsive while jobs keep
every core busy), opens its database engine once and then runs the job ids the runner sends it
over a pipe, one at a time, answering each id when the job has ended. Its engine keeps its
connections and compiled statements, so a small job costs neither a fork nor SQLAlchemy's
first-use work. The runner claims queued jobs (marks them STARTED) only for its lanes' free
room, hands each to an idle worker, and marks FAILURE any job whose worker could not start or
ended without recording a final status. A worker is replaced after it crashed, after a cancel
(a job is cancelled by terminating its worker: it stops at once) and after
:data:`JOBS_PER_WORKER` jobs.

Jobs run in lanes (:class:`Lane`). The CPU lane has ``workers`` processes, all started ahead
of time. A job whose model runs on a model service (queued in the model-service lane, see
:mod:`chaplab.service.job_types`) mostly waits on HTTP: it runs in a lane of its own, at most
:data:`MODEL_SERVICE_JOBS_AT_ONCE` at once (``$CHAPLAB_MODEL_SERVICE_JOBS_AT_ONCE``), whose
workers start when such a job is queued, so it never holds one of the CPU workers.

The runner sleeps until it is woken: by a queued or cancelled job (:meth:`JobRunner.wake`), by
a worker answering that its job ended or a worker process ending (its pipe or sentinel becomes
readable on the event loop) or, as a safeguard, after :data:`WATCH_INTERVAL_SECONDS`. Each
change it makes to a job's status (started, ended, failed, cancelled) sets the event
:meth:`JobRunner.next_change` handed out, so a request waiting on a job (``Prefer: wait``)
answers as soon as the job ends, not at its next check.

Workers die with the service. The fork server ends by itself when the service's end of its
pipe closes; the workers are its children, not the service's, so each also gets the read end of
a *lifeline* pipe whose only write end the service holds and never writes to. However the
service ends (SIGKILL included), the kernel closes that write end, the worker's read returns
end-of-file and the worker exits at once (``worker.exit_with_service``), without committing
what it was writing. This works on every POSIX system and for any process tree, unlike
``PR_SET_PDEATHSIG``, which follows only the immediate parent (the fork server) and only on
Linux. A worker that outlives the service anyway cannot overwrite what the restarted service
decided: its final write is fenced (see :mod:`chaplab.service.worker`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import signal
import threading
import time
from dataclasses import dataclass
from multiprocessing import forkserver
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, cast

from sqlalchemy import CursorResult, select, update
from sqlalchemy.orm import Session, sessionmaker

from chaplab.service.db import transaction
from chaplab.service.instance_lock import InstanceLock
from chaplab.service.job_types import LANE, MODEL_SERVICE_LANE
from chaplab.service.tables import ACTIVE_STATUSES, JobLogRow, JobRow, utc_now
from chaplab.service.worker import read_schema_version, serve_jobs, service_settings
from chaplab.vocabulary import FAILURE, PENDING, REVOKED, STARTED

DEFAULT_WORKERS = 2
MODEL_SERVICE_JOBS_AT_ONCE = 8
"""How many jobs whose model runs on a model service run at once, unless
``$CHAPLAB_MODEL_SERVICE_JOBS_AT_ONCE`` says otherwise; they do not count against ``workers``."""
MODEL_SERVICE_JOBS_VARIABLE = "CHAPLAB_MODEL_SERVICE_JOBS_AT_ONCE"
JOBS_PER_WORKER = 100
"""How many jobs a worker process runs before it is replaced by a fresh one (which bounds
what a long-lived process could accumulate)."""
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


@dataclass(frozen=True)
class Lane:
    """Jobs that run on workers of their own: at most ``limit`` at once, with ``ready`` idle
    workers started ahead of time (more start when jobs wait; idle ones beyond ``ready``
    are retired). ``marker`` is the value of the jobs' payload :data:`LANE` (None: absent)."""

    name: str
    marker: str | None
    limit: int
    ready: int


@dataclass(eq=False)
class Worker:
    """A worker process of a lane, the runner's end of its job pipe and the job it runs."""

    lane: Lane
    process: BaseProcess
    jobs: Connection
    job_id: str | None = None
    served: int = 0
    retired: bool = False
    """Given no more jobs: its pipe is closed (it then exits) or it was terminated."""


def model_service_jobs_at_once(settings: dict[str, str]) -> int:
    """The model-service lane's limit from the service's ``settings``; a clear ValueError for
    a value that is not a whole number of at least 1."""
    value = settings.get(MODEL_SERVICE_JOBS_VARIABLE, "").strip()
    if not value:
        return MODEL_SERVICE_JOBS_AT_ONCE
    if not value.isdigit() or int(value) < 1:
        raise ValueError(
            f"{MODEL_SERVICE_JOBS_VARIABLE} must be a whole number of at least 1, got {value!r}"
        )
    return int(value)


def worker_context() -> multiprocessing.context.ForkServerContext:
    """The forkserver context with the worker code preloaded in its server."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(_PRELOAD)
    return context


def claim_queued_jobs(
    factory: sessionmaker[Session], limit: int, lane: str | None = None
) -> list[str]:
    """Mark STARTED the ``limit`` oldest PENDING jobs of the ``lane`` (their payload's
    :data:`LANE`; None: jobs without one) and return their ids, oldest first.

    One statement claims them, so two runners looking at once never claim the same job. On
    PostgreSQL the rows are picked ``FOR UPDATE SKIP LOCKED`` (a job another claim holds is
    passed over) in a materialized CTE (evaluated once: a subquery with LIMIT may be run again
    for every row and claim more than ``limit``); SQLite runs one write at a time."""
    marker = JobRow.payload[LANE].as_string()
    queued = (
        select(JobRow.id)
        .where(JobRow.status == PENDING, marker.is_(None) if lane is None else marker == lane)
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
    """Mark FAILURE every job a stopped service left STARTED (its work was cut off); returns
    how many. A PENDING job never started: it stays queued and runs, as a job queued with
    chap-core 2.5.1 outlives a restart of its server."""
    with transaction(factory) as session:
        outcome = cast(
            CursorResult[Any],
            session.execute(
                update(JobRow)
                .where(JobRow.status == STARTED)
                .values(status=FAILURE, error=RESTART_ERROR, end_time=utc_now())
            ),
        )
        return int(outcome.rowcount or 0)


def fail_if_active(factory: sessionmaker[Session], job_id: str, error: str) -> bool:
    """Mark the job FAILURE with ``error`` unless it has already ended; whether it was marked.

    One conditional UPDATE, so a final status its worker committed meanwhile is never
    overwritten."""
    with transaction(factory) as session:
        outcome = cast(
            CursorResult[Any],
            session.execute(
                update(JobRow)
                .where(JobRow.id == job_id, JobRow.status.in_(ACTIVE_STATUSES))
                .values(status=FAILURE, error=error, end_time=utc_now())
            ),
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
    """Runs queued jobs on warm worker processes and watches them until they end."""

    def __init__(
        self,
        database_url: str,
        factory: sessionmaker[Session],
        workers: int,
        instance_lock: InstanceLock | None = None,
    ) -> None:
        """``workers`` is the CPU lane's size; ``instance_lock`` is the database's lock the
        service holds: jobs are started only while it is held (see :meth:`InstanceLock.check`)."""
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self.database_url = database_url
        self.workers = workers
        self._settings = service_settings()
        """The environment's settings when the service was made, which its workers use."""
        self.lanes = (
            Lane("cpu", None, workers, ready=workers),
            Lane(
                "model-service",
                MODEL_SERVICE_LANE,
                model_service_jobs_at_once(self._settings),
                ready=0,
            ),
        )
        self._factory = factory
        self._instance_lock = instance_lock
        self._lock_problem: str | None = None
        self._lock_checked = -LOCK_CHECK_INTERVAL_SECONDS
        self._workers: list[Worker] = []
        """Every worker not yet reaped, retired ones included; guarded by ``_lock``."""
        self._cold: set[Lane] = set()
        """Lanes whose last worker started ahead of time died waiting for a job (e.g. a script
        serving the app without a ``__main__`` guard): their workers start only for a job
        (which then fails saying why) until one of them finishes a job, instead of being
        started again every round."""
        self._lock = threading.Lock()
        self._round = threading.Lock()
        """Held by a round of :meth:`_step` and by :meth:`stop`."""
        self._stopped = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._changed: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._lifeline: tuple[Connection, Connection] | None = None
        self._round_error: str | None = None

    def start(self) -> None:
        """Begin watching (call from the service's event loop); the fork server, which imports
        the forecasting code once, starts in the background and the first round starts the
        CPU lane's workers."""
        self._lifeline = worker_context().Pipe(duplex=False)
        threading.Thread(
            target=forkserver.ensure_running, name="chaplab-forkserver", daemon=True
        ).start()
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self._task = self._loop.create_task(self._watch(), name="chaplab-job-runner")

    async def stop(self) -> None:
        """Stop watching and end the workers; jobs they ran are failed at the next start. A
        round still running in its thread (the watching task's cancel does not stop it) is
        waited for, and none starts a worker or claims a job afterwards."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        with self._round:
            self._stopped = True
            with self._lock:
                workers = list(self._workers)
                self._workers.clear()
            for worker in workers:
                worker.process.terminate()
            for worker in workers:
                worker.process.join(timeout=5)
                worker.jobs.close()
            if self._lifeline is not None:
                for end in self._lifeline:
                    end.close()
                self._lifeline = None

    def wake(self) -> None:
        """A job was queued: start it as soon as a worker is free (thread-safe)."""
        if self._loop is not None and self._wake is not None:
            with contextlib.suppress(RuntimeError):  # the loop has closed: the runner stopped
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
        """Revoke a queued or running job (its worker process is terminated and replaced);
        returns the final status."""
        with self._lock:
            worker = next((w for w in self._workers if w.job_id == job_id), None)
            if worker is not None:  # its end is the cancel's, not a failure to record
                worker.job_id, worker.retired = None, True
        if worker is not None:
            worker.process.terminate()
            worker.process.join(timeout=5)
            self.wake()  # reap it and start its replacement
        with transaction(self._factory) as session:
            revoked = cast(
                CursorResult[Any],
                session.execute(
                    update(JobRow)
                    .where(JobRow.id == job_id, JobRow.status.in_(ACTIVE_STATUSES))
                    .values(status=REVOKED, end_time=utc_now(), error=CANCELLED)
                ),
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
                watched = list(self._workers)
            await self._sleep(watched)

    async def _sleep(self, watched: list[Worker]) -> None:
        """Until :meth:`wake`, a worker answers that its job ended (its pipe becomes readable:
        :meth:`_on_answer` announces the end from the event loop, without waiting for a round),
        a worker process ends (its sentinel does) or :data:`WATCH_INTERVAL_SECONDS` pass. The
        list holds the workers, so their pipes and sentinels stay open while they are watched
        (they are closed only between rounds, by :meth:`_step`)."""
        assert self._loop is not None and self._wake is not None
        descriptors = [w.process.sentinel for w in watched]
        for descriptor in descriptors:
            self._loop.add_reader(descriptor, self._wake.set)
        for worker in watched:
            if worker.job_id is not None and not worker.retired:
                descriptors.append(worker.jobs.fileno())
                self._loop.add_reader(descriptors[-1], self._on_answer, worker)
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), WATCH_INTERVAL_SECONDS)
        finally:
            for descriptor in descriptors:
                self._loop.remove_reader(descriptor)
        self._wake.clear()

    def _step(self) -> None:
        """Take the answers of workers whose jobs ended, reap ended workers (failing the jobs
        they left), then, while the service holds its database's lock, start each lane's
        workers and hand them queued jobs (nothing once the runner has stopped)."""
        with self._round:
            if not self._stopped:
                self._round_of_work()

    def _round_of_work(self) -> None:
        ended_jobs, lost_jobs = self._reap()
        if ended_jobs:  # the final status their workers committed is visible now
            self._announce_from_thread()
        failed = [
            job_id
            for job_id, exit_code in lost_jobs
            if fail_if_active(self._factory, job_id, ended_without_result(exit_code))
        ]
        if failed:
            self._announce_from_thread()
        if self._holds_database_lock():
            started = [job_id for lane in self.lanes for job_id in self._fill(lane)]
            if started:
                self._announce_from_thread()

    def _reap(self) -> tuple[int, list[tuple[str, int | None]]]:
        """Free the workers that answered their job ended, retire those that served
        :data:`JOBS_PER_WORKER` jobs or idle beyond their lane's ``ready``, and remove the
        ended ones; how many jobs ended and the jobs (with exit codes) of workers that ended
        without answering."""
        with self._lock:
            ended_jobs = sum(self._take_answer(worker) for worker in self._workers)
            ended = [w for w in self._workers if not w.process.is_alive()]
            for worker in ended:
                self._workers.remove(worker)
                if worker.job_id is None and not worker.retired:  # died waiting for a job
                    self._cold.add(worker.lane)
            for lane in self.lanes:
                idle = self._idle(lane)
                spare = len(idle) - lane.ready
                for worker in idle:
                    if worker.served >= JOBS_PER_WORKER or spare > 0:
                        worker.retired = True
                        worker.jobs.close()  # it receives end-of-file and exits
                        spare -= 1
        lost_jobs = []
        for worker in ended:
            worker.process.join()
            worker.jobs.close()
            if worker.job_id is not None:
                lost_jobs.append((worker.job_id, worker.process.exitcode))
        return ended_jobs, lost_jobs

    def _take_answer(self, worker: Worker) -> bool:
        """Read the busy ``worker``'s answer that its job ended, if it has sent it, and free
        the worker; whether it had (call holding ``_lock``)."""
        if worker.job_id is None or worker.retired:
            return False
        with contextlib.suppress(EOFError, OSError):  # an ended worker is reaped by a round
            if worker.jobs.poll():
                job_id, seconds = worker.jobs.recv()
                logger.debug(
                    "job %s ended after %.1f ms in worker process %s",
                    job_id,
                    seconds * 1000,
                    worker.process.pid,
                )
                if job_id == worker.job_id:
                    worker.job_id = None
                    worker.served += 1
                    self._cold.discard(worker.lane)
                    return True
        return False

    def _on_answer(self, worker: Worker) -> None:
        """On the event loop, when a busy worker's pipe becomes readable: take its answer and
        announce the job's end at once (the final status is committed), then wake the runner
        for a round that hands the worker its next job."""
        with self._lock:
            answered = self._take_answer(worker)
        if answered:
            self._announce()
        assert self._wake is not None
        self._wake.set()

    def _idle(self, lane: Lane) -> list[Worker]:
        """The lane's workers ready for a job (call holding ``_lock``)."""
        return [w for w in self._workers if w.lane is lane and w.job_id is None and not w.retired]

    def _fill(self, lane: Lane) -> list[str]:
        """Start the lane's ``ready`` workers (unless it is cold), claim as many queued jobs as
        it has room for and hand each to an idle worker (started for it when none is); the ids
        of the jobs handed."""
        with self._lock:
            live = [w for w in self._workers if w.lane is lane and not w.retired]
            busy = sum(w.job_id is not None for w in live)
            missing = 0 if lane in self._cold else min(lane.ready, lane.limit) - len(live)
        for _ in range(missing):
            try:
                self._start_worker(lane)
            except Exception:  # noqa: BLE001 - retried next round; a job that finds no worker fails
                logger.exception("job runner: a %s worker process could not start", lane.name)
                break
        handed: list[str] = []
        if busy >= lane.limit:
            return handed
        for job_id in claim_queued_jobs(self._factory, lane.limit - busy, lane.marker):
            with self._lock:
                idle = self._idle(lane)
            try:
                worker = idle[0] if idle else self._start_worker(lane)
            except Exception as error:  # noqa: BLE001 - recorded on the job
                reason = f"the worker process could not start: {type(error).__name__}: {error}"
                fail_if_active(self._factory, job_id, reason)
                continue
            with self._lock:  # a cancel finds the job's worker once it has the job
                worker.job_id = job_id
                with contextlib.suppress(OSError):  # it ended: reaped, and the job failed, next
                    worker.jobs.send(job_id)
            handed.append(job_id)
        return handed

    def _start_worker(self, lane: Lane) -> Worker:
        """Start a worker process of ``lane``, waiting for jobs."""
        assert self._lifeline is not None, "start() the runner before it starts workers"
        context = worker_context()
        ours, theirs = context.Pipe()
        try:
            process = context.Process(
                target=serve_jobs,
                args=(self.database_url, theirs, self._lifeline[0], self._settings),
                name=f"chaplab-{lane.name}-worker",
                daemon=True,
            )
            process.start()
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        worker = Worker(lane, process, ours)
        with self._lock:
            self._workers.append(worker)
        return worker

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
