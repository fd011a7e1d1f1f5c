"""``assert_matches_chap_core``: a JSON answer checked against the response schema chap-core
2.5.1 publishes for the same route and status, so that our service's answers keep 2.5.1's wire
shapes.

The schemas are read from 2.5.1's OpenAPI document (``tests/data/chap-core-2.5.1-openapi.json``,
a copy of what a 2.5.1 server answers at ``/openapi.json``). OpenAPI 3.1 schemas are JSON Schema
2020-12; their ``#/components/...`` references resolve against the document's components."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

OPENAPI = Path(__file__).parent / "data" / "chap-core-2.5.1-openapi.json"


@cache
def chap_core_openapi() -> dict[str, Any]:
    """2.5.1's OpenAPI document."""
    document: dict[str, Any] = json.loads(OPENAPI.read_text())
    return document


def route_template(method: str, path: str) -> str:
    """The 2.5.1 path template that ``path`` (a template or a concrete path, without its
    query) is served by for ``method``; literal segments win over ``{parameters}``."""
    paths: dict[str, dict[str, Any]] = chap_core_openapi()["paths"]
    wanted = path.split("?", 1)[0]
    matches = []
    for template, operations in paths.items():
        if method.lower() not in operations:
            continue
        if template == wanted:
            return template
        pattern = re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(template))
        if re.fullmatch(pattern, wanted):
            literal = sum(1 for part in template.split("/") if not part.startswith("{"))
            matches.append((literal, template))
    if not matches:
        raise AssertionError(f"chap-core 2.5.1 serves no {method.upper()} {wanted}")
    return max(matches)[1]


def response_schema(method: str, path: str, status: int = 200) -> dict[str, Any]:
    """2.5.1's JSON schema of the answer to ``method path`` with ``status`` ({} when 2.5.1
    documents the status without a JSON body)."""
    template = route_template(method, path)
    responses = chap_core_openapi()["paths"][template][method.lower()]["responses"]
    if str(status) not in responses:
        raise AssertionError(
            f"chap-core 2.5.1 documents no status {status} for {method.upper()} {template} "
            f"(it documents {', '.join(sorted(responses))})"
        )
    content = responses[str(status)].get("content", {})
    schema: dict[str, Any] = content.get("application/json", {}).get("schema", {})
    return schema


def assert_matches_chap_core(method: str, path: str, body: object, status: int = 200) -> None:
    """Fail, listing every mismatch with where it is in ``body``, unless ``body`` fits the
    schema chap-core 2.5.1 publishes for the answer to ``method path`` with ``status``."""
    schema = {
        **response_schema(method, path, status),
        "components": chap_core_openapi()["components"],
    }
    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(body), key=lambda error: list(error.absolute_path))
    if errors:
        listed = "\n".join(
            f"  at {'/'.join(map(str, error.absolute_path)) or '(top)'}: {error.message[:300]}"
            for error in errors[:20]
        )
        raise AssertionError(
            f"the answer to {method.upper()} {path} ({status}) does not fit chap-core 2.5.1's "
            f"schema of {route_template(method, path)}:\n{listed}"
        )
