"""``/system/info``: versions and server time, also the client's connectivity probe."""

from __future__ import annotations

from fastapi import APIRouter

from chaplab.service.domain import system
from chaplab.service.routes.dependencies import State
from chaplab.service.wire.system import SystemInfo

router = APIRouter(tags=["system"])


@router.get("/system/info")
def system_info(state: State) -> SystemInfo:
    """Service version, Python version, server date and time zone, storage backend, workers."""
    return system.system_info(state.database_url, state.workers)
