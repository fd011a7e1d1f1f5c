"""``create_app``: the embedded modeling service as an ASGI app.

Built with the toolkit's :class:`ServiceBuilder` (landing page, docs, ``/health``, API keys,
problem details). When the app is created the database is created or its schema version checked.
At start-up the service takes the database's lock (one service per SQLite file or PostgreSQL
database, see :mod:`chaplab.service.instance_lock`), then jobs a stopped service left unfinished
are failed, templates are synchronised, a new database gets the demo content, and the job runner
starts.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from sqlalchemy import text
from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse

from chaplab import __version__
from chaplab.service.db import database_url as to_database_url
from chaplab.service.db import make_engine, prepare_database, session_factory
from chaplab.service.errors import (
    Conflict,
    FieldProblem,
    Invalid,
    Missing,
    ModelServiceFailure,
    NotFound,
    Refused,
    ServiceError,
    Unauthenticated,
)
from chaplab.service.instance_lock import InstanceLock, holding
from chaplab.service.job_runner import DEFAULT_WORKERS, JobRunner, fail_interrupted_jobs
from chaplab.service.paths import default_data_dir
from chaplab.service.routes import ROUTERS
from chaplab.service.routes.dependencies import ServiceState
from chaplab.service.seed import seed_demo as store_demo_content
from chaplab.service.seed import sync_templates
from chaplab.toolkit import (
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_UNAUTHENTICATED_PATHS,
    ServiceBuilder,
    problem_response,
)

API_KEY_FILE_VARIABLE = "SERVICE_API_KEY_FILE"
API_KEYS_VARIABLE = "SERVICE_API_KEYS"
OPEN_PATHS = DEFAULT_UNAUTHENTICATED_PATHS | {"/system/info"}
"""Open without a key: the toolkit's open paths and, as on chap-core 2.5.1, ``/system/info``,
whose ``auth_required`` tells a client that it needs one."""
DESCRIPTION = (
    "Datasets, model templates, configured models, evaluations (backtests) and predictions of "
    "disease-forecasting models. Evaluations and predictions run as background jobs."
)


def auth_configured(
    api_keys: Sequence[str] | None, api_key_file: str | os.PathLike[str] | None
) -> bool:
    """Whether keys are given directly, as a file, or through the environment."""
    return bool(
        api_keys is not None
        or api_key_file is not None
        or os.environ.get(API_KEY_FILE_VARIABLE)
        or os.environ.get(API_KEYS_VARIABLE)
    )


def service_database_url(database: str | os.PathLike[str] | None) -> str:
    """The SQLAlchemy URL of ``database`` (a URL or a SQLite file path); by default
    ``chaplab.db`` in the data folder."""
    return to_database_url(database, None if database is not None else default_data_dir())


def create_app(
    database_url: str | os.PathLike[str] | None = None,
    api_keys: Sequence[str] | None = None,
    api_key_file: str | os.PathLike[str] | None = None,
    workers: int | None = None,
    seed_demo: bool = True,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    *,
    instance_lock: InstanceLock | None = None,
) -> FastAPI:
    """The service on ``database_url`` (a SQLAlchemy URL or a SQLite file path; default
    ``chaplab.db`` in the data folder). Auth is on when keys are given (``api_keys``,
    ``api_key_file``, ``$SERVICE_API_KEY_FILE`` or ``$SERVICE_API_KEYS``). A request body over
    ``max_body_bytes`` (default 512 MiB, room for a national weekly dataset) is answered 413.
    Raises ``SchemaVersionError`` for a database of another schema version.

    A SQLite file or PostgreSQL database is served by one service at a time: the app takes its
    lock at start-up and refuses to start (``DatabaseInUseError``) while another service holds
    it, and lets it go at shutdown. ``instance_lock`` is that lock already taken by the caller
    (``chaplab serve`` takes it before preparing the database and records its URL in it); it
    stays the caller's."""
    url = service_database_url(database_url)
    lock = _database_lock(url, instance_lock)
    worker_count = DEFAULT_WORKERS if workers is None else workers
    auth_required = auth_configured(api_keys, api_key_file)
    engine = make_engine(url)
    is_new = prepare_database(engine)
    factory = session_factory(engine)
    state = ServiceState(
        database_url=url,
        factory=factory,
        runner=JobRunner(url, factory, worker_count, lock),
        workers=worker_count,
        auth_required=auth_required,
    )

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        with holding(lock):
            fail_interrupted_jobs(factory)
            sync_templates(factory)
            if is_new and seed_demo:
                await run_in_threadpool(store_demo_content, url, factory)
            state.runner.start()
            try:
                yield
            finally:
                await state.runner.stop()
                engine.dispose()

    def database_answers() -> bool:
        with factory() as session:
            return session.execute(text("SELECT 1")).scalar() == 1

    builder = (
        ServiceBuilder(
            title="chaplab modeling service", version=__version__, description=DESCRIPTION
        )
        .with_lifespan(lifespan)
        .with_limits(max_body_bytes=max_body_bytes)
        .with_health_check(database_answers)
        .with_exception_handler(ServiceError, _service_error)
    )
    if auth_required:
        key_file = (
            api_key_file if api_key_file is not None else os.environ.get(API_KEY_FILE_VARIABLE)
        )
        builder = builder.with_auth(
            api_keys=api_keys,
            api_key_file=key_file or None,
            env_var=API_KEYS_VARIABLE,
            unauthenticated_paths=OPEN_PATHS,
        )
    for router in ROUTERS:
        builder = builder.include_router(router)
    app = builder.build()
    app.state.service = state
    return app


def _database_lock(url: str, given: InstanceLock | None) -> InstanceLock | None:
    """The lock of the database at ``url`` (None where none applies), ``given`` if it is that."""
    own = InstanceLock.for_url(url)
    if given is None:
        return own
    if own is None or own.database != given.database:
        raise ValueError(f"instance_lock is the lock of {given.database}, not of {url}")
    return given


PROBLEM_STATUSES: dict[type[ServiceError], int] = {
    Refused: 400,
    Unauthenticated: 401,
    NotFound: 404,
    Missing: 404,
    Conflict: 409,
    FieldProblem: 422,
    Invalid: 422,
    ModelServiceFailure: 502,
}
"""The status each kind of the service's errors is answered with: the one place they meet HTTP."""


async def _service_error(request: Request, error: Exception) -> JSONResponse:
    """The service's own error as problem details of its kind's status."""
    assert isinstance(error, ServiceError)
    status = next(
        PROBLEM_STATUSES[kind] for kind in type(error).__mro__ if kind in PROBLEM_STATUSES
    )
    return problem_response(
        status,
        instance=request.url.path,
        detail=error.detail,
        errors=error.problems or None,
        extensions=error.extensions,
    )
