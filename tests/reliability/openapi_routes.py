"""The routes of a service: every operation it describes in ``/openapi.json`` with its path filled
in, and every route its app really serves (documented or not, through included routers and
mounts)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from starlette.routing import Mount, Route

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
PLAUSIBLE_BY_TYPE = {"integer": "1", "number": "1.5", "string": "f0e1d2c3-job", "boolean": "true"}
PATH_PARAMETER = re.compile(r"\{[^}]+\}")
EXTRA_METHODS = frozenset({"HEAD", "OPTIONS"})
"""Methods every route is also called with: a check must not depend on the route knowing them."""


@dataclass(frozen=True)
class RouteCall:
    """One operation: its method, its template path and a concrete path to call."""

    method: str
    template: str
    path: str

    def __str__(self) -> str:
        return f"{self.method} {self.template}"


def _plausible(parameter: dict[str, Any]) -> str:
    schema = parameter.get("schema", {})
    kinds = [schema.get("type")] + [item.get("type") for item in schema.get("anyOf", [])]
    return next((PLAUSIBLE_BY_TYPE[kind] for kind in kinds if kind in PLAUSIBLE_BY_TYPE), "x")


def route_calls(openapi: dict[str, Any]) -> list[RouteCall]:
    """One call per (path, method) of the document, path parameters filled with plausible values."""
    calls = []
    for template, item in openapi["paths"].items():
        shared = item.get("parameters", [])
        for method in HTTP_METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            path = template
            for parameter in [*shared, *operation.get("parameters", [])]:
                if parameter.get("in") == "path":
                    path = path.replace("{" + parameter["name"] + "}", _plausible(parameter))
            calls.append(RouteCall(method.upper(), template, path))
    return calls


@dataclass(frozen=True)
class ServedRoute:
    """A route the app answers: its full template path and the methods it declares."""

    template: str
    methods: frozenset[str]

    def calls(self) -> list[RouteCall]:
        """A call per declared method plus HEAD and OPTIONS, path parameters filled with ``1``."""
        path = PATH_PARAMETER.sub("1", self.template)
        return [
            RouteCall(method, self.template, path)
            for method in sorted(self.methods | EXTRA_METHODS)
        ]


def served_routes(routes: Iterable[Any], prefix: str = "") -> list[ServedRoute]:
    """Every HTTP route under ``routes`` (an app's ``app.routes``), with full paths.

    Descends into FastAPI's included routers (objects holding ``original_router`` and an
    ``include_context`` with the prefix) and Starlette mounts. A route of an unknown kind raises
    TypeError, so that a walk can never quietly skip what a newer framework serves."""
    served: list[ServedRoute] = []
    for route in routes:
        if hasattr(route, "original_router"):
            inner = prefix + route.include_context.prefix
            served += served_routes(route.original_router.routes, inner)
        elif isinstance(route, Mount) and route.routes:
            served += served_routes(route.routes, prefix + route.path)
        elif isinstance(route, Mount):
            served.append(ServedRoute(prefix + route.path + "/", frozenset({"GET"})))
        elif isinstance(route, Route):
            served.append(ServedRoute(prefix + route.path, frozenset(route.methods or ())))
        else:
            raise TypeError(f"a route of an unknown kind: {route!r}")
    return served
