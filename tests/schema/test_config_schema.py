"""The ConfigSchema class: construction from dicts and text, copies, repr, notebook display."""

from __future__ import annotations

import json

import pytest

from chaplab.schema import (
    DRAFT_07,
    ConfigSchema,
    InvalidSchemaError,
    create_config_schema,
    schema_array,
    schema_enum,
    schema_from_json,
    schema_integer,
    schema_string,
    schema_to_json,
)


def _model_schema() -> ConfigSchema:
    return create_config_schema(
        title="Naive model",
        description="Carries the last value forward",
        properties={
            "n_lags": schema_integer(description="Lags", default=3, minimum=1),
            "method": schema_enum(["mean", "last"]),
            "regions": schema_array({"type": "string"}, default=["north"]),
        },
        required=["method"],
        additional_properties=False,
    )


def test_properties_and_required_are_readable_attributes() -> None:
    schema = _model_schema()
    assert schema.properties["n_lags"] == {
        "type": "integer",
        "description": "Lags",
        "default": 3,
        "minimum": 1,
    }
    assert list(schema.properties) == ["n_lags", "method", "regions"]
    assert schema.required == ("method",)
    assert schema.title == "Naive model"
    assert schema.additional_properties is False


def test_from_dict_reads_the_json_object_back() -> None:
    schema = _model_schema()
    assert ConfigSchema.from_dict(schema.to_dict()) == schema
    assert ConfigSchema.from_dict(json.loads(schema_to_json(schema))) == schema


def test_from_dict_fills_in_what_a_minimal_object_leaves_out() -> None:
    schema = ConfigSchema.from_dict({"properties": {"n": {"type": "integer", "default": 1}}})
    assert schema == create_config_schema(properties={"n": schema_integer(default=1)})
    assert ConfigSchema.from_dict({"$schema": DRAFT_07.rstrip("#")}) == create_config_schema()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"definitions": {}}, r"unsupported schema keys \['definitions'\]"),
        (
            {"$schema": "https://json-schema.org/draft/2020-12/schema"},
            "must be 'http://json-schema.org/draft-07/schema#'",
        ),
        ({"type": "array"}, "type must be 'object', got 'array'"),
        (
            {"properties": {"n": {"type": "integer", "default": 0.5}}},
            "property 'n': default 0.5 does not fit",
        ),
        ({"required": ["n"]}, r"required names \['n'\] that are not properties"),
        (
            {"additionalProperties": {"type": "string"}},
            "additional_properties must be True or False",
        ),
        ([1, 2], "a schema must be a JSON object, got list"),
    ],
)
def test_from_dict_refuses_what_it_cannot_keep(data: object, message: str) -> None:
    with pytest.raises(InvalidSchemaError, match=message):
        ConfigSchema.from_dict(data)  # type: ignore[arg-type]


def test_schema_from_json_refuses_text_that_is_not_json() -> None:
    with pytest.raises(InvalidSchemaError, match="the text is not JSON"):
        schema_from_json("{not json")


def test_schema_from_json_reads_bytes_and_keeps_utf8_text() -> None:
    schema = create_config_schema(title="Malária", properties={"área": schema_string(default="ñ")})
    assert schema_from_json(schema_to_json(schema).encode("utf-8")) == schema


def test_the_schema_keeps_its_own_copies() -> None:
    regions = schema_array({"type": "string"}, default=["north"])
    properties = {"regions": regions}
    schema = create_config_schema(properties=properties)
    regions["default"].append("south")
    properties["extra"] = schema_integer()
    exported = schema.to_dict()
    exported["properties"]["regions"]["default"].append("east")
    assert schema.properties == {
        "regions": {"type": "array", "items": {"type": "string"}, "default": ["north"]}
    }


def test_the_schema_cannot_be_reassigned() -> None:
    schema = _model_schema()
    with pytest.raises(AttributeError):
        schema.title = "other"  # type: ignore[misc]


def test_repr_names_each_option_with_its_kind_and_default() -> None:
    assert repr(_model_schema()) == (
        "<ConfigSchema 'Naive model': n_lags (integer = 3), method (string, required), "
        "regions (array = ['north']); no other options>"
    )
    assert repr(create_config_schema()) == "<ConfigSchema: no options>"


def test_notebooks_show_the_json_object() -> None:
    schema = _model_schema()
    assert schema._repr_json_() == json.loads(schema_to_json(schema))
