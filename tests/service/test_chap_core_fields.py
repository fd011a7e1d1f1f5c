"""Every answer of ours holds every field of chap-core 2.5.1's answer to the same route, with a
type chap-core's allows: checked on the two OpenAPI documents, route by route, for every route
both servers have (``tests/data/chap-core-2.5.1-openapi.json`` and our ``/openapi.json``). What
differs on purpose is listed, with the reason, under "Deliberate differences" in
``docs/endpoints.md``; ``make test-peer`` compares real answers of the two servers too
(``tests/peer/test_fidelity.py``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from wire_fields import (
    Lack,
    deliberate_differences,
    free_form_paths,
    lacks,
    path_shape,
    schema_fields,
    unexplained,
)
from wire_schemas import chap_core_openapi

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def ours(service_url: str) -> dict[str, Any]:
    answer = httpx.get(f"{service_url}/openapi.json", timeout=60)
    assert answer.status_code == 200
    document: dict[str, Any] = answer.json()
    return document


def json_schema(operation: dict[str, Any], status: str) -> dict[str, Any] | None:
    content = operation.get("responses", {}).get(status, {}).get("content", {})
    schema = content.get("application/json", {}).get("schema")
    return schema if schema else None


def shared_answers(ours: dict[str, Any]) -> Iterator[tuple[str, str, list[Lack]]]:
    """(method, chap-core's path, what our answer's schema lacks) for each route both serve."""
    theirs = chap_core_openapi()
    our_paths = {path_shape(path): operations for path, operations in ours["paths"].items()}
    for path, operations in theirs["paths"].items():
        for method, operation in operations.items():
            our_operation = our_paths.get(path_shape(path), {}).get(method)
            if our_operation is None:
                continue
            for status in operation.get("responses", {}):
                schema = json_schema(operation, status)
                if not status.startswith("2") or schema is None:
                    continue
                our_status = next(s for s in our_operation["responses"] if s.startswith("2"))
                our_schema = json_schema(our_operation, our_status) or {}
                found = lacks(schema_fields(theirs, schema), schema_fields(ours, our_schema))
                yield method.upper(), path, found


def test_every_answer_holds_every_field_chap_core_sends(ours: dict[str, Any]) -> None:
    problems = [
        f"{method} {path}: {lack}"
        for method, path, found in shared_answers(ours)
        for lack in unexplained(method, path, found)
    ]
    assert not problems, "fields chap-core 2.5.1 answers and ours lacks:\n" + "\n".join(problems)


def test_every_deliberate_difference_is_one_still(ours: dict[str, Any]) -> None:
    """A row of the table that no longer names a difference is stale: the table says what is."""
    found = {(method, path_shape(path)): lacks for method, path, lacks in shared_answers(ours)}
    stale = [
        difference
        for difference in deliberate_differences()
        if not any(
            difference.covers(method, path, lack)
            for (method, path), lacks_found in found.items()
            for lack in lacks_found
        )
    ]
    assert not stale, "deliberate differences that are none (any more):\n" + "\n".join(
        f"{difference.method} {difference.path} {difference.field}" for difference in stale
    )


def json_body_schema(operation: dict[str, Any]) -> dict[str, Any] | None:
    content = operation.get("requestBody", {}).get("content", {})
    schema = content.get("application/json", {}).get("schema")
    return schema if schema else None


def test_every_request_field_chap_core_takes_ours_takes(ours: dict[str, Any]) -> None:
    """A request written for chap-core 2.5.1 is not refused as naming a field we do not know:
    our request body of each route both serve declares every field of 2.5.1's."""
    theirs = chap_core_openapi()
    our_paths = {path_shape(path): operations for path, operations in ours["paths"].items()}
    problems = []
    for path, operations in theirs["paths"].items():
        for method, operation in operations.items():
            our_operation = our_paths.get(path_shape(path), {}).get(method)
            schema = json_body_schema(operation)
            if our_operation is None or schema is None:
                continue
            our_schema = json_body_schema(our_operation) or {}
            our_fields = schema_fields(ours, our_schema)
            free = free_form_paths(our_fields, ours, our_schema)  # they take any field
            for lack in lacks(schema_fields(theirs, schema), our_fields):
                inside_free = any(lack.path.startswith((f"{p}.", f"{p}[]")) for p in free)
                if lack.ours is None and not inside_free:
                    problems.append(f"{method.upper()} {path}: {lack}")
    assert not problems, "request fields chap-core 2.5.1 takes and ours does not:\n" + "\n".join(
        problems
    )
