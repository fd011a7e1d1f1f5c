"""Wire model of the readiness probes (``/health/ready``, ``/health/probe``), chap-core 2.5.1's
``ReadinessResponse``."""

from __future__ import annotations

from chaplab.service.wire.common import WireModel

READY = "success"
UNHEALTHY = "unhealthy"


class ReadinessResponse(WireModel):
    """``success`` when every check is ``ok``, else ``unhealthy``; each failing check says
    ``error: <reason>``."""

    status: str
    checks: dict[str, str]
