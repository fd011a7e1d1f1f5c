"""Check option values against a schema, and fill in the defaults."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from chaplab.schema._checks import plain_json_copy
from chaplab.schema._config_schema import ConfigSchema

if TYPE_CHECKING:
    from jsonschema import ValidationError


class ConfigProblem(NamedTuple):
    """One broken rule: ``path`` points at the value (``n_lags``, ``lags/0``; empty for the
    whole configuration) and ``message`` says what is wrong."""

    path: str
    message: str


class ConfigValidationError(ValueError):
    """Option values break their schema; ``problems`` lists every broken rule with its path."""

    def __init__(self, problems: Iterable[ConfigProblem]) -> None:
        self.problems: list[ConfigProblem] = list(problems)
        lines = "\n".join(
            f"  {path or '(configuration)'}: {message}" for path, message in self.problems
        )
        count = len(self.problems)
        rules = "rule" if count == 1 else "rules"
        super().__init__(f"the configuration breaks {count} {rules}:\n{lines}")


def validate_config(
    config: Any, schema: ConfigSchema, *, require_options_without_default: bool = False
) -> None:
    """Raise :class:`ConfigValidationError` listing every problem of ``config`` under ``schema``.

    With ``require_options_without_default`` a property that has no ``default`` must be given
    too, as when a configured model is created (the wire contract)."""
    if not isinstance(schema, ConfigSchema):
        raise TypeError(
            f"validate_config: schema must be a ConfigSchema (see ConfigSchema.from_dict), "
            f"got {type(schema).__name__}"
        )
    from jsonschema import Draft7Validator  # imported on first use: it is slow to import

    config = plain_json_copy(config)
    rules = schema.to_dict()
    if require_options_without_default:
        undefaulted = [name for name, prop in schema.properties.items() if "default" not in prop]
        required = list(dict.fromkeys([*schema.required, *undefaulted]))
        if required:
            rules["required"] = required
    problems = sorted(_problem(error) for error in Draft7Validator(rules).iter_errors(config))
    if problems:
        raise ConfigValidationError(problems)


def apply_config_defaults(config: Mapping[str, Any], schema: ConfigSchema) -> dict[str, Any]:
    """A new dict: ``config`` plus the default of every property it leaves out.

    Defaults are copied, so changing the result never changes the schema; numpy values of
    ``config`` become their built-in counterparts, so the result can be written as JSON."""
    if not isinstance(config, Mapping):
        raise TypeError(
            f"apply_config_defaults: config must be a dict, got {type(config).__name__}"
        )
    filled = plain_json_copy(config)
    for name, prop in schema.properties.items():
        if name not in filled and "default" in prop:
            filled[name] = copy.deepcopy(prop["default"])
    return filled


def _problem(error: ValidationError) -> ConfigProblem:
    parts = [str(part) for part in error.absolute_path]
    if error.validator == "required":
        missing = _missing_name(error)
        if missing is not None:
            return ConfigProblem("/".join([*parts, missing]), "a value is required")
    return ConfigProblem("/".join(parts), error.message)


def _missing_name(error: ValidationError) -> str | None:
    """The property a ``required`` error is about (jsonschema reports one error per name)."""
    names = error.validator_value if isinstance(error.validator_value, list) else []
    return next(
        (name for name in names if error.message == f"{name!r} is a required property"), None
    )
