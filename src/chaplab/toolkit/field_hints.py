"""Unknown fields of a request body named with the field the sender probably meant.

A request model that forbids unknown fields (``extra="forbid"``) makes pydantic refuse a typo
such as ``nPriods`` instead of quietly running with the default ``nPeriods``; this module turns
pydantic's "Extra inputs are not permitted" into a sentence naming the close field, found in
the route's body model along the error's location (nested models and lists included). Nothing
runs unless a request is refused.
"""

from __future__ import annotations

import difflib
import types
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import AliasChoices, BaseModel
from pydantic.fields import FieldInfo

UNKNOWN_FIELD = "extra_forbidden"
"""pydantic's error type for a field the model does not declare."""
WIRE_ITEM = "wire_item"
"""The attribute of a field type that is a list on the wire but held otherwise (observations
as columns): the type of each item of that list."""


def hinted(errors: Sequence[Mapping[str, Any]], body_model: Any) -> list[dict[str, Any]]:
    """``errors`` (pydantic's, with their ``loc``) where each unknown body field's message
    names the field probably meant, or the fields there are."""
    return [
        {**error, "msg": _hint(error["loc"], body_model)}
        if error.get("type") == UNKNOWN_FIELD and error.get("loc", ())[:1] == ("body",)
        else dict(error)
        for error in errors
    ]


def _hint(loc: Sequence[str | int], body_model: Any) -> str:
    unknown = str(loc[-1])
    names = field_names(body_model, loc[1:-1])
    if not names:
        return "is not a field of this request"
    spelled = [name for name in names if ("_" in name) == ("_" in unknown)] or names
    close = difflib.get_close_matches(unknown.lower(), [n.lower() for n in spelled], n=1)
    if close:
        meant = next(name for name in spelled if name.lower() == close[0])
        return f"is not a field of this request; did you mean {meant!r}?"
    return f"is not a field of this request (its fields: {', '.join(sorted(spelled))})"


def field_names(model: Any, path: Sequence[str | int]) -> list[str]:
    """The names a body accepts at ``path`` within ``model`` (a pydantic model type, or a type
    holding one): each field's name and its aliases; empty where ``path`` leads to no model."""
    current: Any = model
    for part in path:
        current = _step(current, part)
        if current is None:
            return []
    found = _model_of(current)
    if found is None:
        return []
    names = [n for name, field in found.model_fields.items() for n in _accepted(name, field)]
    return list(dict.fromkeys(names))


def _step(annotation: Any, part: str | int) -> Any:
    """The type at ``part`` of a value of ``annotation``: a model's field, a list's item, or
    the member of a tagged union that pydantic names by its tag (``params.seasonal.lines``)."""
    for option in _options(annotation):
        model = _model_of(option)
        if model is not None and isinstance(part, str):
            for name, field in model.model_fields.items():
                if part in _accepted(name, field):
                    return field.annotation
        origin = get_origin(option)
        if isinstance(part, int) and origin in (list, tuple, set, frozenset, Sequence):
            return (get_args(option) or (Any,))[0]
        if isinstance(part, int) and hasattr(option, WIRE_ITEM):
            return getattr(option, WIRE_ITEM)
    return _tagged(annotation, part)


def _tagged(annotation: Any, tag: str | int) -> Any:
    """The model of ``annotation``'s members one of whose fields is the literal ``tag``."""
    for option in _options(annotation):
        model = _model_of(option)
        if model is not None and any(
            get_origin(field.annotation) is Literal and tag in get_args(field.annotation)
            for field in model.model_fields.values()
        ):
            return model
    return None


def _accepted(name: str, field: FieldInfo) -> tuple[str, ...]:
    """The names a body may give a field: its own, its alias and its validation aliases."""
    return (name, *_choices(field.alias), *_choices(field.validation_alias))


def _choices(alias: Any) -> tuple[str, ...]:
    if isinstance(alias, str):
        return (alias,)
    if isinstance(alias, AliasChoices):
        return tuple(choice for choice in alias.choices if isinstance(choice, str))
    return ()


def _options(annotation: Any) -> list[Any]:
    """The types ``annotation`` may be: its members if a union, its type if annotated."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _options(get_args(annotation)[0])
    if origin in (Union, types.UnionType):
        return [member for arg in get_args(annotation) for member in _options(arg)]
    return [annotation]


def _model_of(annotation: Any) -> type[BaseModel] | None:
    for option in _options(annotation):
        if isinstance(option, type) and issubclass(option, BaseModel):
            return option
    return None
