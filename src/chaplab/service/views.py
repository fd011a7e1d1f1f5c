"""Stored rows as wire models (the read side of every resource)."""

from __future__ import annotations

from chaplab.service import wire
from chaplab.service.db import (
    ConfiguredModelRow,
    ConfiguredModelWithDataSourceRow,
    DatasetRow,
    EvaluationRow,
    ModelTemplateRow,
)
from chaplab.service.forecasting import ModelTemplateSpec
from chaplab.service.registered_templates import template_spec


def display_name(name: str) -> str:
    """``mean_temperature`` -> ``Mean temperature``."""
    return name.replace("_", " ").capitalize()


def spec_of(template: ModelTemplateRow) -> ModelTemplateSpec:
    return template_spec(template)


def dataset_read(row: DatasetRow) -> wire.DatasetRead:
    return wire.DatasetRead(
        id=row.id,
        name=row.name,
        type=row.type,
        created=row.created,
        first_period=row.periods[0],
        last_period=row.periods[-1],
        period_type=row.period_type,
        org_units=row.org_units,
        covariates=[feature.name for feature in row.features],
        data_sources=row.data_sources,
    )


def template_read(row: ModelTemplateRow) -> wire.ModelTemplateRead:
    spec = spec_of(row)
    return wire.ModelTemplateRead(
        id=row.id,
        name=spec.name,
        display_name=spec.display_name,
        description=spec.description,
        author=spec.author,
        supported_period_type=spec.supported_period_type,
        target=spec.target,
        required_covariates=list(spec.required_covariates),
        user_options=spec.config_schema.properties,
        archived=row.archived,
    )


def model_spec(row: ConfiguredModelRow) -> wire.ModelSpecRead:
    spec = spec_of(row.template)
    own_name = row.name.split(":", 1)[1] if ":" in row.name else ""
    covariates = [*spec.required_covariates, *row.additional_continuous_covariates]
    return wire.ModelSpecRead(
        id=row.id,
        name=row.name,
        display_name=f"{spec.display_name} [{display_name(own_name)}]"
        if own_name
        else spec.display_name,
        description=spec.description,
        model_template_id=row.model_template_id,
        supported_period_type=spec.supported_period_type,
        user_option_values=row.user_option_values,
        additional_continuous_covariates=row.additional_continuous_covariates,
        covariates=[
            wire.FeatureRef(name=name, display_name=display_name(name)) for name in covariates
        ],
        target=wire.FeatureRef(name=spec.target, display_name=display_name(spec.target)),
        archived=row.archived,
    )


def bundle_read(row: ConfiguredModelWithDataSourceRow) -> wire.ConfiguredModelWithDataSourceRead:
    return wire.ConfiguredModelWithDataSourceRead(
        id=row.id,
        name=row.name,
        created=row.created,
        configured_model=model_spec(row.configured_model),
        period_type=row.period_type,
        start_period=row.start_period,
        org_units=row.org_units,
        data_sources=row.data_sources,
    )


def backtest_read(row: EvaluationRow) -> wire.BacktestRead:
    return wire.BacktestRead(
        id=row.id,
        name=row.name,
        created=row.created,
        dataset_id=row.dataset_id,
        model_id=row.configured_model.name,
        org_units=row.org_units,
        split_periods=row.split_periods,
        max_horizon_distance=row.n_periods,
        n_periods=row.n_periods,
        n_splits=row.n_splits,
        stride=row.stride,
        aggregate_metrics=row.aggregate_metrics,
        configured_model=model_spec(row.configured_model),
        dataset=dataset_read(row.dataset),
    )
