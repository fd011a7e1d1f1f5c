"""The registry of external model runners (``/v2/services``): register, ping, list, remove."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from pydantic import Field

from chaplab.client._plumbing import Resource, require_id, require_name
from chaplab.client._steps import Operation
from chaplab.client._wire import NullableDict, SnakeModel

# -- wire models -----------------------------------------------------------------------------


class ModelRunner(SnakeModel):
    """An external model runner of the registry (``/v2/services``)."""

    id: int
    url: str
    info: NullableDict[Any] = Field(default_factory=dict)
    registered_at: datetime | None = None
    last_ping_at: datetime | None = None
    ping_count: int | None = None
    status: str | None = None
    stale_after_seconds: float | None = None

    @property
    def is_stale(self) -> bool:
        """True when the runner has not pinged within the service's limit."""
        return self.status == "stale"


# -- operations ------------------------------------------------------------------------------


class ModelRunners(Resource):
    """``/v2/services``: external model runners, each ``live`` or ``stale``."""

    def list_model_runners(self) -> Operation[list[ModelRunner]]:
        """Registered external model runners, each ``live`` or ``stale``."""
        return (yield from self._get(list[ModelRunner], "/v2/services"))

    def get_model_runner(self, runner_id: int) -> Operation[ModelRunner]:
        """One registered model runner."""
        runner_id = require_id("runner_id", runner_id)
        return (yield from self._get(ModelRunner, f"/v2/services/{runner_id}"))

    def register_model_runner(
        self, url: str, info: Mapping[str, Any] | None = None
    ) -> Operation[ModelRunner]:
        """Register a runner by its http(s) URL (again: updates its info and counts as a ping)."""
        body = {"url": require_name("url", url), "info": dict(info or {})}
        return (yield from self._call(ModelRunner, "POST", "/v2/services/$register", json=body))

    def ping_model_runner(self, runner_id: int) -> Operation[ModelRunner]:
        """Record that the runner is alive now."""
        runner_id = require_id("runner_id", runner_id)
        return (yield from self._call(ModelRunner, "PUT", f"/v2/services/{runner_id}/$ping"))

    def remove_model_runner(self, runner_id: int) -> Operation[None]:
        """Remove a runner from the registry."""
        runner_id = require_id("runner_id", runner_id)
        yield from self._request("DELETE", f"/v2/services/{runner_id}")
