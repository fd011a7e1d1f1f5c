"""The wire models of every resource module: a ``null`` list or dict reads as empty, so one
such field never fails a whole call."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import ModuleType
from typing import Any

import httpx
from pydantic import BaseModel

from chaplab.client import (
    ConfiguredModelWithDataSource,
    Dataset,
    Evaluation,
    ModelSpec,
    ModelTemplate,
    PredictionRequest,
    _alerts,
    _datasets,
    _evaluations,
    _jobs,
    _model_catalog,
    _model_runners,
    _plots,
    _prediction_setups,
    _predictions,
    _system,
)

from .fake_service import CMWDS, DATASET, EVALUATION, MODEL_SPEC, TEMPLATE, FakeService

RESOURCE_MODULES: tuple[ModuleType, ...] = (
    _datasets,
    _evaluations,
    _jobs,
    _model_catalog,
    _model_runners,
    _plots,
    _predictions,
    _system,
)
MINIMAL: dict[type[BaseModel], dict[str, Any]] = {
    Dataset: {"id": 1},
    ModelTemplate: {"id": 1, "name": "t"},
    ModelSpec: {"id": 1, "name": "m"},
    ConfiguredModelWithDataSource: {"id": 1},
    Evaluation: {"id": 1},
    PredictionRequest: {"name": "p", "configuredModelWithDataSourceId": 1, "nPeriods": 1},
}


def _collection_fields(model: type[BaseModel]) -> dict[str, Any]:
    return {
        name: field
        for name, field in model.model_fields.items()
        if field.default_factory in (list, dict)
    }


def _wire_models() -> list[type[BaseModel]]:
    """Every pydantic model defined by a resource module."""
    return [
        value
        for module in RESOURCE_MODULES
        for value in vars(module).values()
        if isinstance(value, type)
        and issubclass(value, BaseModel)
        and value.__module__ == module.__name__
    ]


def test_every_list_and_dict_field_reads_null_as_empty() -> None:
    for model, minimal in MINIMAL.items():
        assert _collection_fields(model), model
        for name, field in _collection_fields(model).items():
            parsed = model.model_validate({**minimal, field.alias or name: None})
            assert getattr(parsed, name) == field.default_factory(), (model, name)


def test_null_collections_do_not_fail_list_calls(client: Any, fake: FakeService) -> None:
    fake.datasets = [{**DATASET, "orgUnits": None, "covariates": None, "dataSources": None}]
    spec = {
        **MODEL_SPEC,
        "userOptionValues": None,
        "additionalContinuousCovariates": None,
        "covariates": None,
    }
    fake.configured_models = [spec]
    fake.evaluations = {
        1: {
            **EVALUATION,
            "orgUnits": None,
            "splitPeriods": None,
            "aggregateMetrics": None,
            "configuredModel": spec,
        }
    }
    fake.fail(
        "GET /v1/crud/model-templates",
        httpx.Response(200, json=[{**TEMPLATE, "requiredCovariates": None, "userOptions": None}]),
    )
    fake.fail(
        "GET /v1/crud/configured-models-with-data-source",
        httpx.Response(
            200, json=[{**CMWDS, "orgUnits": None, "dataSources": None, "configuredModel": spec}]
        ),
    )
    assert client.list_datasets()[0].org_units == []
    assert client.list_configured_models()[0].additional_continuous_covariates == []
    [evaluation] = client.list_evaluations()
    assert (evaluation.split_periods, evaluation.aggregate_metrics) == ([], {})
    assert client.list_model_templates()[0].user_options == {}
    assert client.list_configured_models_with_data_source()[0].data_sources == []


def test_every_list_and_dict_field_of_every_wire_model_reads_null_as_empty() -> None:
    samples = {int: 1, str: "x", float: 0.5}
    checked = 0
    models = _wire_models()
    assert set(MINIMAL) <= set(models)
    for model in models:
        minimal = MINIMAL.get(model) or {
            field.alias or name: samples[field.annotation]
            for name, field in model.model_fields.items()
            if field.is_required()
        }
        for name, field in _collection_fields(model).items():
            parsed = model.model_validate({**minimal, field.alias or name: None})
            assert getattr(parsed, name) == field.default_factory(), (model, name)
            checked += 1
    assert checked >= 47


def _time_fields(model: type[BaseModel]) -> list[str]:
    return [
        field.alias or name
        for name, field in model.model_fields.items()
        if "datetime" in str(field.annotation)
    ]


def test_every_time_of_every_wire_model_is_aware_and_in_utc() -> None:
    """chap-core 2.5.1 sends UTC without an offset, our service with one: read from either,
    times compare and sort together."""
    models = [
        value
        for module in (*RESOURCE_MODULES, _alerts, _prediction_setups)
        for value in vars(module).values()
        if isinstance(value, type)
        and issubclass(value, BaseModel)
        and value.__module__ == module.__name__
    ]
    samples = {int: 1, str: "x", float: 0.5}
    checked = 0
    for model in models:
        minimal = MINIMAL.get(model) or {
            field.alias or name: samples.get(field.annotation, "x")
            for name, field in model.model_fields.items()
            if field.is_required()
        }
        for wire_name in _time_fields(model):
            naive = model.model_validate({**minimal, wire_name: "2026-01-01T10:00:00"})
            offset = model.model_validate({**minimal, wire_name: "2026-01-01T12:00:00+02:00"})
            naive_time = getattr(naive, _attribute(model, wire_name))
            offset_time = getattr(offset, _attribute(model, wire_name))
            assert naive_time == offset_time == datetime(2026, 1, 1, 10, tzinfo=UTC), model
            assert naive_time.utcoffset() == timedelta(0)
            checked += 1
    assert checked >= 12


def _attribute(model: type[BaseModel], wire_name: str) -> str:
    return next(
        name for name, field in model.model_fields.items() if (field.alias or name) == wire_name
    )


def test_times_from_both_servers_compare(client: Any, fake: FakeService) -> None:
    """A job listed by chap-core (naive UTC) and a dataset stored by our service (UTC with an
    offset) are ordered without a TypeError."""
    fake.add_job(id="j1")
    fake.datasets = [{**DATASET, "created": "2026-01-01T10:30:00+00:00"}]
    [job] = client.list_jobs()
    [dataset] = client.list_datasets()
    assert job.start_time < dataset.created
    assert sorted([dataset.created, job.start_time]) == [job.start_time, dataset.created]
