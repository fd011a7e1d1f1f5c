"""What ``/system/info`` tells: the API version spoken and the service's own, the server date and
time zone, whether a key is needed, the storage backend and the workers."""

from __future__ import annotations

import os
import platform
import time
from datetime import datetime

from chaplab import __version__
from chaplab.service.wire.system import SystemInfo

CHAP_CORE_API_VERSION = "2.5.1"
"""The chap-core release whose REST API the service speaks: DHIS2's Modeling App compares
``chap_core_version`` with the version it needs before it offers its features."""


def system_info(database_url: str, workers: int, auth_required: bool) -> SystemInfo:
    """The API version spoken, chaplab's version, Python's, the server date and time zone, the
    source revision (``$GIT_REVISION``, as chap-core reads it), whether a key is needed, the
    storage backend and the number of workers."""
    return SystemInfo(
        chap_core_version=CHAP_CORE_API_VERSION,
        chaplab_version=__version__,
        python_version=platform.python_version(),
        server_date=datetime.now().astimezone().isoformat(timespec="seconds"),
        server_time_zone_id=time_zone_id(),
        revision=os.environ.get("GIT_REVISION", ""),
        auth_required=auth_required,
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
