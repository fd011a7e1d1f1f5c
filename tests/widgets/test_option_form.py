"""The form generated from a configuration schema: inputs, defaults, bounds and validation."""

from __future__ import annotations

import ipywidgets as widgets
import pytest

from chaplab.schema import (
    ConfigValidationError,
    create_config_schema,
    schema_array,
    schema_boolean,
    schema_enum,
    schema_integer,
    schema_number,
    schema_string,
)
from chaplab.widgets.forms import ConfigForm

SCHEMA = create_config_schema(
    "options",
    properties={
        "n_lags": schema_integer(default=3, minimum=1, maximum=12, description="How many lags."),
        "alpha": schema_number(default=0.5, exclusive_minimum=0, maximum=1),
        "code": schema_string(pattern="^[A-Z]+$"),
        "seasonal": schema_boolean(default=True),
        "family": schema_enum(["poisson", "negbin"]),
        "covariates": schema_array(schema_string(), default=["rainfall"]),
        "months": schema_array(schema_enum(["jan", "feb", "mar"]), unique_items=True),
        "lags": schema_array(schema_integer(minimum=0), max_items=2),
    },
)


def test_each_property_gets_the_input_of_its_type_with_its_default() -> None:
    form = ConfigForm(SCHEMA)
    inputs = {name: field.input for name, field in form.fields.items()}
    assert isinstance(inputs["n_lags"], widgets.IntText) and inputs["n_lags"].value == 3
    assert isinstance(inputs["alpha"], widgets.FloatText) and inputs["alpha"].value == 0.5
    assert isinstance(inputs["code"], widgets.Text) and "^[A-Z]+$" in inputs["code"].placeholder
    assert isinstance(inputs["seasonal"], widgets.Checkbox) and inputs["seasonal"].value is True
    assert isinstance(inputs["family"], widgets.Dropdown)
    assert isinstance(inputs["covariates"], widgets.TagsInput)
    assert inputs["covariates"].value == ["rainfall"]
    assert isinstance(inputs["months"], widgets.SelectMultiple)
    assert isinstance(inputs["lags"], widgets.IntsInput) and inputs["lags"].min == 0
    assert inputs["n_lags"].tooltip == "How many lags."


def test_options_without_default_are_required_until_given() -> None:
    form = ConfigForm(SCHEMA)
    assert not form.valid
    assert form.fields["code"].problem.value and "required" in form.fields["code"].problem.value
    assert form.fields["family"].input.label == "choose…"
    with pytest.raises(ConfigValidationError) as raised:
        form.values()
    assert {problem.path for problem in raised.value.problems} == {"code", "family"}

    form.fields["code"].input.value = "ABC"
    form.fields["family"].input.value = "negbin"
    assert form.valid
    assert form.fields["code"].problem.value == ""
    assert form.values() == {
        "n_lags": 3,
        "alpha": 0.5,
        "code": "ABC",
        "seasonal": True,
        "family": "negbin",
        "covariates": ["rainfall"],
        "months": [],
        "lags": [],
    }


def test_values_breaking_the_schema_are_reported_next_to_their_input() -> None:
    form = ConfigForm(SCHEMA)
    form.fields["family"].input.value = "poisson"
    form.fields["code"].input.value = "abc"
    form.fields["alpha"].input.value = 0.0
    form.fields["lags"].input.value = [1, 2, 3]
    assert not form.valid
    assert "does not match" in form.fields["code"].problem.value
    assert "minimum of 0" in form.fields["alpha"].problem.value
    assert "too long" in form.fields["lags"].problem.value
    assert form.fields["n_lags"].problem.value == ""


def test_a_value_out_of_range_is_refused_with_the_reason_not_put_back() -> None:
    schema = create_config_schema(
        properties={
            "k": {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 10},
            "m": {"type": "integer", "exclusiveMinimum": 0.5, "maximum": 7.5},
        }
    )
    form = ConfigForm(schema)
    fields = form.fields
    # without a default, an input starts at its lowest allowed whole number
    assert (fields["k"].input.value, fields["m"].input.value) == (1, 1)
    fields["k"].input.value = 500
    assert fields["k"].value() == 500  # kept as typed, not silently put back to 9
    assert not form.valid
    assert "500 is greater than or equal to the maximum of 10" in fields["k"].problem.value


def test_every_input_says_what_it_allows() -> None:
    fields = ConfigForm(SCHEMA).fields
    helps = {name: field.box.children[1].value for name, field in fields.items()}
    assert "How many lags. · allowed: from 1 to 12" in helps["n_lags"]
    assert "allowed: more than 0, at most 1" in helps["alpha"]
    assert "allowed: matches ^[A-Z]+$" in helps["code"]
    assert "allowed: one of: poisson, negbin" in helps["family"]
    assert "allowed: up to 2 items, each at least 0" in helps["lags"]
    assert helps["seasonal"] == ""


def test_boolean_without_default_is_a_choice_and_other_shapes_take_json() -> None:
    schema = create_config_schema(
        properties={
            "flag": {"type": "boolean"},
            "weights": {"type": "object"},
        }
    )
    form = ConfigForm(schema)
    assert isinstance(form.fields["flag"].input, widgets.Dropdown)
    form.fields["flag"].input.value = False
    form.fields["weights"].input.value = '{"a": 1'
    assert "not valid JSON" in form.fields["weights"].problem.value
    form.fields["weights"].input.value = '{"a": 1}'
    assert form.valid and form.values() == {"flag": False, "weights": {"a": 1}}


def test_a_schema_without_options_is_valid_and_says_so() -> None:
    form = ConfigForm(create_config_schema())
    assert form.valid and form.values() == {}
    assert any(
        isinstance(child, widgets.Label) and "no options" in child.value for child in form.children
    )


def test_tags_inputs_get_a_visible_label() -> None:
    box = ConfigForm(SCHEMA).fields["covariates"].box
    row = box.children[0]
    assert isinstance(row, widgets.HBox)
    assert row.children[0].value == "covariates"
