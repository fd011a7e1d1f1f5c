"""The registry of external model runners (``/v2/services``, snake_case on the wire)."""

from __future__ import annotations

from fastapi import APIRouter, Response

from chaplab.service.domain import runners
from chaplab.service.routes.dependencies import DB
from chaplab.service.wire.runners import RunnerRead, RunnerRegistration

router = APIRouter(prefix="/v2/services", tags=["model runners"])


@router.get("")
def list_runners(session: DB) -> list[RunnerRead]:
    return runners.list_runners(session)


@router.get("/{runner_id}")
def get_runner(runner_id: int, session: DB) -> RunnerRead:
    return runners.get_runner(session, runner_id)


@router.post("/$register")
def register_runner(request: RunnerRegistration, session: DB) -> RunnerRead:
    """Register a runner by URL; registering a known URL again updates its info and counts as a
    ping."""
    return runners.register_runner(session, request)


@router.delete("/{runner_id}", status_code=204, response_class=Response)
def remove_runner(runner_id: int, session: DB) -> Response:
    runners.remove_runner(session, runner_id)
    return Response(status_code=204)


@router.put("/{runner_id}/$ping")
def ping_runner(runner_id: int, session: DB) -> RunnerRead:
    """Record that the runner is alive now."""
    return runners.ping_runner(session, runner_id)
