"""The service itself: version and time zone, liveness and readiness, and debug notes that check
writes reach its database."""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import suppress
from typing import Any

from pydantic import Field

from chaplab.client._capabilities import Route, route_missing
from chaplab.client._errors import ChapDecodeError
from chaplab.client._plumbing import Resource, checked, parse, require_id, require_name
from chaplab.client._steps import Operation
from chaplab.client._wire import NullableDict, SnakeModel, UtcDatetime, WireModel

# -- wire models -----------------------------------------------------------------------------


class SystemInfo(SnakeModel):
    """``GET /system/info``: the chap-core API version the server speaks (chap-core's own
    release; ``2.5.1`` on chaplab's service, whose own release is ``chaplab_version``), server
    time, whether a key is needed, and more."""

    chap_core_version: str | None = None
    chaplab_version: str | None = None
    python_version: str | None = None
    server_date: str | None = None
    server_time_zone_id: str | None = None
    revision: str | None = None
    auth_required: bool | None = None

    @property
    def service_version(self) -> str | None:
        """The server's own release, named: ``chaplab 0.1.0`` or ``chap-core 2.5.1``."""
        if self.chaplab_version:
            return f"chaplab {self.chaplab_version}"
        return f"chap-core {self.chap_core_version}" if self.chap_core_version else None


class Health(SnakeModel):
    """``GET /health``: the liveness answer (``status`` when the server gives one)."""

    status: str | None = None


class Readiness(SnakeModel):
    """``GET /health/ready`` and ``/health/probe``: ``status`` (``success`` or ``unhealthy``)
    and each checked dependency's state (``{"db": "ok", ...}``)."""

    status: str
    checks: NullableDict[str] = Field(default_factory=dict)

    @property
    def ready(self) -> bool:
        """True when the server says every dependency it checked is fine."""
        return self.status == "success"


class DebugEntry(WireModel):
    """A stored debug note."""

    id: int
    message: str | None = None
    details: NullableDict[Any] = Field(default_factory=dict)
    created: UtcDatetime | None = None


# -- operations ------------------------------------------------------------------------------

_NO_DEBUG = (
    "nothing: write checks through a route this server has (create_configured_model(), then "
    "get_configured_model() reads it back)"
)
READINESS = Route("readiness", "GET", "/health/ready", "health(), which says the service answers")
PROBE = Route(
    "probe",
    "GET",
    "/health/probe",
    "health(); a job (run_evaluation) shows that the job runner and the database work",
)
CREATE_DEBUG = Route("create_debug_entry", "POST", "/v1/crud/debug", _NO_DEBUG)
GET_DEBUG = Route("get_debug_entry", "GET", "/v1/crud/debug/{id}", _NO_DEBUG)


class System(Resource):
    """``/system/info``, ``/health``, ``/health/ready``, ``/health/probe`` and
    ``/v1/crud/debug``."""

    def system_info(self) -> Operation[SystemInfo]:
        """Service version, server time zone and more (``GET /system/info``)."""
        return (yield from self._get(SystemInfo, "/system/info"))

    def health(self) -> Operation[Health]:
        """The liveness probe (``GET /health``)."""
        return (yield from self._get(Health, "/health"))

    def readiness(self) -> Operation[Readiness]:
        """Whether the service's dependencies (database, job queue, workers) answer
        (``GET /health/ready``). An unhealthy server's answer (503) is returned, not raised:
        ``.ready`` is False and ``.checks`` says which dependency failed."""
        return (yield from self._readiness(READINESS))

    def probe(self) -> Operation[Readiness]:
        """A deeper check than ``readiness``: a task runs on a worker and reads the database
        (``GET /health/probe``). A failed probe (503) is returned, not raised."""
        return (yield from self._readiness(PROBE))

    def _readiness(self, route: Route) -> Operation[Readiness]:
        routes = yield from self._offered(route)
        response = yield from self._send("GET", route.path)
        if not routes.known and route_missing(response):
            raise routes.unsupported(route)
        if response.status_code == 503:
            with suppress(ChapDecodeError):  # a gateway's 503 page is an error, not an answer
                return parse(Readiness, response)
        return parse(Readiness, checked(response))

    def create_debug_entry(
        self, message: str, details: Mapping[str, Any] | None = None
    ) -> Operation[DebugEntry]:
        """Store a debug note (checks that writes reach the service's database)."""
        body = {"message": require_name("message", message), "details": dict(details or {})}
        return (yield from self._call_route(DebugEntry, CREATE_DEBUG, json=body))

    def get_debug_entry(self, entry_id: int) -> Operation[DebugEntry]:
        """One stored debug note."""
        entry_id = require_id("entry_id", entry_id)
        return (yield from self._call_route(DebugEntry, GET_DEBUG, entry_id))
