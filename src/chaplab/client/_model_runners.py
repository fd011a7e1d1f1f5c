"""The registry of external model runners (``/v2/services``): register, ping, list, remove."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

import httpx
from pydantic import Field, field_validator

from chaplab.client._errors import ArgumentError, ArgumentTypeError
from chaplab.client._plumbing import Resource, decode, parse, require_name, validate
from chaplab.client._steps import Operation
from chaplab.client._wire import NullableDict, SnakeModel, UtcDatetime

# -- wire models -----------------------------------------------------------------------------


class ModelRunner(SnakeModel):
    """A model service of the registry (``/v2/services``), registered under its own id (a
    slug such as ``"chaplab-mean"``); it stays registered until ``expires_at`` unless it pings.
    ``status`` and ``ping_count`` are what older embedded services answered."""

    id: str
    url: str
    info: NullableDict[Any] = Field(default_factory=dict)
    registered_at: UtcDatetime | None = None
    last_updated: UtcDatetime | None = None
    last_ping_at: UtcDatetime | None = None
    expires_at: UtcDatetime | None = None
    ping_count: int | None = None
    status: str | None = None
    stale_after_seconds: float | None = None

    @field_validator("id", mode="before")
    @classmethod
    def _as_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value

    @property
    def is_stale(self) -> bool:
        """True when the runner has not pinged within the service's limit."""
        return self.status == "stale"


# -- operations ------------------------------------------------------------------------------


class ModelRunners(Resource):
    """``/v2/services``: external model runners (``live`` or ``stale`` on the embedded service;
    chap-core 2.5.1 drops a runner that has not pinged within its ``ttl_seconds``)."""

    def list_model_runners(self) -> Operation[list[ModelRunner]]:
        """Registered external model runners (a list, or chap-core 2.5.1's
        ``{count, services}``)."""
        response = yield from self._request("GET", "/v2/services")
        payload = decode(response)
        if isinstance(payload, dict) and "services" in payload:
            payload = payload["services"]
        return validate(list[ModelRunner], payload, response)

    def get_model_runner(self, runner_id: str | int) -> Operation[ModelRunner]:
        """One registered model runner."""
        return (yield from self._get(ModelRunner, _runner_path(runner_id)))

    def register_model_runner(
        self, url: str, info: Mapping[str, Any] | None = None, service_key: str | None = None
    ) -> Operation[ModelRunner]:
        """Register a model service by its http(s) URL, as servicekit does (again: updates its
        URL and info and counts as a ping). ``info`` is chapkit's service info: ``id`` (the
        runner's id), ``display_name``, ``model_metadata`` and ``period_type`` at least.
        ``service_key`` is the registration key, where the server wants one
        (``X-Service-Key``)."""
        body = {"url": require_name("url", url), "info": dict(info or {})}
        response = yield from self._request(
            "POST", "/v2/services/$register", json=body, headers=_key_header(service_key)
        )
        return (yield from self._runner_from(response))

    def ping_model_runner(
        self, runner_id: str | int, service_key: str | None = None
    ) -> Operation[ModelRunner]:
        """Record that the runner is alive now (``service_key``: as for registering)."""
        response = yield from self._request(
            "PUT", _runner_path(runner_id) + "/$ping", headers=_key_header(service_key)
        )
        return (yield from self._runner_from(response))

    def remove_model_runner(
        self, runner_id: str | int, service_key: str | None = None
    ) -> Operation[None]:
        """Remove a runner from the registry (``service_key``: as for registering)."""
        yield from self._request(
            "DELETE", _runner_path(runner_id), headers=_key_header(service_key)
        )

    def _runner_from(self, response: httpx.Response) -> Operation[ModelRunner]:
        """The runner an answer describes; where it is only a status (chap-core 2.5.1's
        registration and ping answers), the runner read back by its id."""
        payload = decode(response)
        if isinstance(payload, dict) and "url" not in payload and "id" in payload:
            return (yield from self.get_model_runner(payload["id"]))
        return parse(ModelRunner, response)


def _key_header(service_key: str | None) -> dict[str, str] | None:
    """``X-Service-Key`` with the registration key, when one is given."""
    if service_key is None:
        return None
    return {"X-Service-Key": require_name("service_key", service_key)}


def _runner_path(runner_id: object) -> str:
    """``/v2/services/{id}`` with the id checked and quoted."""
    if isinstance(runner_id, bool) or not isinstance(runner_id, (str, int)):
        raise ArgumentTypeError(
            f"runner_id must be the runner's id (text or int), got {runner_id!r}"
        )
    text = str(runner_id)
    if not text.strip():
        raise ArgumentError("runner_id must not be empty")
    return f"/v2/services/{quote(text, safe='')}"
