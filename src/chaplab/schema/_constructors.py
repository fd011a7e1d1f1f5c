"""Property constructors: each returns a draft-07 property schema as a plain dict.

A key is added only when its argument is given, in a fixed order, so the JSON
text of a schema is stable. Arguments are checked here, at the constructor,
so that a broken schema is never built.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from chaplab.schema._checks import (
    check_count,
    check_flag,
    check_integral,
    check_names,
    check_order,
    check_pattern,
    check_property,
    check_real,
    check_text,
)
from chaplab.schema._errors import InvalidSchemaError


def schema_integer(
    description: str | None = None,
    default: int | None = None,
    minimum: int | None = None,
    maximum: int | None = None,
    exclusive_minimum: int | None = None,
    exclusive_maximum: int | None = None,
) -> dict[str, Any]:
    """An integer property; whole reals such as ``100.0`` are stored as ``100``."""
    return _numeric(
        "schema_integer",
        "integer",
        check_integral,
        description,
        default,
        minimum,
        maximum,
        exclusive_minimum,
        exclusive_maximum,
    )


def schema_number(
    description: str | None = None,
    default: float | None = None,
    minimum: float | None = None,
    maximum: float | None = None,
    exclusive_minimum: float | None = None,
    exclusive_maximum: float | None = None,
) -> dict[str, Any]:
    """A real-valued property."""
    return _numeric(
        "schema_number",
        "number",
        check_real,
        description,
        default,
        minimum,
        maximum,
        exclusive_minimum,
        exclusive_maximum,
    )


def schema_string(
    description: str | None = None,
    default: str | None = None,
    min_length: int | None = None,
    max_length: int | None = None,
    pattern: str | None = None,
) -> dict[str, Any]:
    """A text property, optionally bounded in length or matched against a regular expression."""
    where = "schema_string"
    prop = _start("string", where, description, default)
    _put(prop, "minLength", min_length, check_count, f"{where}: min_length")
    _put(prop, "maxLength", max_length, check_count, f"{where}: max_length")
    _put(prop, "pattern", pattern, check_pattern, f"{where}: pattern")
    check_order(where, "min_length", prop.get("minLength"), "max_length", prop.get("maxLength"))
    return check_property(where, prop)


def schema_boolean(description: str | None = None, default: bool | None = None) -> dict[str, Any]:
    """A true/false property."""
    return check_property(
        "schema_boolean", _start("boolean", "schema_boolean", description, default)
    )


def schema_enum(
    values: Iterable[str], description: str | None = None, default: str | None = None
) -> dict[str, Any]:
    """A string property restricted to ``values`` (a non-empty list of distinct strings)."""
    where = "schema_enum"
    choices = check_names(f"{where}: values", values)
    if not choices:
        raise InvalidSchemaError(f"{where}: values must hold at least one choice")
    prop: dict[str, Any] = {"type": "string", "enum": choices}
    _put(prop, "description", description, check_text, f"{where}: description")
    if default is not None and default not in choices:
        raise InvalidSchemaError(f"{where}: default {default!r} is not one of {choices}")
    _put(prop, "default", default, _keep, f"{where}: default")
    return check_property(where, prop)


def schema_array(
    items: Mapping[str, Any],
    description: str | None = None,
    default: list[Any] | None = None,
    min_items: int | None = None,
    max_items: int | None = None,
    unique_items: bool | None = None,
) -> dict[str, Any]:
    """A list property whose elements follow ``items`` (a property, or a plain JSON Schema dict)."""
    where = "schema_array"
    element = check_property(f"{where}: items", items)
    prop: dict[str, Any] = {"type": "array", "items": element}
    _put(prop, "description", description, check_text, f"{where}: description")
    _put(prop, "default", default, _keep, f"{where}: default")
    _put(prop, "minItems", min_items, check_count, f"{where}: min_items")
    _put(prop, "maxItems", max_items, check_count, f"{where}: max_items")
    _put(prop, "uniqueItems", unique_items, check_flag, f"{where}: unique_items")
    check_order(where, "min_items", prop.get("minItems"), "max_items", prop.get("maxItems"))
    return check_property(where, prop)


def _numeric(
    where: str,
    type_name: str,
    check: Callable[[str, Any], Any],
    description: str | None,
    default: Any,
    minimum: Any,
    maximum: Any,
    exclusive_minimum: Any,
    exclusive_maximum: Any,
) -> dict[str, Any]:
    """Shared body of ``schema_integer`` and ``schema_number``; ``check`` sets the number kind."""
    prop = _start(type_name, where, description, None)
    _put(prop, "default", default, check, f"{where}: default")
    _put(prop, "minimum", minimum, check, f"{where}: minimum")
    _put(prop, "maximum", maximum, check, f"{where}: maximum")
    _put(prop, "exclusiveMinimum", exclusive_minimum, check, f"{where}: exclusive_minimum")
    _put(prop, "exclusiveMaximum", exclusive_maximum, check, f"{where}: exclusive_maximum")
    check_order(where, "minimum", prop.get("minimum"), "maximum", prop.get("maximum"))
    check_order(
        where,
        "exclusive_minimum",
        prop.get("exclusiveMinimum"),
        "exclusive_maximum",
        prop.get("exclusiveMaximum"),
    )
    return check_property(where, prop)


def _start(type_name: str, where: str, description: str | None, default: Any) -> dict[str, Any]:
    """The leading keys every property shares: ``type``, ``description``, ``default``."""
    prop: dict[str, Any] = {"type": type_name}
    _put(prop, "description", description, check_text, f"{where}: description")
    _put(prop, "default", default, _keep, f"{where}: default")
    return prop


def _put(
    prop: dict[str, Any], key: str, value: Any, check: Callable[[str, Any], Any], where: str
) -> None:
    """Add ``key`` only when ``value`` is given, after checking it."""
    if value is not None:
        prop[key] = check(where, value)


def _keep(where: str, value: Any) -> Any:
    """Accept a value as is; ``check_property`` later tests it against the whole property."""
    return value
