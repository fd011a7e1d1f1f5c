"""The work a job's worker process does: evaluate, predict or store a dataset, and record how
the job ended (:func:`run_job`, the entry point the job runner starts).

A worker opens its own database session and writes its result (the new row, its samples and
the job's SUCCESS with the row's id) in ONE transaction, so a half-written evaluation is never
listed. An exception becomes FAILURE with a readable error and the traceback in the job's logs.

The final write is fenced: it ends the job with one conditional UPDATE that matches only while
the job is still STARTED with the start time this worker read at its beginning (the attempt).
When the job was ended meanwhile (cancelled, or failed by a restarted service as interrupted),
the UPDATE matches no row and the whole transaction, result rows included, is rolled back.

A job's log lines are committed in batches (:class:`JobLog`): those of a short job together
with its final status, in that one transaction, and a long job's about every
:data:`LOG_FLUSH_SECONDS` (a timer commits a line that waits that long even when no other line
follows), so a small job costs one commit instead of one per line.

A worker process is warm and serves many jobs (:func:`serve_jobs`, the entry point the job
runner starts ahead of time): it lowers its priority, ties its life to the service's and opens
its database engine once, then runs each job id the runner sends it and answers the id when the
job has ended. Its engine keeps its connections and compiled statements from job to job.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from datetime import datetime
from multiprocessing.connection import Connection
from typing import Any, cast

import numpy as np
from sqlalchemy import CursorResult, select, update
from sqlalchemy.orm import Session, sessionmaker

from chaplab.service.db import make_engine, session_factory, transaction
from chaplab.service.forecasting import run_backtest
from chaplab.service.forecasting.weather import WEATHER_PROVIDERS
from chaplab.service.job_types import DatasetPayload, EvaluationPayload, PredictionPayload
from chaplab.service.metrics import finite_metrics
from chaplab.service.registered_templates import template_spec, template_version
from chaplab.service.remote_models import remote_model
from chaplab.service.storage import DatasetContent, add_dataset_row, panel_of, samples_to_bytes
from chaplab.service.tables import (
    ConfiguredModelRow,
    ConfiguredModelWithDataSourceRow,
    DatasetRow,
    EvaluationRow,
    JobLogRow,
    JobRow,
    PredictionRow,
    PredictionSetupForecastRow,
    PredictionSetupRow,
    SchemaVersion,
    finished_line,
    utc_now,
)
from chaplab.vocabulary import FAILURE, STARTED, SUCCESS, JobType

N_SAMPLES = 100
SERVICE_GONE_EXIT_CODE = 70
"""A worker's exit code when it ended because the service that started it is gone."""
WORKER_NICENESS = 19
"""How much lower a worker's CPU priority is than the service's (added to its nice value, which
the kernel stops at 19, the lowest)."""
SETTINGS_PREFIX = "CHAPLAB_"
"""The prefix of the environment variables that set the service and its workers up."""
LOG_FLUSH_SECONDS = 1.0
"""How long a job's log line may wait to be committed with the lines after it."""

Log = Callable[[str], None]
Write = Callable[[Session], int]
"""Adds a job's rows to the session of its final transaction; returns the new row's id."""
Work = Callable[[sessionmaker[Session], JobRow, Log], Write]
"""Reads the job's payload (its type's model) and inputs and computes outside any write
transaction, then hands back its writer."""
SEED = 0
"""The seed of every job's random streams: a job run again draws the same samples."""


def evaluate(factory: sessionmaker[Session], job: JobRow, log: Log) -> Write:
    """Run a rolling-origin evaluation by the payload's plan; the writer adds the evaluation
    row, filed under the payload's specification."""
    payload = EvaluationPayload.model_validate(job.payload)
    with factory() as session:
        dataset = session.get_one(DatasetRow, payload.dataset_id)
        model = session.get_one(ConfiguredModelRow, payload.configured_model_id)
        template = template_spec(model.template)
        version = template_version(model.template)
        remote = remote_model(session, model)
        panel = panel_of(dataset)
    weather, plan = WEATHER_PROVIDERS[payload.future_weather_provider], payload.plan
    log(
        f"evaluating {model.name} on dataset {dataset.name!r} ({panel.n_org_units} org units), "
        f"future weather: {weather.id}"
    )
    n_samples = N_SAMPLES
    if remote is not None:  # the splits are forecast on the model service first
        template, n_samples = remote.backtest_template(panel, plan, weather, log)
    result = run_backtest(
        template,
        model.user_option_values,
        panel,
        plan,
        n_samples=n_samples,
        seed=SEED,
        progress=lambda fraction, message: log(f"{fraction:4.0%} {message}"),
        weather=weather,
        additional_covariates=model.additional_continuous_covariates,
    )

    def write(session: Session) -> int:
        row = EvaluationRow(
            name=payload.name,
            dataset_id=dataset.id,
            configured_model_id=model.id,
            org_units=result.org_units,
            split_periods=result.split_periods,
            periods=result.periods,
            n_periods=plan.n_periods,
            n_splits=plan.n_splits,
            stride=plan.stride,
            n_samples=n_samples,
            future_weather_provider=weather.id,
            aggregate_metrics=finite_metrics(result.aggregate_metrics),
            samples=samples_to_bytes(result.samples),
            specification_id=payload.specification_id,
            model_template_version=version,
        )
        session.add(row)
        session.flush()
        return row.id

    return write


