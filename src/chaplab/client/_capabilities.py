"""What a server offers: its routes, their required query parameters and its version, read once
per client from its ``/openapi.json``.

Servers differ: the embedded service keeps routes that chap-core 2.5.1 removed, and 2.5.1 has
routes of its own. An operation whose route not every server has names it as a ``Route``; the
client then raises ``UnsupportedRouteError`` (which says what to call instead) before sending,
instead of failing with a 404 that looks like a wrong id. When a gateway hides
``/openapi.json`` the client asks the route itself: a bare 404 ``Not Found`` or a 405 is then
read as the route being absent.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import httpx

from chaplab.client._errors import UnsupportedRouteError

_PATH_PARAMETER = re.compile(r"\{[^}]*\}")
_METHODS = ("get", "put", "post", "delete", "patch", "head", "options")


@dataclass(frozen=True)
class Route:
    """A route an operation needs, with what to call where a server lacks it."""

    operation: str
    method: str
    path: str
    alternative: str

    @property
    def shape(self) -> tuple[str, str]:
        """Method and path with every path parameter written ``{}`` (names differ between
        servers: ``{backtestId}`` vs ``{backtest_id}``)."""
        return self.method.upper(), _PATH_PARAMETER.sub("{}", self.path)

    def path_for(self, *values: str | int) -> str:
        """The path with its parameters filled in, in order, each quoted (an id with a ``/``
        stays one path segment)."""
        parts = _PATH_PARAMETER.split(self.path)
        if len(values) != len(parts) - 1:
            raise TypeError(f"{self.path} takes {len(parts) - 1} path values, got {values!r}")
        filled = [parts[0]]
        for value, part in zip(values, parts[1:], strict=True):
            filled += [quote(str(value), safe=""), part]
        return "".join(filled)


@dataclass
class ServerRoutes:
    """One server's routes as its OpenAPI document lists them (``known`` is False when the
    document could not be read: then every route counts as offered and is asked directly)."""

    known: bool = False
    version: str | None = None
    routes: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    components: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_openapi(cls, document: Mapping[str, Any]) -> ServerRoutes:
        """The routes of an OpenAPI document; ``version`` is ``info.title info.version``."""
        routes: dict[tuple[str, str], dict[str, Any]] = {}
        for path, operations in (document.get("paths") or {}).items():
            for method, operation in (operations or {}).items():
                if method in _METHODS and isinstance(operation, dict):
                    routes[(method.upper(), _PATH_PARAMETER.sub("{}", path))] = operation
        info = document.get("info") or {}
        named = " ".join(str(info[key]) for key in ("title", "version") if info.get(key))
        return cls(
            known=True,
            version=named or None,
            routes=routes,
            components=(document.get("components") or {}).get("schemas") or {},
        )

    def offers(self, route: Route) -> bool:
        """Whether the server serves ``route`` (True when its routes are not known)."""
        return not self.known or route.shape in self.routes

    def requires_query(self, route: Route, name: str) -> bool:
        """Whether the server's ``route`` insists on the query parameter ``name``."""
        operation = self.routes.get(route.shape, {}) if self.known else {}
        return any(
            parameter.get("in") == "query"
            and parameter.get("name") == name
            and parameter.get("required", False)
            for parameter in operation.get("parameters") or []
        )

    def pages(self, route: Route) -> bool:
        """Whether the server's ``route`` answers a page of its list (takes the query
        parameters ``limit`` and ``offset``); chap-core 2.5.1's lists have no pages."""
        operation = self.routes.get(route.shape, {}) if self.known else {}
        names = {
            parameter.get("name")
            for parameter in operation.get("parameters") or []
            if parameter.get("in") == "query"
        }
        return {"limit", "offset"} <= names

    def body_fields(self, route: Route) -> frozenset[str]:
        """The property names of the route's request body (JSON or a multipart form); empty
        when the server does not say."""
        operation = self.routes.get(route.shape, {}) if self.known else {}
        content = (operation.get("requestBody") or {}).get("content") or {}
        names: set[str] = set()
        for media in content.values():
            schema = self._resolve((media or {}).get("schema") or {})
            names |= set((schema.get("properties") or {}).keys())
        return frozenset(names)

    def answer_fields(self, route: Route) -> frozenset[str]:
        """The property names of the route's successful JSON answer; empty when the server
        does not say."""
        operation = self.routes.get(route.shape, {}) if self.known else {}
        responses = operation.get("responses") or {}
        answer = responses.get("200") or responses.get("201") or {}
        media = ((answer.get("content") or {}).get("application/json")) or {}
        schema = self._resolve(media.get("schema") or {})
        return frozenset((schema.get("properties") or {}).keys())

    def _resolve(self, schema: Mapping[str, Any]) -> Mapping[str, Any]:
        reference = schema.get("$ref")
        if isinstance(reference, str) and reference.startswith("#/components/schemas/"):
            resolved = self.components.get(reference.rsplit("/", 1)[-1])
            return resolved if isinstance(resolved, Mapping) else {}
        return schema

    def unsupported(self, route: Route) -> UnsupportedRouteError:
        """The error for an operation whose route this server lacks."""
        return UnsupportedRouteError(
            operation=route.operation,
            method=route.method,
            path=route.path,
            server_version=self.version,
            alternative=route.alternative,
            from_openapi=self.known,
        )


class RouteCache:
    """The routes of one client's server, read at the first operation that needs them."""

    def __init__(self) -> None:
        self.current: ServerRoutes | None = None


def read_openapi(response: httpx.Response) -> ServerRoutes | None:
    """The routes of a ``GET /openapi.json`` answer; ``None`` when it is no OpenAPI document
    (a gateway's page, an error)."""
    document = _json_object(response, 200)
    if document is None or not isinstance(document.get("paths"), dict):
        return None
    return ServerRoutes.from_openapi(document)


def version_from_system_info(response: httpx.Response) -> str | None:
    """The release a ``GET /system/info`` answer names, when it names one: chaplab's own
    (``chaplab 0.1.0``) before the chap-core API version it speaks (``version 2.5.1``)."""
    info = _json_object(response, 200) or {}
    own, spoken = info.get("chaplab_version"), info.get("chap_core_version")
    if isinstance(own, str) and own:
        return f"chaplab {own}"
    return f"version {spoken}" if isinstance(spoken, str) and spoken else None


def route_missing(response: httpx.Response) -> bool:
    """Whether an answer says the route itself does not exist: 405, or a 404 whose detail is
    the framework's bare ``Not Found`` (a missing row names what is missing)."""
    if response.status_code == 405:
        return True
    body = _json_object(response, 404)
    if body is None:
        return False
    text = body.get("detail", body.get("title"))
    return isinstance(text, str) and text.strip().lower() == "not found"


def _json_object(response: httpx.Response, status: int) -> dict[str, Any] | None:
    """The JSON object an answer with this status code carries; ``None`` for another status,
    a body that is no JSON, or JSON that is no object."""
    if response.status_code != status:
        return None
    try:
        body = json.loads(response.content)
    except ValueError:
        return None
    return body if isinstance(body, dict) else None
