"""The readiness probes: whether the database answers with the schema this service reads and the
job runner works (``/health/ready``), and whether a worker process, started as a job's is, reaches
the database (``/health/probe``). Each check is ``ok`` or ``error: <reason>``."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from chaplab.service.db import SCHEMA_VERSION
from chaplab.service.tables import SchemaVersion
from chaplab.service.wire.health import READY, UNHEALTHY, ReadinessResponse

OK = "ok"
PROBE_TIMEOUT_SECONDS = 10.0
"""How long the probe waits for its worker process to answer."""

Check = Callable[[], str | None]
"""A check: None when it passes, else the reason it fails."""


def readiness(factory: sessionmaker[Session], runner_problem: Check) -> ReadinessResponse:
    """``db``: the database answers its schema version, this service's; ``job_runner``:
    ``runner_problem`` (the job runner's own check) finds nothing wrong."""
    return _answer({"db": lambda: database_problem(factory), "job_runner": runner_problem})


def probe(roundtrip: Callable[[float], str | None]) -> ReadinessResponse:
    """``worker_db_roundtrip``: ``roundtrip`` (the job runner's) starts a worker process that
    reads the database within :data:`PROBE_TIMEOUT_SECONDS`."""
    return _answer({"worker_db_roundtrip": lambda: roundtrip(PROBE_TIMEOUT_SECONDS)})


def database_problem(factory: sessionmaker[Session]) -> str | None:
    """Why the database cannot serve (it does not answer, or holds another schema), or None."""
    try:
        with factory() as session:
            found = session.scalar(select(SchemaVersion.version))
    except Exception as error:  # noqa: BLE001 - any failure makes the service not ready
        return f"{type(error).__name__}: {error}".splitlines()[0]
    if found != SCHEMA_VERSION:
        return f"the database has schema version {found}, not {SCHEMA_VERSION}"
    return None


def _answer(checks: dict[str, Check]) -> ReadinessResponse:
    results = {name: _outcome(check) for name, check in checks.items()}
    ready = all(result == OK for result in results.values())
    return ReadinessResponse(status=READY if ready else UNHEALTHY, checks=results)


def _outcome(check: Check) -> str:
    problem = check()
    return OK if problem is None else f"error: {problem}"
