"""Bad input is refused at the constructor with a message naming the argument and the reason."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from chaplab.schema import (
    InvalidSchemaError,
    create_config_schema,
    schema_array,
    schema_boolean,
    schema_enum,
    schema_integer,
    schema_number,
    schema_string,
)


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: schema_enum([]), "values must hold at least one choice"),
        (lambda: schema_enum("abc"), "values must be a list of strings"),
        (lambda: schema_enum(["a", 1]), "values entry must be a string"),
        (lambda: schema_enum(["a", "a"]), r"lists \['a'\] more than once"),
        (lambda: schema_enum(["a", "b"], default="c"), r"default 'c' is not one of \['a', 'b'\]"),
        (
            lambda: schema_integer(default=2.5),
            "schema_integer: default must be an integer, got 2.5",
        ),
        (
            lambda: schema_integer(default=True),
            "schema_integer: default must be an integer, got True",
        ),
        (lambda: schema_integer(default="3"), "schema_integer: default must be an integer"),
        (
            lambda: schema_integer(default=np.True_),
            "schema_integer: default must be an integer, got np.True_",
        ),
        (
            lambda: schema_integer(default=np.float64(2.5)),
            r"schema_integer: default must be an integer, got np.float64\(2.5\)",
        ),
        (lambda: schema_integer(minimum=0.5), "schema_integer: minimum must be an integer"),
        (lambda: schema_integer(maximum=False), "schema_integer: maximum must be an integer"),
        (lambda: schema_integer(exclusive_minimum=0.1), "exclusive_minimum must be an integer"),
        (
            lambda: schema_integer(default=11, maximum=10),
            "default 11 does not fit the property: 11 is greater than the maximum of 10",
        ),
        (
            lambda: schema_integer(default=-1, minimum=0),
            "default -1 does not fit the property: -1 is less than the minimum of 0",
        ),
        (lambda: schema_integer(default=0, exclusive_minimum=0), "default 0 does not fit"),
        (lambda: schema_integer(minimum=5, maximum=3), "minimum 5 is greater than maximum 3"),
        (lambda: schema_number(default=float("nan")), "default must be a finite number"),
        (lambda: schema_number(maximum=float("inf")), "maximum must be a finite number"),
        (lambda: schema_number(default=True), "default must be a number"),
        (lambda: schema_number(default=np.False_), "default must be a number"),
        (lambda: schema_number(default=np.float64("nan")), "default must be a finite number"),
        (lambda: schema_number(default=np.int64(3), maximum=np.int64(2)), "default 3 does not fit"),
        (lambda: schema_number(default=1.5, maximum=1.0), "default 1.5 does not fit"),
        (
            lambda: schema_number(exclusive_minimum=2, exclusive_maximum=1),
            "exclusive_minimum 2 is greater than exclusive_maximum 1",
        ),
        (lambda: schema_number(description=3), "schema_number: description must be a string"),
        (lambda: schema_string(default=3), "default 3 does not fit the property"),
        (lambda: schema_string(min_length=-1), "min_length must not be negative"),
        (lambda: schema_string(max_length=1.5), "max_length must be an integer"),
        (
            lambda: schema_string(min_length=3, max_length=2),
            "min_length 3 is greater than max_length 2",
        ),
        (lambda: schema_string(pattern="("), "pattern is not a valid regular expression"),
        (lambda: schema_string(default="toolong", max_length=3), "default 'toolong' does not fit"),
        (lambda: schema_string(default="xyz", pattern="^a"), "default 'xyz' does not fit"),
        (lambda: schema_boolean(default=1), "schema_boolean: default 1 does not fit"),
        (lambda: schema_array("string"), "items must be a dict holding a JSON Schema, got str"),
        (lambda: schema_array({"type": "strng"}), "items is not a valid JSON Schema"),
        (
            lambda: schema_array(schema_integer(), default=[1, "a"]),
            r"default \[1, 'a'\] does not fit",
        ),
        (lambda: schema_array(schema_integer(), default=5), "default 5 does not fit"),
        (
            lambda: schema_array(schema_integer(), unique_items=1),
            "unique_items must be True or False",
        ),
        (
            lambda: schema_array(schema_integer(), min_items=2, max_items=1),
            "min_items 2 is greater than max_items 1",
        ),
        (
            lambda: schema_array(schema_integer(), default=[1, 1], unique_items=True),
            "has non-unique elements",
        ),
    ],
)
def test_bad_property_arguments_are_refused(build: Callable[[], Any], message: str) -> None:
    with pytest.raises(InvalidSchemaError, match=message):
        build()


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            {"properties": {"a": schema_integer()}, "required": ["b"]},
            r"required names \['b'\] that are not properties",
        ),
        ({"properties": {1: schema_integer()}}, "property name 1 must be a string"),
        ({"properties": {"a": 3}}, "property 'a' must be a dict holding a JSON Schema, got int"),
        (
            {"properties": {"a": {"type": "integer", "default": "x"}}},
            "property 'a': default 'x' does not fit",
        ),
        (
            {"properties": {"a": {"minimum": "zero"}}},
            "property 'a' is not a valid JSON Schema at 'minimum'",
        ),
        ({"properties": {"a": {"default": float("nan")}}}, "property 'a' has no JSON form"),
        ({"properties": ["a"]}, "properties must be a dict of name to property, got list"),
        ({"required": "a"}, "required must be a list of strings"),
        ({"title": 5}, "title must be a string"),
        ({"description": ["x"]}, "description must be a string"),
        ({"additional_properties": "no"}, "additional_properties must be True or False"),
    ],
)
def test_bad_schema_arguments_are_refused(arguments: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidSchemaError, match=message):
        create_config_schema(**arguments)


def test_constructor_errors_are_value_errors() -> None:
    with pytest.raises(ValueError):
        schema_enum([])


def test_whole_real_bounds_of_an_integer_are_stored_as_integers() -> None:
    prop = schema_integer(default=4.0, minimum=0.0, maximum=1e3)
    assert prop == {"type": "integer", "default": 4, "minimum": 0, "maximum": 1000}
    assert all(type(prop[key]) is int for key in ("default", "minimum", "maximum"))


def test_numpy_integers_are_integers_stored_as_int() -> None:
    prop = schema_integer(default=np.int64(5), minimum=np.uint8(1), maximum=np.float32(10.0))
    assert prop == {"type": "integer", "default": 5, "minimum": 1, "maximum": 10}
    assert all(type(prop[key]) is int for key in ("default", "minimum", "maximum"))


def test_numpy_reals_are_reals_stored_as_int_or_float() -> None:
    prop = schema_number(default=np.float64(0.1), minimum=np.int64(0), maximum=np.float32(0.5))
    assert prop == {"type": "number", "default": 0.1, "minimum": 0, "maximum": 0.5}
    assert [type(prop[key]) for key in ("default", "minimum", "maximum")] == [float, int, float]


def test_numpy_numbers_in_a_plain_dict_are_stored_as_python_numbers() -> None:
    schema = create_config_schema(
        properties={"n": {"type": "array", "default": [np.int64(1), np.float64(0.5)]}}
    )
    default = schema.properties["n"]["default"]
    assert default == [1, 0.5] and [type(item) for item in default] == [int, float]
    assert repr(schema) == "<ConfigSchema: n (array = [1, 0.5])>"
