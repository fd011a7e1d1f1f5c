"""Spec sections 2 and 4: ``schema_to_json`` of a configuration schema."""

from __future__ import annotations

import inspect
import json
import re

import jsonschema
import pytest

from chaplab.schema import create_config_schema, schema_integer, schema_to_json

DRAFT_07 = "http://json-schema.org/draft-07/schema#"

DOCUMENTED_EXAMPLE = """{
  "$schema": "http://json-schema.org/draft-07/schema#",
  "type": "object",
  "title": "My Model",
  "properties": {
    "n_samples": {
      "type": "integer",
      "default": 100
    }
  },
  "additionalProperties": true
}"""


def example_schema() -> object:
    return create_config_schema(
        title="My Model", properties={"n_samples": schema_integer(default=100)}
    )


def test_documented_example_exactly() -> None:
    assert schema_to_json(example_schema()) == DOCUMENTED_EXAMPLE


def test_pretty_is_the_default() -> None:
    assert inspect.signature(schema_to_json).parameters["pretty"].default is True
    assert schema_to_json(example_schema()) == schema_to_json(example_schema(), pretty=True)
    assert "\n" in schema_to_json(example_schema())


def test_compact_form_holds_the_same_object() -> None:
    compact = schema_to_json(example_schema(), pretty=False)
    assert "\n" not in compact
    assert json.loads(compact) == json.loads(DOCUMENTED_EXAMPLE)
    assert list(json.loads(compact)) == list(json.loads(DOCUMENTED_EXAMPLE))


def test_keys_in_the_specified_order() -> None:
    schema = create_config_schema(
        title="Order",
        properties={"b_option": schema_integer(default=2), "a_option": schema_integer(default=1)},
    )
    document = json.loads(schema_to_json(schema))
    assert list(document) == ["$schema", "type", "title", "properties", "additionalProperties"]
    assert list(document["properties"]) == ["b_option", "a_option"]


def test_draft_07_uri_and_object_type() -> None:
    document = json.loads(schema_to_json(example_schema()))
    assert document["$schema"] == DRAFT_07
    assert document["type"] == "object"
    assert document["title"] == "My Model"
    jsonschema.Draft7Validator.check_schema(document)


@pytest.mark.parametrize("default", [0, -5, 1234567, 100.0])
def test_integer_default_without_suffix(default: int | float) -> None:
    schema = create_config_schema(title="Big", properties={"n": schema_integer(default=default)})
    digits = str(int(default))
    for pretty in (True, False):
        text = schema_to_json(schema, pretty=pretty)
        assert re.search(rf'"default":\s*{digits}(?=[,}}\s])', text), text
        assert f"{digits}L" not in text and f"{digits}." not in text and "e+" not in text.lower()
        value = json.loads(text)["properties"]["n"]
        assert value == {"type": "integer", "default": int(default)}
        assert isinstance(value["default"], int)


def test_additional_properties_true_in_the_basic_case() -> None:
    document = json.loads(schema_to_json(example_schema()))
    assert document["additionalProperties"] is True


def test_defaults_validate_against_the_exported_schema() -> None:
    document = json.loads(schema_to_json(example_schema()))
    validator = jsonschema.Draft7Validator(document)
    assert validator.is_valid({"n_samples": 5, "unknown": "allowed"})
    assert not validator.is_valid({"n_samples": "five"})
