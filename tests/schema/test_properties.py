"""Property-based checks over generated schemas: valid draft-07, round-trip, defaults validate."""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft7Validator

from chaplab.schema import (
    ConfigSchema,
    apply_config_defaults,
    create_config_schema,
    schema_array,
    schema_boolean,
    schema_enum,
    schema_from_json,
    schema_integer,
    schema_number,
    schema_string,
    schema_to_json,
    validate_config,
)

texts = st.text(max_size=12)
descriptions = st.none() | texts
finite_reals = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e12, max_value=1e12)


@st.composite
def integer_properties(draw: st.DrawFn) -> dict[str, Any]:
    low, high = sorted(draw(st.lists(st.integers(-(10**20), 10**20), min_size=2, max_size=2)))
    minimum, maximum = draw(st.sampled_from([None, low])), draw(st.sampled_from([None, high]))
    default = draw(st.none() | st.integers(low, high))
    return schema_integer(
        draw(descriptions),
        default,
        minimum,
        maximum,
        draw(st.sampled_from([None, low - 1])),
        draw(st.sampled_from([None, high + 1])),
    )


@st.composite
def number_properties(draw: st.DrawFn) -> dict[str, Any]:
    low, high = sorted(draw(st.lists(finite_reals, min_size=2, max_size=2)))
    minimum, maximum = draw(st.sampled_from([None, low])), draw(st.sampled_from([None, high]))
    whole_reals = (
        st.floats(low, high).map(lambda value: float(math.floor(value))).filter(lambda v: v >= low)
    )
    default = draw(st.none() | st.floats(low, high) | whole_reals)
    return schema_number(draw(descriptions), default, minimum, maximum)


@st.composite
def string_properties(draw: st.DrawFn) -> dict[str, Any]:
    if draw(st.booleans()):
        pattern = draw(st.sampled_from(["^[a-z]+$", "^[0-9]{2}-x$", "é"]))
        default = draw(st.none() | st.from_regex(pattern, fullmatch=True))
        return schema_string(draw(descriptions), default, pattern=pattern)
    low, high = sorted(draw(st.lists(st.integers(0, 8), min_size=2, max_size=2)))
    default = draw(st.none() | st.text(min_size=low, max_size=high))
    return schema_string(
        draw(descriptions),
        default,
        draw(st.sampled_from([None, low])),
        draw(st.sampled_from([None, high])),
    )


@st.composite
def enum_properties(draw: st.DrawFn) -> dict[str, Any]:
    values = draw(st.lists(texts, min_size=1, max_size=4, unique=True))
    return schema_enum(values, draw(descriptions), draw(st.none() | st.sampled_from(values)))


@st.composite
def array_properties(draw: st.DrawFn) -> dict[str, Any]:
    items = draw(st.sampled_from([schema_integer(), schema_number(), {"type": "string"}]))
    elements = {"integer": st.integers(), "number": finite_reals, "string": texts}[items["type"]]
    default = draw(st.none() | st.lists(elements, max_size=4, unique=True))
    size = len(default) if default is not None else 2
    return schema_array(
        items,
        draw(descriptions),
        default,
        draw(st.sampled_from([None, 0, size])),
        draw(st.sampled_from([None, size, size + 3])),
        draw(st.sampled_from([None, True, False])),
    )


boolean_properties = st.builds(schema_boolean, descriptions, st.none() | st.booleans())
properties = st.one_of(
    integer_properties(),
    number_properties(),
    string_properties(),
    boolean_properties,
    enum_properties(),
    array_properties(),
)


@st.composite
def schemas(draw: st.DrawFn) -> ConfigSchema:
    props = draw(st.dictionaries(texts, properties, max_size=5))
    defaulted = [name for name, prop in props.items() if "default" in prop]
    required = draw(st.lists(st.sampled_from(defaulted), unique=True)) if defaulted else []
    return create_config_schema(
        draw(st.none() | texts), draw(descriptions), props, required, draw(st.booleans())
    )


@settings(max_examples=150, deadline=None)
@given(schemas(), st.booleans())
def test_json_text_reads_back_equal(schema: ConfigSchema, pretty: bool) -> None:
    assert schema_from_json(schema_to_json(schema, pretty=pretty)) == schema


@settings(max_examples=150, deadline=None)
@given(schemas())
def test_every_schema_is_valid_draft_07(schema: ConfigSchema) -> None:
    Draft7Validator.check_schema(json.loads(schema_to_json(schema)))


@settings(max_examples=150, deadline=None)
@given(schemas())
def test_filled_defaults_validate(schema: ConfigSchema) -> None:
    validate_config(apply_config_defaults({}, schema), schema)


@settings(max_examples=100, deadline=None)
@given(schemas())
def test_pretty_and_compact_text_hold_the_same_json(schema: ConfigSchema) -> None:
    pretty, compact = schema_to_json(schema), schema_to_json(schema, pretty=False)
    assert json.loads(pretty) == json.loads(compact) == schema.to_dict()
