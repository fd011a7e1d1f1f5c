"""The fields of JSON answers and of the JSON schemas that describe them, as paths with their
JSON types, and what one lacks against another: our service's answers against chap-core
2.5.1's, by schema (``tests/service/test_chap_core_fields.py``) and by real answers
(``tests/peer/test_fidelity.py``).

A path names a field from the top of an answer: ``name``, ``configuredModel.modelTemplate.isLive``;
``[]`` stands for the items of a list (``[].id``), the empty path for the answer itself. A
free-form map (an object whose keys are data, such as ``aggregateMetrics`` or
``userOptionValues``) is one field: its keys are not
fields. The deliberate differences are the table "Deliberate differences" of
``docs/endpoints.md``, read here so that the tests and the documentation cannot disagree."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ENDPOINTS_DOC = Path(__file__).parents[1] / "docs" / "endpoints.md"

Fields = dict[str, frozenset[str]]
"""Path -> the JSON types seen or allowed there (``any`` where a schema allows every type)."""


def schema_fields(document: Mapping[str, Any], schema: Mapping[str, Any]) -> Fields:
    """The fields a JSON schema of an OpenAPI ``document`` describes (its ``$ref``s resolved
    against the document's components), each with the types it allows."""
    found: dict[str, set[str]] = {}
    _walk_schema(document, schema, "", found, depth=0)
    return {path: frozenset(types) for path, types in found.items()}


def free_form_paths(
    fields: Fields, document: Mapping[str, Any], schema: Mapping[str, Any]
) -> set[str]:
    """The paths of ``schema`` that are free-form maps (objects without declared properties)."""
    free: set[str] = set()
    _walk_schema(document, schema, "", {}, depth=0, free=free)
    return free & set(fields)


def _resolve(document: Mapping[str, Any], schema: Mapping[str, Any]) -> Mapping[str, Any]:
    while "$ref" in schema:
        name = str(schema["$ref"]).rsplit("/", 1)[-1]
        rest = {key: value for key, value in schema.items() if key != "$ref"}
        schema = {**document["components"]["schemas"][name], **rest}
    return schema


def _walk_schema(
    document: Mapping[str, Any],
    schema: Mapping[str, Any],
    path: str,
    found: dict[str, set[str]],
    depth: int,
    free: set[str] | None = None,
) -> None:
    schema = _resolve(document, schema)
    variants = schema.get("anyOf") or schema.get("oneOf") or schema.get("allOf") or [schema]
    types: set[str] = set()
    for variant in variants:
        variant = _resolve(document, variant)
        declared = variant.get("type")
        if declared is None and "properties" in variant:
            declared = "object"
        types |= set(declared) if isinstance(declared, list) else {declared} if declared else set()
        properties = variant.get("properties")
        if properties and depth < 12:
            for name, child in properties.items():
                _walk_schema(document, child, _join(path, name), found, depth + 1, free)
        elif declared == "object" and free is not None and path:
            free.add(path)
        if declared == "array" and "items" in variant and depth < 12:
            _walk_schema(document, variant["items"], path + "[]", found, depth + 1, free)
    found.setdefault(path, set()).update(types or {"any"})


def answer_fields(answer: Any, free: Iterable[str] = ()) -> Fields:
    """The fields of a JSON ``answer`` with the types their values have; the keys of the maps
    at the paths ``free`` are not fields."""
    found: dict[str, set[str]] = {}
    _walk_answer(answer, "", found, set(free))
    return {path: frozenset(types) for path, types in found.items()}


def _walk_answer(value: Any, path: str, found: dict[str, set[str]], free: set[str]) -> None:
    found.setdefault(path, set()).add(json_type(value))
    if isinstance(value, dict) and path not in free:
        for key, child in value.items():
            _walk_answer(child, _join(path, key), found, free)
    elif isinstance(value, list):
        for item in value:
            _walk_answer(item, path + "[]", found, free)


def json_type(value: Any) -> str:
    """The JSON type of a parsed JSON value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


@dataclass(frozen=True)
class Lack:
    """A field of chap-core's answer that ours lacks (``ours`` is None) or gives another type."""

    path: str
    theirs: frozenset[str]
    ours: frozenset[str] | None

    def __str__(self) -> str:
        where = self.path or "the answer"
        if self.ours is None:
            return f"{where} ({'|'.join(sorted(self.theirs))}) is missing"
        return (
            f"{where} is {'|'.join(sorted(self.ours))} where chap-core's is "
            f"{'|'.join(sorted(self.theirs))}"
        )


def lacks(theirs: Fields, ours: Fields) -> list[Lack]:
    """What ``ours`` lacks of ``theirs``: each field of theirs that ours does not have, or has
    with a type theirs never has (an integer fits a number; ``any`` fits every type). A field
    whose parent is missing is not listed again."""
    found: list[Lack] = []
    for path in sorted(theirs):
        if any(lack.path and path.startswith(lack.path) and lack.ours is None for lack in found):
            continue
        if path not in ours:
            found.append(Lack(path, theirs[path], None))
        elif not _fits(ours[path], theirs[path]):
            found.append(Lack(path, theirs[path], ours[path]))
    return found


def _fits(ours: frozenset[str], theirs: frozenset[str]) -> bool:
    if "any" in theirs or "any" in ours:
        return True
    widened = theirs | {"integer"} if "number" in theirs else theirs
    return ours <= widened


@dataclass(frozen=True)
class Difference:
    """A row of the table of deliberate differences: a route, the field (``*`` for the
    whole answer) and why our service answers otherwise."""

    method: str
    path: str
    field: str
    reason: str

    def covers(self, method: str, path: str, lack: Lack) -> bool:
        if (self.method, path_shape(self.path)) != (method.upper(), path_shape(path)):
            return False
        return (
            self.field == "*" or lack.path == self.field or lack.path.startswith(self.field + ".")
        )


def deliberate_differences(document: Path = ENDPOINTS_DOC) -> list[Difference]:
    """The rows of the table under "## Deliberate differences" in ``docs/endpoints.md``:
    ``| `METHOD /path` | `field` | reason |``."""
    text = document.read_text()
    section = text.split("## Deliberate differences", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        match = re.match(r"\|\s*`(\w+) ([^`]+)`\s*\|\s*`([^`]+)`\s*\|\s*(.+?)\s*\|\s*$", line)
        if match:
            rows.append(Difference(*match.groups()))
    return rows


def path_shape(path: str) -> str:
    """A route's path with every ``{parameter}`` written alike."""
    return re.sub(r"\{[^}/]+\}", "{}", path.split("?", 1)[0].rstrip("/"))


def unexplained(method: str, path: str, found: Iterable[Lack]) -> list[Lack]:
    """The lacks of ``method path`` that no deliberate difference covers."""
    differences = deliberate_differences()
    return [lack for lack in found if not any(d.covers(method, path, lack) for d in differences)]
