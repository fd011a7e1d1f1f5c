"""What ``/system/info`` tells: versions, server date and time zone, storage backend, workers."""

from __future__ import annotations

import platform
import time
from datetime import datetime

from chaplab import __version__
from chaplab.service.wire.system import SystemInfo


def system_info(database_url: str, workers: int) -> SystemInfo:
    """Service version, Python version, server date and time zone, storage backend, workers."""
    return SystemInfo(
        chap_core_version=__version__,
        chaplab_version=__version__,
        python_version=platform.python_version(),
        server_date=datetime.now().astimezone().isoformat(timespec="seconds"),
        server_time_zone_id=time_zone_id(),
        database_backend=database_url.split(":", 1)[0],
        workers=workers,
    )


def time_zone_id() -> str:
    """The IANA name of the server's zone where known, else its abbreviation."""
    try:
        with open("/etc/timezone", encoding="utf-8") as handle:
            return handle.read().strip() or time.tzname[0]
    except OSError:
        return "Etc/UTC" if time.tzname[0] == "UTC" else time.tzname[0]
