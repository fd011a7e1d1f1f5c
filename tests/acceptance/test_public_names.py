"""The public names of docs/design.md exist with the documented signatures, sync and async."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pytest

import chaplab
from chaplab import AsyncChapClient, ChapClient

EMPTY = inspect.Parameter.empty
ANY_DEFAULT = object()

# method -> [(parameter name or None for "any name", default or EMPTY or ANY_DEFAULT)]
CLIENT_METHODS: dict[str, list[tuple[str | None, Any]]] = {
    "system_info": [],
    "health": [],
    "list_datasets": [],
    "get_dataset": [(None, EMPTY)],
    "create_dataset": [("name", EMPTY), ("frame", EMPTY), ("geojson", None)],
    "list_model_templates": [],
    "list_models": [],
    "list_configured_models": [],
    "create_configured_model": [
        ("name", EMPTY),
        ("model_template_id", EMPTY),
        ("user_option_values", None),
    ],
    "list_configured_models_with_data_source": [],
    "get_configured_model_with_data_source": [(None, EMPTY)],
    "create_configured_model_with_data_source_from_evaluation": [("evaluation_id", EMPTY)],
    "create_evaluation": [
        ("name", EMPTY),
        ("model", EMPTY),
        ("dataset_id", EMPTY),
        ("n_periods", None),
        ("n_splits", None),
        ("stride", None),
    ],
    "run_evaluation": [("name", EMPTY), ("model", EMPTY), ("dataset_id", EMPTY)],
    "list_evaluations": [],
    "get_evaluation": [(None, EMPTY)],
    "delete_evaluation": [(None, EMPTY)],
    "evaluation_entries": [
        ("evaluation_id", EMPTY),
        ("quantiles", (0.1, 0.25, 0.5, 0.75, 0.9)),
        ("split_period", None),
        ("org_units", None),
    ],
    "evaluation_frame": [
        ("evaluation_id", EMPTY),
        ("quantiles", ANY_DEFAULT),
        ("split_period", None),
        ("org_units", None),
    ],
    "actual_cases": [("evaluation_id", EMPTY), ("org_units", None)],
    "make_prediction": [("request", EMPTY)],
    "prediction_entries": [("prediction_id", EMPTY), ("quantiles", ANY_DEFAULT)],
    "prediction_frame": [],
    "job_status": [("job_id", EMPTY)],
    "list_jobs": [],
    "get_job": [("job_id", EMPTY)],
    "wait_for_job": [("job_id", EMPTY), ("timeout", None), ("poll_interval", None)],
}


def leading_parameters(function: Callable[..., Any], count: int) -> list[inspect.Parameter]:
    parameters = [p for p in inspect.signature(function).parameters.values() if p.name != "self"]
    assert len(parameters) >= count, f"{function.__qualname__}{inspect.signature(function)}"
    return parameters[:count]


def check_parameters(function: Callable[..., Any], expected: list[tuple[str | None, Any]]) -> None:
    for parameter, (name, default) in zip(
        leading_parameters(function, len(expected)), expected, strict=True
    ):
        where = f"{function.__qualname__}{inspect.signature(function)}"
        if name is not None:
            assert parameter.name == name, where
        if default is ANY_DEFAULT:
            assert parameter.default is not EMPTY, where
        elif default is EMPTY:
            assert parameter.default is EMPTY, where
        else:
            assert parameter.default == default, where
            if isinstance(default, tuple):
                assert tuple(parameter.default) == default, where


def test_top_level_names() -> None:
    assert chaplab.ChapClient is ChapClient
    assert chaplab.AsyncChapClient is AsyncChapClient
    assert callable(chaplab.connect)


@pytest.mark.parametrize("client_class", [ChapClient, AsyncChapClient])
def test_client_constructor(client_class: type) -> None:
    parameters = inspect.signature(client_class).parameters
    names = list(parameters)
    assert names[:6] == [
        "base_url",
        "proxy_prefix",
        "api_key",
        "api_key_header",
        "timeout",
        "transport",
    ], names
    assert parameters["proxy_prefix"].default == ""
    assert parameters["api_key"].default is None
    assert parameters["api_key_header"].default == "X-API-Key"
    assert parameters["timeout"].default == 30.0
    assert parameters["transport"].default is None


@pytest.mark.parametrize("method", sorted(CLIENT_METHODS))
def test_sync_client_method(method: str) -> None:
    function = getattr(ChapClient, method)
    assert not inspect.iscoroutinefunction(function)
    check_parameters(function, CLIENT_METHODS[method])


@pytest.mark.parametrize("method", sorted(CLIENT_METHODS))
def test_async_client_method_is_a_coroutine_with_the_same_signature(method: str) -> None:
    function = getattr(AsyncChapClient, method)
    assert inspect.iscoroutinefunction(function), method
    check_parameters(function, CLIENT_METHODS[method])
    sync_parameters = list(inspect.signature(getattr(ChapClient, method)).parameters)
    assert list(inspect.signature(function).parameters) == sync_parameters


def test_library_names() -> None:
    from chaplab.frames import entries_to_frame
    from chaplab.plotting import compare_chart, fan_chart
    from chaplab.schema import (
        apply_config_defaults,
        create_config_schema,
        schema_array,
        schema_boolean,
        schema_enum,
        schema_integer,
        schema_number,
        schema_string,
        schema_to_json,
        validate_config,
    )
    from chaplab.service import create_app
    from chaplab.toolkit import ServiceBuilder
    from chaplab.widgets import ChapPanel

    for function in (
        entries_to_frame,
        compare_chart,
        apply_config_defaults,
        schema_array,
        schema_boolean,
        schema_enum,
        schema_number,
        schema_string,
        validate_config,
        ChapPanel,
    ):
        assert callable(function)
    check_parameters(
        fan_chart,
        [
            ("frame", EMPTY),
            ("actuals", None),
            ("org_units", None),
            ("split_period", None),
            ("ax", None),
        ],
    )
    check_parameters(schema_to_json, [("schema", EMPTY), ("pretty", True)])
    assert {"title", "properties"} <= set(inspect.signature(create_config_schema).parameters)
    assert "default" in inspect.signature(schema_integer).parameters
    assert {"database_url", "api_keys"} <= set(inspect.signature(create_app).parameters)
    assert "title" in inspect.signature(ServiceBuilder).parameters
    assert list(inspect.signature(ChapPanel).parameters)[0] == "client"


def test_with_auth_parameters() -> None:
    from chaplab.toolkit import ServiceBuilder

    parameters = inspect.signature(ServiceBuilder.with_auth).parameters
    assert parameters["api_keys"].default is None
    assert parameters["api_key_file"].default is None
    assert parameters["env_var"].default == "SERVICE_API_KEYS"
    assert parameters["header_name"].default == "X-API-Key"
    assert parameters["unauthenticated_paths"].default is None


def test_builder_builds_a_fastapi_app() -> None:
    from fastapi import FastAPI

    from chaplab.toolkit import ServiceBuilder

    app = ServiceBuilder(title="Names").with_auth(api_keys=["sk_test_0123456789abcdef"]).build()
    assert isinstance(app, FastAPI)