def predict(factory: sessionmaker[Session], job: JobRow, log: Log) -> Write:
    """Forecast ``n_periods`` after the provided data; the writer stores the data as a
    prediction dataset and the prediction, which joins the history of the prediction setup
    the job was run from (unless the setup was deleted meanwhile)."""
    payload, setup_id = PredictionPayload.model_validate(job.payload), job.prediction_setup_id
    with factory() as session:
        bundle = session.get_one(
            ConfiguredModelWithDataSourceRow, payload.configured_model_with_data_source_id
        )
        model = bundle.configured_model
        template = template_spec(model.template)
        remote = remote_model(session, model)
    content = DatasetContent.from_payload(payload.dataset)
    n_periods = payload.n_periods
    log(
        f"forecasting {n_periods} periods with {model.name} "
        f"for {content.panel.n_org_units} org units"
    )
    if remote is not None:
        samples = remote.forecast(content.panel, n_periods, log)
    else:
        samples = template.forecast(
            content.panel,
            n_periods,
            N_SAMPLES,
            model.user_option_values,
            np.random.default_rng(SEED),
            additional_covariates=model.additional_continuous_covariates,
        )

    def write(session: Session) -> int:
        dataset = add_dataset_row(
            session, payload.name, "prediction", content, created_manually=False
        )
        row = PredictionRow(
            name=payload.name,
            dataset_id=dataset.id,
            configured_model_with_data_source_id=bundle.id,
            org_units=content.panel.org_units,
            periods=content.panel.periods_after(n_periods),
            n_periods=n_periods,
            n_samples=samples.shape[-1],
            samples=samples_to_bytes(samples),
            meta_data=payload.meta_data,
        )
        session.add(row)
        session.flush()
        if setup_id is not None and session.get(PredictionSetupRow, setup_id) is not None:
            session.add(
                PredictionSetupForecastRow(prediction_id=row.id, prediction_setup_id=setup_id)
            )
        return row.id

    return write


def store_dataset(factory: sessionmaker[Session], job: JobRow, log: Log) -> Write:
    """Store a validated dataset; the writer returns its id."""
    payload = DatasetPayload.model_validate(job.payload)
    content = DatasetContent.from_payload(payload.dataset)

    def write(session: Session) -> int:
        return add_dataset_row(
            session, payload.name, payload.type, content, created_manually=True
        ).id

    log(f"storing {content.size()}")
    return write


WORK: dict[JobType, Work] = {
    JobType.CREATE_BACKTEST: evaluate,
    JobType.CREATE_BACKTEST_FROM_DATA: evaluate,
    JobType.RUN_BASELINE: evaluate,
    JobType.CREATE_PREDICTION: predict,
    JobType.CREATE_DATASET: store_dataset,
}
"""The work of each job type (its payload model is :data:`chaplab.service.job_types.PAYLOADS`')."""


class JobEndedElsewhere(Exception):
    """The job was ended by someone else (cancelled, or failed by a restarted service) while
    this worker ran; raised inside the final transaction to roll all of it back."""


def exit_with_service(lifeline: Connection) -> None:
    """End this process as soon as the service that started it is gone.

    ``lifeline`` is the read end of a pipe whose only write end the service holds and never
    writes to: a read returns only at end-of-file, when the service has ended (however it
    ended). A daemon thread waits for it and leaves with ``os._exit``, without cleanup: an
    uncommitted write transaction is simply never committed."""

    def wait_for_the_service() -> None:
        with contextlib.suppress(EOFError, OSError):
            lifeline.recv_bytes()
        os._exit(SERVICE_GONE_EXIT_CODE)

    threading.Thread(target=wait_for_the_service, name="chaplab-lifeline", daemon=True).start()


