"""The configuration schema: a draft-07 object schema declaring a model's options."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from chaplab.schema._checks import check_flag, check_names, check_property, check_text
from chaplab.schema._errors import InvalidSchemaError

DRAFT_07 = "http://json-schema.org/draft-07/schema#"
_ACCEPTED_DIALECTS = (DRAFT_07, DRAFT_07.rstrip("#"))
_KEYS = (
    "$schema",
    "type",
    "title",
    "description",
    "properties",
    "required",
    "additionalProperties",
)


@dataclass(frozen=True, repr=False)
class ConfigSchema:
    """The options of a model: named properties, the names that must be given, and whether
    names outside ``properties`` are allowed. Checked and copied on construction."""

    title: str | None = None
    description: str | None = None
    properties: dict[str, dict[str, Any]] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    additional_properties: bool = True

    __hash__ = None  # type: ignore[assignment]  # holds dicts, so it compares by value only

    def __post_init__(self) -> None:
        if self.title is not None:
            check_text("schema title", self.title)
        if self.description is not None:
            check_text("schema description", self.description)
        object.__setattr__(self, "properties", _checked_properties(self.properties))
        object.__setattr__(self, "required", _checked_required(self.required, self.properties))
        check_flag("schema additional_properties", self.additional_properties)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ConfigSchema:
        """Build a schema from its JSON object (e.g. a model template received over HTTP).

        Unknown top-level keys, another ``$schema`` dialect or a ``type`` other than
        ``object`` are refused rather than dropped."""
        if not isinstance(data, Mapping):
            raise InvalidSchemaError(f"a schema must be a JSON object, got {type(data).__name__}")
        unknown = [key for key in data if key not in _KEYS]
        if unknown:
            raise InvalidSchemaError(f"unsupported schema keys {unknown}; supported: {list(_KEYS)}")
        dialect = data.get("$schema", DRAFT_07)
        if dialect not in _ACCEPTED_DIALECTS:
            raise InvalidSchemaError(f"$schema must be {DRAFT_07!r}, got {dialect!r}")
        if data.get("type", "object") != "object":
            raise InvalidSchemaError(f"type must be 'object', got {data['type']!r}")
        return cls(
            title=data.get("title"),
            description=data.get("description"),
            properties=data.get("properties", {}),
            required=data.get("required", ()),
            additional_properties=data.get("additionalProperties", True),
        )

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of the schema, keys in their documented order; a fresh copy."""
        data: dict[str, Any] = {"$schema": DRAFT_07, "type": "object"}
        if self.title is not None:
            data["title"] = self.title
        if self.description is not None:
            data["description"] = self.description
        if self.properties:
            data["properties"] = copy.deepcopy(self.properties)
        if self.required:
            data["required"] = list(self.required)
        data["additionalProperties"] = self.additional_properties
        return data

    def _repr_json_(self) -> dict[str, Any]:
        """Let notebooks show the schema as a browsable JSON tree."""
        return self.to_dict()

    def __repr__(self) -> str:
        options = ", ".join(
            f"{name} ({_describe(prop, name in self.required)})"
            for name, prop in self.properties.items()
        )
        title = f" {self.title!r}" if self.title is not None else ""
        closed = "; no other options" if not self.additional_properties else ""
        return f"<ConfigSchema{title}: {options or 'no options'}{closed}>"


def create_config_schema(
    title: str | None = None,
    description: str | None = None,
    properties: Mapping[str, Mapping[str, Any]] | None = None,
    required: Iterable[str] | None = None,
    additional_properties: bool = True,
) -> ConfigSchema:
    """Declare a model's options: ``properties`` maps names to property schemas."""
    return ConfigSchema(
        title=title,
        description=description,
        properties=properties if properties is not None else {},  # type: ignore[arg-type]
        required=required if required is not None else (),  # type: ignore[arg-type]
        additional_properties=additional_properties,
    )


def _checked_properties(properties: Any) -> dict[str, dict[str, Any]]:
    if not isinstance(properties, Mapping):
        raise InvalidSchemaError(
            f"schema properties must be a dict of name to property, got {type(properties).__name__}"
        )
    checked: dict[str, dict[str, Any]] = {}
    for name, prop in properties.items():
        if not isinstance(name, str):
            raise InvalidSchemaError(f"schema property name {name!r} must be a string")
        checked[name] = check_property(f"schema property {name!r}", prop)
    return checked


def _checked_required(required: Any, properties: Mapping[str, Any]) -> tuple[str, ...]:
    names = check_names("schema required", required)
    missing = [name for name in names if name not in properties]
    if missing:
        raise InvalidSchemaError(
            f"schema required names {missing} that are not properties "
            f"(properties: {list(properties)})"
        )
    return tuple(names)


def _describe(prop: Mapping[str, Any], required: bool) -> str:
    kind = prop.get("type", "any")
    if "default" in prop:
        return f"{kind} = {prop['default']!r}"
    return f"{kind}, required" if required else str(kind)
