"""Write JSON values as text in the project's exact layout.

``json.dumps`` writes a whole real as ``1.0`` and cannot be told otherwise, so
this small encoder owns the layout: two-space indentation, ``"key": value``,
one array element per line, whole reals without a fraction, UTF-8 text.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

_INDENT = "  "


def encode_json(value: Any, *, pretty: bool) -> str:
    """Return ``value`` as JSON text: indented when ``pretty``, else compact without spaces."""
    return _encode(value, depth=0 if pretty else None, path="")


def format_real(value: float) -> str:
    """Shortest round-trip text of a finite real, without a fraction when it is whole."""
    if not math.isfinite(value):
        raise ValueError(f"{value!r} is not a finite number and has no JSON form")
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


def _encode(value: Any, depth: int | None, path: str) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return _encode_text(value)
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        try:
            return format_real(value)
        except ValueError as error:
            raise ValueError(f"at '{path}': {error}") from None
    inner = None if depth is None else depth + 1
    if isinstance(value, Mapping):
        separator = ": " if depth is not None else ":"
        members = [
            _encode_text(_member_name(key, path))
            + separator
            + _encode(item, inner, f"{path}/{key}")
            for key, item in value.items()
        ]
        return _enclose("{", members, "}", depth)
    if isinstance(value, (list, tuple)):
        elements = [_encode(item, inner, f"{path}/{index}") for index, item in enumerate(value)]
        return _enclose("[", elements, "]", depth)
    raise TypeError(f"at '{path}': {type(value).__name__} has no JSON form")


def _member_name(key: Any, path: str) -> str:
    if not isinstance(key, str):
        raise TypeError(f"at '{path}': object keys must be strings, got {key!r}")
    return key


def _encode_text(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _enclose(opening: str, parts: list[str], closing: str, depth: int | None) -> str:
    if not parts:
        return opening + closing
    if depth is None:
        return opening + ",".join(parts) + closing
    inner_margin = "\n" + _INDENT * (depth + 1)
    outer_margin = "\n" + _INDENT * depth
    return opening + inner_margin + ("," + inner_margin).join(parts) + outer_margin + closing
