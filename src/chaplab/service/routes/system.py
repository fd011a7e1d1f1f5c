"""``/system/info``: versions and server time, also the client's connectivity probe."""

from __future__ import annotations

import platform
import time
from datetime import datetime

from fastapi import APIRouter

from chaplab import __version__
from chaplab.service.routes._deps import State
from chaplab.service.wire import SystemInfo

router = APIRouter(tags=["system"])


@router.get("/system/info")
def system_info(state: State) -> SystemInfo:
    """Service version, Python version, server date and time zone, storage backend, workers."""
    return SystemInfo(
        chap_core_version=__version__,
        chaplab_version=__version__,
        python_version=platform.python_version(),
        server_date=datetime.now().astimezone().isoformat(timespec="seconds"),
        server_time_zone_id=_time_zone_id(),
        database_backend=state.database_url.split(":", 1)[0],
        workers=state.workers,
    )


def _time_zone_id() -> str:
    """The IANA name of the server's zone where known, else its abbreviation."""
    try:
        with open("/etc/timezone", encoding="utf-8") as handle:
            return handle.read().strip() or time.tzname[0]
    except OSError:
        return "Etc/UTC" if time.tzname[0] == "UTC" else time.tzname[0]
