"""``/system/info``: versions and server time, also the client's connectivity probe."""

from __future__ import annotations

from fastapi import APIRouter

from chaplab.service.domain import system
from chaplab.service.routes.dependencies import State
from chaplab.service.wire.system import SystemInfo

router = APIRouter(tags=["system"])


@router.get("/system/info")
def system_info(state: State) -> SystemInfo:
    """The chap-core API version spoken (``chap_core_version``), chaplab's own version, Python's,
    the server date and time zone, the source revision, whether a key is needed, the storage
    backend and the workers. Open without a key, as chap-core 2.5.1's: it is how a client learns
    that one is needed."""
    return system.system_info(state.database_url, state.workers, state.auth_required)
