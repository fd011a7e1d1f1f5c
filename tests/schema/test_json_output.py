"""Exact JSON text written by schema_to_json, pretty and compact."""

from __future__ import annotations

from collections.abc import Callable
from textwrap import dedent
from typing import Any

import numpy as np
import pytest

from chaplab.schema import (
    create_config_schema,
    schema_array,
    schema_boolean,
    schema_enum,
    schema_integer,
    schema_number,
    schema_string,
    schema_to_json,
)

HEAD = '{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"'


def _one(prop: dict[str, Any]) -> str:
    """Compact JSON of a schema holding the single property ``p``."""
    return schema_to_json(create_config_schema(properties={"p": prop}), pretty=False)


def _expected_one(prop_text: str) -> str:
    return HEAD + ',"properties":{"p":' + prop_text + '},"additionalProperties":true}'


def test_documented_example_is_written_exactly() -> None:
    schema = create_config_schema(
        title="My Model", properties={"n_samples": schema_integer(default=100)}
    )
    assert schema_to_json(schema) == dedent(
        """\
        {
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
    )


def test_documented_example_compact_has_no_spaces() -> None:
    schema = create_config_schema(
        title="My Model", properties={"n_samples": schema_integer(default=100)}
    )
    assert schema_to_json(schema, pretty=False) == (
        HEAD + ',"title":"My Model","properties":{"n_samples":{"type":"integer","default":100}},'
        '"additionalProperties":true}'
    )


@pytest.mark.parametrize(
    ("prop", "expected"),
    [
        (schema_integer(), '{"type":"integer"}'),
        (schema_integer(description="Lags"), '{"type":"integer","description":"Lags"}'),
        (schema_integer(default=3), '{"type":"integer","default":3}'),
        (schema_integer(default=100.0), '{"type":"integer","default":100}'),
        (schema_integer(minimum=0), '{"type":"integer","minimum":0}'),
        (schema_integer(maximum=12), '{"type":"integer","maximum":12}'),
        (schema_integer(exclusive_minimum=-1), '{"type":"integer","exclusiveMinimum":-1}'),
        (schema_integer(exclusive_maximum=13), '{"type":"integer","exclusiveMaximum":13}'),
        (
            schema_integer(
                exclusive_maximum=10,
                exclusive_minimum=0,
                maximum=9,
                minimum=1,
                default=5,
                description="d",
            ),
            '{"type":"integer","description":"d","default":5,"minimum":1,"maximum":9,'
            '"exclusiveMinimum":0,"exclusiveMaximum":10}',
        ),
        (schema_integer(default=-42), '{"type":"integer","default":-42}'),
        (
            schema_integer(default=123456789012345678901234567890),
            '{"type":"integer","default":123456789012345678901234567890}',
        ),
        (schema_number(), '{"type":"number"}'),
        (schema_number(default=0.5), '{"type":"number","default":0.5}'),
        (schema_number(default=1.0), '{"type":"number","default":1}'),
        (schema_number(default=0.0), '{"type":"number","default":0}'),
        (schema_number(default=-2.0), '{"type":"number","default":-2}'),
        (schema_number(default=0.1), '{"type":"number","default":0.1}'),
        (schema_number(default=1 / 3), '{"type":"number","default":0.3333333333333333}'),
        (schema_number(default=1e-7), '{"type":"number","default":1e-07}'),
        (schema_number(default=1e300), '{"type":"number","default":1e+300}'),
        (schema_number(default=7), '{"type":"number","default":7}'),
        (
            schema_number(
                description="rate",
                default=0.25,
                minimum=0.0,
                maximum=1.0,
                exclusive_minimum=-0.5,
                exclusive_maximum=1.5,
            ),
            '{"type":"number","description":"rate","default":0.25,"minimum":0,"maximum":1,'
            '"exclusiveMinimum":-0.5,"exclusiveMaximum":1.5}',
        ),
        (schema_string(), '{"type":"string"}'),
        (schema_string(default=""), '{"type":"string","default":""}'),
        (
            schema_string(
                pattern="^[a-z]+$", max_length=8, min_length=1, default="abc", description="code"
            ),
            '{"type":"string","description":"code","default":"abc","minLength":1,'
            '"maxLength":8,"pattern":"^[a-z]+$"}',
        ),
        (schema_boolean(), '{"type":"boolean"}'),
        (schema_boolean(default=False), '{"type":"boolean","default":false}'),
        (
            schema_boolean(default=True, description="Use it"),
            '{"type":"boolean","description":"Use it","default":true}',
        ),
        (schema_enum(["a"]), '{"type":"string","enum":["a"]}'),
        (
            schema_enum(("log", "linear"), default="log", description="Scale"),
            '{"type":"string","enum":["log","linear"],"description":"Scale","default":"log"}',
        ),
        (schema_array(schema_integer()), '{"type":"array","items":{"type":"integer"}}'),
        (schema_array({"type": "string"}), '{"type":"array","items":{"type":"string"}}'),
        (
            schema_array({"type": "string"}, default=[]),
            '{"type":"array","items":{"type":"string"},"default":[]}',
        ),
        (
            schema_array(
                schema_number(minimum=0),
                unique_items=True,
                max_items=3,
                min_items=1,
                default=[1.0, 2.5],
                description="Weights",
            ),
            '{"type":"array","items":{"type":"number","minimum":0},"description":"Weights",'
            '"default":[1,2.5],"minItems":1,"maxItems":3,"uniqueItems":true}',
        ),
        (
            schema_array({"type": "string"}, unique_items=False),
            '{"type":"array","items":{"type":"string"},"uniqueItems":false}',
        ),
        (
            {"type": "string", "format": "date", "default": "2024-01-01"},
            '{"type":"string","format":"date","default":"2024-01-01"}',
        ),
    ],
)
def test_property_keys_appear_only_when_given_and_in_order(
    prop: dict[str, Any], expected: str
) -> None:
    assert _one(prop) == _expected_one(expected)


@pytest.mark.parametrize(
    ("build", "expected"),
    [
        (lambda: schema_integer(default=np.int64(5)), '{"type":"integer","default":5}'),
        (
            lambda: schema_integer(default=np.uint8(3), minimum=np.int32(-2)),
            '{"type":"integer","default":3,"minimum":-2}',
        ),
        (lambda: schema_integer(maximum=np.float64(100.0)), '{"type":"integer","maximum":100}'),
        (lambda: schema_number(default=np.int64(7)), '{"type":"number","default":7}'),
        (lambda: schema_number(default=np.float64(2.0)), '{"type":"number","default":2}'),
        (lambda: schema_number(default=np.float64(0.1)), '{"type":"number","default":0.1}'),
        (lambda: schema_number(default=np.float64(1e-7)), '{"type":"number","default":1e-07}'),
        (lambda: schema_number(default=np.float32(0.5)), '{"type":"number","default":0.5}'),
        (
            lambda: schema_array(schema_integer(), default=[np.int64(1), np.int16(2)]),
            '{"type":"array","items":{"type":"integer"},"default":[1,2]}',
        ),
        (
            lambda: {"type": "number", "default": np.float64(1 / 3)},
            '{"type":"number","default":0.3333333333333333}',
        ),
    ],
)
def test_numpy_numbers_are_written_plainly(build: Callable[[], Any], expected: str) -> None:
    assert _one(build()) == _expected_one(expected)


def test_numpy_numbers_are_written_plainly_in_pretty_output() -> None:
    schema = create_config_schema(
        properties={
            "n": schema_integer(default=np.int64(5)),
            "x": schema_number(default=np.float64(0.25)),
        }
    )
    assert schema_to_json(schema) == dedent(
        """\
        {
          "$schema": "http://json-schema.org/draft-07/schema#",
          "type": "object",
          "properties": {
            "n": {
              "type": "integer",
              "default": 5
            },
            "x": {
              "type": "number",
              "default": 0.25
            }
          },
          "additionalProperties": true
        }"""
    )


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ('say "hi"', r'"say \"hi\""'),
        ("C:\\path", r'"C:\\path"'),
        ("two\nlines\ttab", r'"two\nlines\ttab"'),
        ("Malária på ñandú", '"Malária på ñandú"'),
        ("日本語 🦟", '"日本語 🦟"'),
        ("\x01", r'"\u0001"'),
    ],
)
def test_text_is_escaped_as_json_and_written_as_utf8(text: str, written: str) -> None:
    schema = create_config_schema(title=text, properties={text: schema_string(default=text)})
    compact = schema_to_json(schema, pretty=False)
    assert f'"title":{written}' in compact
    assert f'"properties":{{{written}:{{"type":"string","default":{written}}}}}' in compact
    assert f'"title": {written}' in schema_to_json(schema)


def test_schema_keys_in_order_with_everything_given() -> None:
    schema = create_config_schema(
        additional_properties=False,
        required=["b"],
        properties={"a": schema_boolean(), "b": schema_string()},
        description="Options of the model",
        title="T",
    )
    assert schema_to_json(schema, pretty=False) == (
        HEAD + ',"title":"T","description":"Options of the model",'
        '"properties":{"a":{"type":"boolean"},"b":{"type":"string"}},"required":["b"],'
        '"additionalProperties":false}'
    )


def test_empty_schema_leaves_out_properties_and_required() -> None:
    schema = create_config_schema(properties={}, required=[])
    assert schema_to_json(schema, pretty=False) == HEAD + ',"additionalProperties":true}'
    assert schema_to_json(schema) == dedent(
        """\
        {
          "$schema": "http://json-schema.org/draft-07/schema#",
          "type": "object",
          "additionalProperties": true
        }"""
    )


def test_pretty_puts_each_array_element_on_its_own_line_and_empty_arrays_inline() -> None:
    schema = create_config_schema(
        properties={
            "scale": schema_enum(["log", "linear", "sqrt"], default="log"),
            "lags": schema_array(schema_integer(), default=[]),
            "weights": schema_array(schema_number(), default=[0.5, 1.0]),
        },
        required=["scale", "lags"],
    )
    assert schema_to_json(schema) == dedent(
        """\
        {
          "$schema": "http://json-schema.org/draft-07/schema#",
          "type": "object",
          "properties": {
            "scale": {
              "type": "string",
              "enum": [
                "log",
                "linear",
                "sqrt"
              ],
              "default": "log"
            },
            "lags": {
              "type": "array",
              "items": {
                "type": "integer"
              },
              "default": []
            },
            "weights": {
              "type": "array",
              "items": {
                "type": "number"
              },
              "default": [
                0.5,
                1
              ]
            }
          },
          "required": [
            "scale",
            "lags"
          ],
          "additionalProperties": true
        }"""
    )


def test_pretty_output_of_every_property_kind_with_all_arguments() -> None:
    schema = create_config_schema(
        title="All",
        properties={
            "i": schema_integer("count", 5, 0, 10, -1, 11),
            "x": schema_number("rate", 0.5, 0, 1),
            "s": schema_string("name", "ab", 1, 5, "^a"),
            "b": schema_boolean("flag", True),
            "e": schema_enum(["u"], "choice", "u"),
            "a": schema_array({"type": "boolean"}, "flags", [True], 1, 2, True),
        },
    )
    assert schema_to_json(schema) == dedent(
        """\
        {
          "$schema": "http://json-schema.org/draft-07/schema#",
          "type": "object",
          "title": "All",
          "properties": {
            "i": {
              "type": "integer",
              "description": "count",
              "default": 5,
              "minimum": 0,
              "maximum": 10,
              "exclusiveMinimum": -1,
              "exclusiveMaximum": 11
            },
            "x": {
              "type": "number",
              "description": "rate",
              "default": 0.5,
              "minimum": 0,
              "maximum": 1
            },
            "s": {
              "type": "string",
              "description": "name",
              "default": "ab",
              "minLength": 1,
              "maxLength": 5,
              "pattern": "^a"
            },
            "b": {
              "type": "boolean",
              "description": "flag",
              "default": true
            },
            "e": {
              "type": "string",
              "enum": [
                "u"
              ],
              "description": "choice",
              "default": "u"
            },
            "a": {
              "type": "array",
              "items": {
                "type": "boolean"
              },
              "description": "flags",
              "default": [
                true
              ],
              "minItems": 1,
              "maxItems": 2,
              "uniqueItems": true
            }
          },
          "additionalProperties": true
        }"""
    )


def test_pretty_output_ends_without_newline_and_compact_has_no_whitespace() -> None:
    schema = create_config_schema(
        title="a b", properties={"n": schema_array(schema_integer(), default=[1, 2])}
    )
    assert not schema_to_json(schema).endswith("\n")
    compact = schema_to_json(schema, pretty=False)
    assert " " not in compact.replace('"a b"', "") and "\n" not in compact


def test_schema_to_json_refuses_other_objects() -> None:
    with pytest.raises(TypeError, match="ConfigSchema"):
        schema_to_json({"type": "object"})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="pretty"):
        schema_to_json(create_config_schema(), pretty="yes")  # type: ignore[arg-type]
