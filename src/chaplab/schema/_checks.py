"""Checks of constructor arguments and of whole property schemas.

Every check raises :class:`InvalidSchemaError` naming where the bad value came
from (``where``, e.g. ``"schema_integer: minimum"``) and why it was refused,
so a broken schema is never built.
"""

from __future__ import annotations

import copy
import math
import numbers
import re
import sys
from collections.abc import Iterable, Mapping
from typing import Any, overload

from chaplab.schema._encoding import encode_json
from chaplab.schema._errors import InvalidSchemaError


def check_text(where: str, value: Any) -> str:
    """A string, such as a description or a title."""
    if not isinstance(value, str):
        raise InvalidSchemaError(f"{where} must be a string, got {value!r}")
    return value


def check_integral(where: str, value: Any) -> int:
    """A whole number (any ``numbers.Real``, such as ``numpy.int64(5)`` or ``100.0``),
    returned as ``int``; booleans are refused."""
    if not _is_number(value):
        raise InvalidSchemaError(f"{where} must be an integer, got {value!r}")
    if not isinstance(value, numbers.Integral) and not float(value).is_integer():
        raise InvalidSchemaError(f"{where} must be an integer, got {value!r}")
    return int(value)


def check_real(where: str, value: Any) -> int | float:
    """A finite number (any ``numbers.Real``, such as ``numpy.float64``), returned as a plain
    ``int`` or ``float``; booleans are refused."""
    if not _is_number(value):
        raise InvalidSchemaError(f"{where} must be a number, got {value!r}")
    if not isinstance(value, numbers.Integral) and not math.isfinite(value):
        raise InvalidSchemaError(f"{where} must be a finite number, got {value!r}")
    return _plain_number(value)


def _plain_number(value: numbers.Real) -> int | float:
    """``value`` as a built-in ``int`` or ``float``, so that its JSON text is plain."""
    return int(value) if isinstance(value, numbers.Integral) else float(value)


def _is_number(value: Any) -> bool:
    """Whether ``value`` is a real number; ``True`` and ``False`` are not numbers here."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def check_count(where: str, value: Any) -> int:
    """A non-negative integer, such as a length or an item count."""
    count = check_integral(where, value)
    if count < 0:
        raise InvalidSchemaError(f"{where} must not be negative, got {count}")
    return count


def check_flag(where: str, value: Any) -> bool:
    """A boolean (``True`` or ``False``, not 0 or 1)."""
    if not isinstance(value, bool):
        raise InvalidSchemaError(f"{where} must be True or False, got {value!r}")
    return value


def check_pattern(where: str, value: Any) -> str:
    """A regular expression that compiles."""
    pattern = check_text(where, value)
    try:
        re.compile(pattern)
    except re.error as error:
        raise InvalidSchemaError(f"{where} is not a valid regular expression: {error}") from None
    return pattern


def check_names(where: str, values: Any) -> list[str]:
    """A non-string iterable of distinct strings, such as enum values or required names."""
    if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Iterable):
        raise InvalidSchemaError(f"{where} must be a list of strings, got {values!r}")
    names = list(values)
    for name in names:
        check_text(f"{where} entry", name)
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise InvalidSchemaError(f"{where} lists {duplicates} more than once")
    return names


def check_order(where: str, low_name: str, low: Any, high_name: str, high: Any) -> None:
    """Refuse a lower bound above its upper bound."""
    if low is not None and high is not None and low > high:
        raise InvalidSchemaError(
            f"{where}: {low_name} {low!r} is greater than {high_name} {high!r}"
        )


def check_property(where: str, prop: object) -> dict[str, Any]:
    """A property schema: a dict that is valid draft-07, has a JSON form, and whose default
    fits it; returned as a copy whose numbers are built-in ``int`` and ``float``."""
    if not isinstance(prop, Mapping):
        raise InvalidSchemaError(
            f"{where} must be a dict holding a JSON Schema, got {type(prop).__name__}"
        )
    prop = plain_json_copy(prop)
    try:
        encode_json(prop, pretty=False)
    except (TypeError, ValueError) as error:
        raise InvalidSchemaError(f"{where} has no JSON form: {error}") from None
    from jsonschema import Draft7Validator  # imported on first use: it is slow to import
    from jsonschema.exceptions import SchemaError

    try:
        Draft7Validator.check_schema(prop)
    except SchemaError as error:
        location = "/".join(str(part) for part in error.absolute_path)
        at = f" at '{location}'" if location else ""
        raise InvalidSchemaError(
            f"{where} is not a valid JSON Schema{at}: {error.message}"
        ) from None
    if "default" in prop:
        problem = next(iter(Draft7Validator(prop).iter_errors(prop["default"])), None)
        if problem is not None:
            raise InvalidSchemaError(
                f"{where}: default {prop['default']!r} does not fit the property: {problem.message}"
            )
    return prop


@overload
def plain_json_copy(value: Mapping[str, Any]) -> dict[str, Any]: ...
@overload
def plain_json_copy(value: object) -> Any: ...
def plain_json_copy(value: Any) -> Any:
    """A deep copy of ``value`` in which every numpy value (``numpy.int64(5)``, ``numpy.bool_``,
    an array) is its built-in counterpart (``int``, ``bool``, a list), as JSON writers and
    validators expect. (A value can only be numpy's once numpy is imported, so the check does not
    import it.)"""
    numpy = sys.modules.get("numpy")
    if numpy is not None and isinstance(value, numpy.ndarray):
        return plain_json_copy(value.tolist())
    if numpy is not None and isinstance(value, numpy.generic):
        return value.item()
    if _is_number(value):
        return _plain_number(value)
    if isinstance(value, Mapping):
        return {key: plain_json_copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain_json_copy(item) for item in value]
    if isinstance(value, tuple):
        return tuple(plain_json_copy(item) for item in value)
    return copy.deepcopy(value)
