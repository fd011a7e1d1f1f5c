"""The registry of external model runners and debug entries, as sans-IO operations."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from chaplab.client._operations import Operations, _require_id, _require_name, operation
from chaplab.client._result_models import DebugEntry, ModelRunner
from chaplab.client._steps import Operation


class AdminOperations(Operations):
    @operation
    def list_model_runners(self) -> Operation[list[ModelRunner]]:
        """Registered external model runners, each ``live`` or ``stale``."""
        return (yield from self._get(list[ModelRunner], "/v2/services"))

    @operation
    def get_model_runner(self, runner_id: int) -> Operation[ModelRunner]:
        runner_id = _require_id("runner_id", runner_id)
        return (yield from self._get(ModelRunner, f"/v2/services/{runner_id}"))

    @operation
    def register_model_runner(
        self, url: str, info: Mapping[str, Any] | None = None
    ) -> Operation[ModelRunner]:
        """Register a runner by its http(s) URL (again: updates its info and counts as a ping)."""
        body = {"url": _require_name("url", url), "info": dict(info or {})}
        return (yield from self._call(ModelRunner, "POST", "/v2/services/$register", json=body))

    @operation
    def remove_model_runner(self, runner_id: int) -> Operation[None]:
        runner_id = _require_id("runner_id", runner_id)
        yield from self._request("DELETE", f"/v2/services/{runner_id}")

    @operation
    def ping_model_runner(self, runner_id: int) -> Operation[ModelRunner]:
        """Record that the runner is alive now."""
        runner_id = _require_id("runner_id", runner_id)
        return (yield from self._call(ModelRunner, "PUT", f"/v2/services/{runner_id}/$ping"))

    @operation
    def create_debug_entry(
        self, message: str, details: Mapping[str, Any] | None = None
    ) -> Operation[DebugEntry]:
        """Store a debug note (checks that writes reach the service's database)."""
        body = {"message": _require_name("message", message), "details": dict(details or {})}
        return (yield from self._call(DebugEntry, "POST", "/v1/crud/debug", json=body))

    @operation
    def get_debug_entry(self, entry_id: int) -> Operation[DebugEntry]:
        entry_id = _require_id("entry_id", entry_id)
        return (yield from self._get(DebugEntry, f"/v1/crud/debug/{entry_id}"))
