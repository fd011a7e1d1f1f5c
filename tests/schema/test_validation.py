"""validate_config reports every problem with its path; apply_config_defaults fills in defaults."""

from __future__ import annotations

import numpy as np
import pytest

from chaplab.schema import (
    ConfigProblem,
    ConfigValidationError,
    apply_config_defaults,
    create_config_schema,
    schema_array,
    schema_boolean,
    schema_enum,
    schema_integer,
    schema_number,
    validate_config,
)

SCHEMA = create_config_schema(
    title="Regression",
    properties={
        "n_lags": schema_integer(default=3, minimum=1, maximum=12),
        "alpha": schema_number(minimum=0),
        "method": schema_enum(["ols", "ridge"], default="ols"),
        "items": schema_array(schema_integer(minimum=0), default=[1]),
        "verbose": schema_boolean(),
    },
    required=["alpha"],
)


def _problems(config: object, **options: bool) -> list[ConfigProblem]:
    with pytest.raises(ConfigValidationError) as caught:
        validate_config(config, SCHEMA, **options)
    return caught.value.problems


def test_a_good_configuration_passes() -> None:
    validate_config({"alpha": 0.5, "n_lags": 2, "items": [0, 4]}, SCHEMA)


def test_every_problem_is_listed_with_its_path() -> None:
    problems = _problems({"n_lags": 20, "method": "lasso", "items": [1, -2, "x"], "verbose": "yes"})
    assert problems == [
        ConfigProblem("alpha", "a value is required"),
        ConfigProblem("items/1", "-2 is less than the minimum of 0"),
        ConfigProblem("items/2", "'x' is not of type 'integer'"),
        ConfigProblem("method", "'lasso' is not one of ['ols', 'ridge']"),
        ConfigProblem("n_lags", "20 is greater than the maximum of 12"),
        ConfigProblem("verbose", "'yes' is not of type 'boolean'"),
    ]


def test_the_error_message_lists_every_problem_and_problems_unpack_as_pairs() -> None:
    with pytest.raises(ConfigValidationError) as caught:
        validate_config({"alpha": -1, "n_lags": 0}, SCHEMA)
    assert str(caught.value) == (
        "the configuration breaks 2 rules:\n"
        "  alpha: -1 is less than the minimum of 0\n"
        "  n_lags: 0 is less than the minimum of 1"
    )
    assert isinstance(caught.value, ValueError)
    assert [path for path, _ in caught.value.problems] == ["alpha", "n_lags"]


def test_a_configuration_that_is_not_an_object_is_one_problem_at_the_root() -> None:
    assert _problems([1]) == [ConfigProblem("", "[1] is not of type 'object'")]


def test_closed_schemas_report_unknown_options() -> None:
    closed = create_config_schema(properties={"n": schema_integer()}, additional_properties=False)
    with pytest.raises(ConfigValidationError, match=r"'extra' was unexpected"):
        validate_config({"n": 1, "extra": 2}, closed)


def test_options_without_default_can_be_required_as_on_configured_model_creation() -> None:
    validate_config({"alpha": 1}, SCHEMA)
    assert _problems({"alpha": 1}, require_options_without_default=True) == [
        ConfigProblem("verbose", "a value is required"),
    ]
    assert _problems({}, require_options_without_default=True) == [
        ConfigProblem("alpha", "a value is required"),
        ConfigProblem("verbose", "a value is required"),
    ]


def test_validate_config_needs_a_config_schema() -> None:
    with pytest.raises(TypeError, match="ConfigSchema.from_dict"):
        validate_config({}, SCHEMA.to_dict())  # type: ignore[arg-type]


def test_defaults_fill_only_what_is_left_out() -> None:
    config = {"n_lags": 6, "alpha": 0.1}
    filled = apply_config_defaults(config, SCHEMA)
    assert filled == {"n_lags": 6, "alpha": 0.1, "method": "ols", "items": [1]}
    assert config == {"n_lags": 6, "alpha": 0.1}
    validate_config(filled, SCHEMA)


def test_filled_defaults_are_copies() -> None:
    filled = apply_config_defaults({}, SCHEMA)
    filled["items"].append(99)
    assert SCHEMA.properties["items"]["default"] == [1]


def test_defaults_keep_unknown_options_for_validation_to_judge() -> None:
    assert apply_config_defaults({"other": 1}, SCHEMA)["other"] == 1


def test_apply_config_defaults_needs_a_dict() -> None:
    with pytest.raises(TypeError, match="config must be a dict, got list"):
        apply_config_defaults([], SCHEMA)  # type: ignore[arg-type]


def test_numpy_values_are_judged_as_the_numbers_and_lists_they_hold() -> None:
    validate_config(
        {
            "alpha": np.float64(0.5),
            "n_lags": np.int64(2),
            "items": np.array([0, 4]),
            "verbose": np.bool_(False),
        },
        SCHEMA,
    )
    problems = _problems({"alpha": np.float64(-1.0), "n_lags": np.float64(2.5)})
    assert problems == [
        ConfigProblem("alpha", "-1.0 is less than the minimum of 0"),
        ConfigProblem("n_lags", "2.5 is not of type 'integer'"),
    ]


def test_filled_defaults_hold_plain_values_ready_for_json() -> None:
    filled = apply_config_defaults({"alpha": np.float64(0.5), "items": np.array([2])}, SCHEMA)
    assert filled == {"alpha": 0.5, "items": [2], "n_lags": 3, "method": "ols"}
    assert type(filled["alpha"]) is float and type(filled["items"][0]) is int
