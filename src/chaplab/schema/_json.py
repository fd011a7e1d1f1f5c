"""A schema as JSON text and back."""

from __future__ import annotations

import json

from chaplab.schema._config_schema import ConfigSchema
from chaplab.schema._encoding import encode_json
from chaplab.schema._errors import InvalidSchemaError


def schema_to_json(schema: ConfigSchema, pretty: bool = True) -> str:
    """The schema as a JSON string: two-space indented when ``pretty``, else compact."""
    if not isinstance(schema, ConfigSchema):
        raise TypeError(
            f"schema_to_json: schema must be a ConfigSchema (see create_config_schema), "
            f"got {type(schema).__name__}"
        )
    if not isinstance(pretty, bool):
        raise TypeError(f"schema_to_json: pretty must be True or False, got {pretty!r}")
    return encode_json(schema.to_dict(), pretty=pretty)


def schema_from_json(text: str | bytes) -> ConfigSchema:
    """Read a schema back from its JSON text; ``schema_from_json(schema_to_json(s)) == s``."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise InvalidSchemaError(f"schema_from_json: the text is not JSON: {error}") from None
    return ConfigSchema.from_dict(data)
