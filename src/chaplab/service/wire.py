"""Request and response models of the service, in the wire spelling of ``docs/wire-contract.md``.

Stored resources are camelCase on the wire (snake_case is accepted on input too); job
descriptions and system information are snake_case. Every route declares one of these models
so that ``/openapi.json`` describes real schemas.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import AfterValidator, AliasChoices, BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from chaplab.service.text import printable

MAX_HORIZON = 520
"""The most periods one forecast reaches ahead: ten years of weeks."""
MAX_SPLITS = 1000
"""The most split points of one evaluation."""

Name = Annotated[str, Field(min_length=1, max_length=200), AfterValidator(printable)]
"""A name a person gave (dataset, evaluation, prediction): printable text."""
Identifier = Annotated[str, Field(min_length=1, max_length=200), AfterValidator(printable)]
"""An org unit or feature id: printable text."""
Horizon = Annotated[int, Field(gt=0, le=MAX_HORIZON, description="periods ahead")]
SplitCount = Annotated[int, Field(gt=0, le=MAX_SPLITS, description="split points")]
Stride = Annotated[int, Field(gt=0, le=MAX_HORIZON, description="periods between splits")]


class WireModel(BaseModel):
    """camelCase on the wire, snake_case or camelCase accepted on input."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
    )


class WireRequest(WireModel):
    """A request body, validated strictly: a number where an id is wanted (never ``true`` or
    ``"3"``), a string where a name is wanted. A value of the wrong type is a 422 naming the
    field, not something quietly converted."""

    model_config = ConfigDict(strict=True)


class SnakeModel(BaseModel):
    """snake_case on the wire (jobs, system information)."""


class DataSource(WireRequest):
    covariate: Identifier
    data_element_id: Identifier


class Observation(WireRequest):
    """One value of one feature for one org unit and period; ``null`` marks a missing value."""

    feature_name: Identifier
    org_unit: Identifier
    period: str
    value: float | None = Field(allow_inf_nan=False)


class DatasetRead(WireModel):
    id: int
    name: str
    type: str
    created: datetime
    first_period: str
    last_period: str
    period_type: str
    org_units: list[str]
    covariates: list[str]
    data_sources: list[DataSource]


class DatasetWithObservations(DatasetRead):
    observations: list[Observation]
    geojson: dict[str, Any] | None = None


class DatasetCreate(WireRequest):
    """``POST /v1/crud/datasets``: a dataset from inline JSON; the observations may also be
    sent as ``providedData``."""

    name: Name
    type: str = Field(default="evaluation", pattern="^(evaluation|prediction)$")
    observations: list[Observation] = Field(
        min_length=1, validation_alias=AliasChoices("observations", "providedData", "provided_data")
    )
    geojson: dict[str, Any] | None = None
    data_sources: list[DataSource] = []


class MakeDatasetRequest(WireRequest):
    """``POST /v1/analytics/make-dataset``: a dataset from provided data and org-unit polygons."""

    name: Name
    type: str = Field(default="evaluation", pattern="^(evaluation|prediction)$")
    geojson: dict[str, Any] | None = None
    provided_data: list[Observation] = Field(min_length=1)
    data_sources: list[DataSource] = []
    data_to_be_fetched: list[dict[str, Any]] = []


class FeatureRef(WireModel):
    name: str
    display_name: str


class ModelTemplateRead(WireModel):
    id: int
    name: str
    display_name: str
    description: str
    author: str
    supported_period_type: str
    target: str
    required_covariates: list[str]
    user_options: dict[str, dict[str, Any]]
    hpo_search_space: dict[str, Any] | None = None
    allow_free_additional_continuous_covariates: bool = False
    requires_geo: bool = False
    version: str = "1"
    archived: bool = False


class ModelSpecRead(WireModel):
    """A configured model (``id`` is the configured model's, never a template's)."""

    id: int
    name: str
    display_name: str
    description: str
    model_template_id: int
    supported_period_type: str
    user_option_values: dict[str, Any]
    additional_continuous_covariates: list[str]
    covariates: list[FeatureRef]
    target: FeatureRef
    archived: bool = False


class ConfiguredModelCreate(WireRequest):
    name: Annotated[str, Field(min_length=1, max_length=100), AfterValidator(printable)]
    model_template_id: int
    user_option_values: dict[str, Any] = {}
    additional_continuous_covariates: list[str] = []


class ConfiguredModelWithDataSourceRead(WireModel):
    id: int
    name: str
    created: datetime
    configured_model: ModelSpecRead
    period_type: str
    start_period: str | None
    org_units: list[str]
    data_sources: list[DataSource]


class BacktestRead(WireModel):
    id: int
    name: str
    created: datetime
    dataset_id: int
    model_id: str
    org_units: list[str]
    split_periods: list[str]
    max_horizon_distance: int
    n_periods: int
    n_splits: int
    stride: int
    aggregate_metrics: dict[str, float | None]
    configured_model: ModelSpecRead
    dataset: DatasetRead


class CreateBacktestRequest(WireRequest):
    """``modelId`` is a configured-model NAME; an integer is refused with a readable 422."""

    name: Name
    model_id: str | int
    dataset_id: int
    n_periods: Horizon = 3
    n_splits: SplitCount = 7
    stride: Stride = 1


class PredictionRequest(WireRequest):
    name: Name
    geojson: dict[str, Any] | None = None
    provided_data: list[Observation] = Field(min_length=1)
    data_sources: list[DataSource] = []
    data_to_be_fetched: list[dict[str, Any]] = []
    configured_model_with_data_source_id: int
    n_periods: Horizon = 3


class JobReference(WireModel):
    id: str


class EvaluationEntry(WireModel):
    org_unit: str
    period: str
    quantile: float
    value: float
    split_period: str


class PredictionEntry(WireModel):
    org_unit: str
    period: str
    quantile: float
    value: float


class ActualCase(BaseModel):
    pe: str
    ou: str
    value: float | None


class ActualCases(WireModel):
    feature_id: str
    dhis2_id: str
    data: list[ActualCase]


class JobDescription(SnakeModel):
    id: str
    type: str
    name: str
    status: str
    created: datetime
    start_time: datetime | None
    end_time: datetime | None
    result: str | None
    error: str | None


class JobLogLine(SnakeModel):
    time: datetime
    line: str


class SystemInfo(SnakeModel):
    chap_core_version: str
    chaplab_version: str
    python_version: str
    server_date: str
    server_time_zone_id: str
    database_backend: str
    workers: int