def lower_priority() -> None:
    """Lower this process's CPU priority by :data:`WORKER_NICENESS` (at most to nice 19).

    Jobs are CPU-bound and the service starts as many as there are cores, so at the service's
    priority they would share the cores evenly with the API and every request would wait for a
    scheduling slice. A nice-19 process weighs about a seventieth of a nice-0 one: a request
    wakes the service, which takes a core at once (at nice 10, a tenth, the p95 of a list
    request while 4 evaluations ran on 2 cores was 6 ms, 3.3x idle; at 19, 3.5-4 ms, figure 5
    of ``make bench``). Threads inherit the value, so it is set first."""
    os.nice(WORKER_NICENESS)


class JobLog:
    """A job's log (called with a line): lines wait in memory and are committed together, by
    :meth:`flush` once :data:`LOG_FLUSH_SECONDS` have passed since the last commit, or in the
    transaction that ends the job (:meth:`write_to`). Each line keeps the time it was logged.
    A worker killed (cancelled, or the service gone) loses the lines it had not committed.

    Threads may log at once (a model service's backtest logs from its split threads): the
    waiting lines are guarded by a lock, one thread at a time commits them, and a commit removes
    only the lines it wrote, never one logged while it ran."""

    def __init__(self, factory: sessionmaker[Session], job_id: str) -> None:
        self._factory = factory
        self._job_id = job_id
        self._pending: list[tuple[datetime, str]] = []
        self._taken = 0
        """How many of the waiting lines the last :meth:`write_to` added to its session."""
        self._lock = threading.Lock()
        self._committing = threading.Lock()
        self._flushed = time.monotonic()

    @contextlib.contextmanager
    def flushed_every_interval(self) -> Iterator[None]:
        """While the block runs, a timer thread commits the waiting lines every
        :data:`LOG_FLUSH_SECONDS`, so a long step's line reaches the database within about that
        long even when no line follows it. The timer has stopped when the block ends (before
        the job's final transaction takes the remaining lines)."""
        stop = threading.Event()

        def flush_until_stopped() -> None:
            while not stop.wait(LOG_FLUSH_SECONDS):
                self.flush()

        timer = threading.Thread(target=flush_until_stopped, name="chaplab-log-flush", daemon=True)
        timer.start()
        try:
            yield
        finally:
            stop.set()
            timer.join()

    def __call__(self, line: str) -> None:
        self.record(line)
        # a line logged while another thread commits waits for the next commit
        if time.monotonic() - self._flushed >= LOG_FLUSH_SECONDS and self._committing.acquire(
            blocking=False
        ):
            try:
                self._commit()
            finally:
                self._committing.release()

    def record(self, line: str) -> None:
        """Keep ``line`` for the next commit."""
        with self._lock:
            self._pending.append((utc_now(), line))

    def write_to(self, session: Session) -> None:
        """Add the waiting lines to ``session``; they stay waiting until :meth:`written`
        (a transaction rolled back leaves them to the next commit)."""
        with self._lock:
            taken = self._pending.copy()
            self._taken = len(taken)
        session.add_all(
            JobLogRow(job_id=self._job_id, time=logged, line=line) for logged, line in taken
        )

    def written(self) -> None:
        """The transaction :meth:`write_to` added the waiting lines to was committed."""
        with self._lock:
            del self._pending[: self._taken]
            self._taken = 0
            self._flushed = time.monotonic()

    def flush(self) -> None:
        """Commit the waiting lines in a transaction of their own."""
        with self._committing:
            self._commit()

    def _commit(self) -> None:
        with self._lock:
            waiting = bool(self._pending)
        if waiting:
            with transaction(self._factory) as session:
                self.write_to(session)
            self.written()


def service_settings() -> dict[str, str]:
    """The service's settings read from the environment (``CHAPLAB_*`` variables), as they
    are now: the job runner hands them to each worker (see :func:`use_service_settings`)."""
    return {name: value for name, value in os.environ.items() if name.startswith(SETTINGS_PREFIX)}


def use_service_settings(settings: dict[str, str]) -> None:
    """Make this process's ``CHAPLAB_*`` environment ``settings``. A worker is forked from the
    fork server, which has the environment of the moment it started: in a process that makes
    more than one service (tests, notebooks) that may be before this service's settings were
    set, so a worker would otherwise run with another service's limits or the defaults."""
    for name in [name for name in os.environ if name.startswith(SETTINGS_PREFIX)]:
        if name not in settings:
            del os.environ[name]
    os.environ.update(settings)


