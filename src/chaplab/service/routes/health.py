"""Readiness probes in chap-core 2.5.1's shape: ``/health/ready`` checks the database and the job
runner, ``/health/probe`` a worker process's round trip to the database. 200 when every check
is ``ok``, 503 naming the failing check otherwise (``/health`` itself is the toolkit's)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from chaplab.service.domain import health
from chaplab.service.routes.dependencies import State
from chaplab.service.wire.health import READY, ReadinessResponse

router = APIRouter(prefix="/health", tags=["system"])
ANSWERS: dict[int | str, dict[str, object]] = {
    503: {"model": ReadinessResponse, "description": "a check failed; it says why"}
}


@router.get("/ready", response_model=ReadinessResponse, responses=ANSWERS)
def ready(state: State) -> JSONResponse:
    """Whether the service can take work: ``db`` and ``job_runner``."""
    return _response(health.readiness(state.factory, state.runner.problem))


@router.get("/probe", response_model=ReadinessResponse, responses=ANSWERS)
def probe(state: State) -> JSONResponse:
    """Whether a worker process starts and reaches the database: ``worker_db_roundtrip``."""
    return _response(health.probe(state.runner.roundtrip))


def _response(answer: ReadinessResponse) -> JSONResponse:
    status = 200 if answer.status == READY else 503
    return JSONResponse(answer.model_dump(mode="json"), status_code=status)
