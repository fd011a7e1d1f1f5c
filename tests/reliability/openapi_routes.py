"""Every operation a service describes in ``/openapi.json``, with its path filled in."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
PLAUSIBLE_BY_TYPE = {"integer": "1", "number": "1.5", "string": "f0e1d2c3-job", "boolean": "true"}


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