def run_job(
    database_url: str,
    job_id: str,
    lifeline: Connection | None = None,
    settings: dict[str, str] | None = None,
) -> None:
    """Do one job's work in this process and record how it ended, with an engine of its own
    (the demo seed and tests call it directly). With a ``lifeline`` this process becomes a
    worker process (see :func:`become_worker`)."""
    if lifeline is not None:
        become_worker(lifeline, settings)
    elif settings is not None:
        use_service_settings(settings)
    engine = make_engine(database_url)
    try:
        do_job(session_factory(engine), job_id)
    finally:
        engine.dispose()


def serve_jobs(
    database_url: str,
    jobs: Connection,
    lifeline: Connection,
    settings: dict[str, str],
) -> None:
    """Warm worker-process entry point: become a worker, open the engine once, then run every
    job id received on ``jobs`` and send back the id and the seconds the job took here once it
    has ended. Returns when the runner closes its end of ``jobs`` (it retires the worker); a
    cancel kills the process."""
    become_worker(lifeline, settings)
    engine = make_engine(database_url)
    factory = session_factory(engine)
    try:
        while True:
            try:
                job_id = jobs.recv()
            except EOFError:
                return
            started = time.perf_counter()
            do_job(factory, job_id)
            jobs.send((job_id, time.perf_counter() - started))
    finally:
        engine.dispose()


def become_worker(lifeline: Connection, settings: dict[str, str] | None) -> None:
    """Make this process a job worker: at a lower CPU priority than the service, ending when
    the service does (``lifeline``), with the service's ``settings``
    (:func:`service_settings`), which the work reads from this process's environment.

    It ignores SIGINT: a Ctrl-C in the service's terminal reaches the whole process group, and
    a worker waiting for a job would print a KeyboardInterrupt traceback; it ends with the
    service through its lifeline instead."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    lower_priority()
    exit_with_service(lifeline)
    if settings is not None:
        use_service_settings(settings)


def do_job(factory: sessionmaker[Session], job_id: str) -> None:
    """Do the job's work and record how it ended (a job no longer STARTED is left alone)."""
    log = JobLog(factory, job_id)
    attempt: datetime | None = None
    try:
        with factory() as session:
            job = session.get_one(JobRow, job_id)
            status, attempt = job.status, job.start_time
        if status != STARTED or attempt is None:  # ended before the worker began: do no work
            return
        niceness = os.getpriority(os.PRIO_PROCESS, 0)
        log(f"worker process {os.getpid()} started at niceness {niceness}")
        with log.flushed_every_interval():
            write = WORK[JobType(job.type)](factory, job, log)
        with transaction(factory) as session:  # the waiting log lines land with the SUCCESS
            result_id = write(session)
            finish(session, job_id, attempt, SUCCESS, result=str(result_id))
            log.write_to(session)
            session.add(JobLogRow(job_id=job_id, line=finished_line(result_id)))
        log.written()
    except JobEndedElsewhere:
        log.record("the job had already ended when its work was done: the result was not stored")
        log.flush()
    except Exception as error:  # noqa: BLE001 - every failure is recorded on the job
        for line in traceback.format_exc().rstrip().splitlines():
            log.record(line)
        if attempt is not None:
            try:
                with transaction(factory) as session:  # the traceback lands with the FAILURE
                    log.write_to(session)
                    finish(session, job_id, attempt, FAILURE, error=readable_error(error))
                log.written()
            except JobEndedElsewhere:
                pass
        log.flush()  # lines no final write took (the job was not read, or ended elsewhere)


def finish(
    session: Session,
    job_id: str,
    attempt: datetime,
    status: str,
    result: str | None = None,
    error: str | None = None,
) -> None:
    """Record the end of the job in ``session`` if this attempt still runs it; otherwise raise
    :class:`JobEndedElsewhere` (so the caller's transaction rolls back)."""
    outcome = cast(
        CursorResult[Any],
        session.execute(
            update(JobRow)
            .where(JobRow.id == job_id, JobRow.status == STARTED, JobRow.start_time == attempt)
            .values(status=status, end_time=utc_now(), result=result, error=error)
        ),
    )
    if not outcome.rowcount:
        raise JobEndedElsewhere(job_id)


def readable_error(error: BaseException) -> str:
    """``ValueError: the reason`` (the exception's own text, without a traceback)."""
    return f"{type(error).__name__}: {error}"


def read_schema_version(database_url: str, answer: Connection) -> None:
    """Worker-process entry point of the readiness probe: open the database as a job's worker
    does, read its schema version and send it (or the error, as text) back on ``answer``."""
    engine = make_engine(database_url)
    try:
        with engine.connect() as connection:
            version = connection.scalar(select(SchemaVersion.version))
        answer.send(version)
    except Exception as error:  # noqa: BLE001 - the probe reports every failure
        answer.send(readable_error(error))
    finally:
        answer.close()
        engine.dispose()
