"""The service itself: version and time zone, liveness, and debug notes that check writes reach
its database."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from pydantic import Field

from chaplab.client._capabilities import Route
from chaplab.client._plumbing import Resource, require_id, require_name
from chaplab.client._steps import Operation
from chaplab.client._wire import NullableDict, SnakeModel, WireModel

# -- wire models -----------------------------------------------------------------------------


class SystemInfo(SnakeModel):
    """``GET /system/info``: service version, server time and more."""

    chap_core_version: str | None = None
    python_version: str | None = None
    server_date: str | None = None
    server_time_zone_id: str | None = None


class Health(SnakeModel):
    """``GET /health``: the liveness answer (``status`` when the server gives one)."""

    status: str | None = None


class DebugEntry(WireModel):
    """A stored debug note."""

    id: int
    message: str | None = None
    details: NullableDict[Any] = Field(default_factory=dict)
    created: datetime | None = None


# -- operations ------------------------------------------------------------------------------

_NO_DEBUG = (
    "nothing: write checks through a route this server has (create_configured_model(), then "
    "get_configured_model() reads it back)"
)
CREATE_DEBUG = Route("create_debug_entry", "POST", "/v1/crud/debug", _NO_DEBUG)
GET_DEBUG = Route("get_debug_entry", "GET", "/v1/crud/debug/{id}", _NO_DEBUG)


class System(Resource):
    """``/system/info``, ``/health`` and ``/v1/crud/debug``."""

    def system_info(self) -> Operation[SystemInfo]:
        """Service version, server time zone and more (``GET /system/info``)."""
        return (yield from self._get(SystemInfo, "/system/info"))

    def health(self) -> Operation[Health]:
        """The liveness probe (``GET /health``)."""
        return (yield from self._get(Health, "/health"))

    def create_debug_entry(
        self, message: str, details: Mapping[str, Any] | None = None
    ) -> Operation[DebugEntry]:
        """Store a debug note (checks that writes reach the service's database)."""
        body = {"message": require_name("message", message), "details": dict(details or {})}
        return (yield from self._call_route(DebugEntry, CREATE_DEBUG, CREATE_DEBUG.path, json=body))

    def get_debug_entry(self, entry_id: int) -> Operation[DebugEntry]:
        """One stored debug note."""
        entry_id = require_id("entry_id", entry_id)
        return (yield from self._call_route(DebugEntry, GET_DEBUG, f"/v1/crud/debug/{entry_id}"))
