"""Wire models of model templates, configured models and configured models with data source."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field

from chaplab.service.text import printable
from chaplab.service.wire.common import DataSource, FreeText, WireModel, WireRequest


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
    uses_chapkit: bool = False
    """Whether a model service (chapkit) runs the template; the fields below describe it."""
    source_digest: str | None = None
    health_status: Literal["live", "revision_mismatch"] | None = None
    author_note: str = "No Author note yet"
    """2.5.1's defaults where the author says nothing: its schema allows no null here."""
    author_assessed_status: Literal["gray", "red", "orange", "yellow", "green"] = "red"
    min_prediction_periods: int | None = None
    max_prediction_periods: int | None = None
    role: Literal["baseline", "comparison"] | None = None
    """``baseline`` for chap-core's baselines, ``comparison`` for a model service's template
    stored with that role, else null (2.5.1 lists it with every template)."""


class ModelTemplateFromService(WireRequest):
    """``POST /v1/crud/model-templates/from-service``: the id a model service registered
    under, and the role of its template."""

    service_id: str = Field(min_length=1, max_length=200)
    role: Literal["comparison"] | None = None


class ConfiguredModelRead(WireModel):
    """A configured model with its template (2.5.1's shape; no other fields)."""

    id: int
    name: str
    user_option_values: dict[str, Any]
    additional_continuous_covariates: list[str]
    configuration_digest: str
    model_template: ModelTemplateRead


class ModelTemplateCreate(WireRequest):
    """``POST /v1/crud/models``: a template described by its name, period type, covariates and
    configuration schema (the JSON form of ``chaplab.schema``)."""

    name: str = Field(min_length=1, max_length=100, pattern=r"^[A-Za-z][A-Za-z0-9_\-]*$")
    display_name: FreeText | None = Field(None, max_length=200)
    description: FreeText = Field(min_length=1, max_length=5000)
    author: FreeText = Field("unknown", max_length=200)
    supported_period_type: Literal["any", "month", "week"] = "any"
    target: FreeText = Field("disease_cases", min_length=1, max_length=200)
    required_covariates: list[str] = []
    config_schema: dict[str, Any] = Field(
        default_factory=lambda: {"type": "object", "properties": {}},
        description="a draft-07 configuration schema as written by chaplab.schema.schema_to_json",
    )


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
