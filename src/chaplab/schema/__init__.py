"""Configuration schemas: declare a model's options as draft-07 JSON Schema.

Build a schema with :func:`create_config_schema` and the property constructors
(:func:`schema_integer`, :func:`schema_number`, :func:`schema_string`,
:func:`schema_boolean`, :func:`schema_enum`, :func:`schema_array`), write it
with :func:`schema_to_json`, read it back with :func:`schema_from_json` or
:meth:`ConfigSchema.from_dict`, and check option values with
:func:`validate_config` after :func:`apply_config_defaults`.
"""

from __future__ import annotations

from chaplab.schema._config_schema import DRAFT_07, ConfigSchema, create_config_schema
from chaplab.schema._constructors import (
    schema_array,
    schema_boolean,
    schema_enum,
    schema_integer,
    schema_number,
    schema_string,
)
from chaplab.schema._errors import InvalidSchemaError
from chaplab.schema._json import schema_from_json, schema_to_json
from chaplab.schema._validation import (
    ConfigProblem,
    ConfigValidationError,
    apply_config_defaults,
    validate_config,
)

__all__ = [
    "DRAFT_07",
    "ConfigProblem",
    "ConfigSchema",
    "ConfigValidationError",
    "InvalidSchemaError",
    "apply_config_defaults",
    "create_config_schema",
    "schema_array",
    "schema_boolean",
    "schema_enum",
    "schema_integer",
    "schema_number",
    "schema_string",
    "schema_from_json",
    "schema_to_json",
    "validate_config",
]
