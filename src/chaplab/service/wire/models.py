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
    description: str


class TemplateMetadata(WireModel):
    """Who made a template and how to cite and reach them (2.5.1's ``ModelTemplateMetaData``):
    a model service's ``model_metadata``; 2.5.1's defaults, or null, where nobody said."""

    author: str
    author_note: str = "No Author note yet"
    """2.5.1's defaults where the author says nothing: its schema allows no null here."""
    author_assessed_status: Literal["gray", "red", "orange", "yellow", "green"] = "red"
    organization: str | None = None
    organization_logo_url: str | None = None
    contact_email: str | None = None
    citation_info: str | None = None
    documentation_url: str | None = None


class TemplateSource(WireModel):
    """Where a template runs and which version of it: built in (version ``1``), or on a model
    service (chapkit) at ``sourceUrl``, whose version and source revision were stored."""

    version: str = "1"
    uses_chapkit: bool = False
    """Whether a model service (chapkit) runs the template; the fields below describe it."""
    source_url: str | None = None
    source_digest: str | None = None
    health_status: Literal["live", "revision_mismatch"] | None = None


class ModelTemplateRead(TemplateMetadata, TemplateSource):
    id: int
    name: str
    display_name: str
    description: str
    supported_period_type: str
    target: str
    required_covariates: list[str]
    user_options: dict[str, dict[str, Any]]
    hpo_search_space: dict[str, Any] | None = None
    allow_free_additional_continuous_covariates: bool = False
    requires_geo: bool = False
    archived: bool = False
    is_live: bool = Field(
        description="whether this is the template's version the service runs (2.5.1 keeps "
        "older versions as rows of their own); false once the template is retired"
    )
    min_prediction_periods: int | None = None
    max_prediction_periods: int | None = None
    min_prediction_length: int | None = Field(
        description="2.5.1's earlier name of minPredictionPeriods, the same value"
    )
    max_prediction_length: int | None = Field(
        description="2.5.1's earlier name of maxPredictionPeriods, the same value"
    )
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


class ModelSpecRead(TemplateMetadata, TemplateSource):
    """A configured model (``id`` is the configured model's, never a template's): 2.5.1's
    ``ModelSpecRead`` (its template's description, metadata and source) and its stored row
    (2.5.1's ``ConfiguredModelDB``: ``configurationDigest``, ``isLive``)."""

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
    configuration_digest: str
    is_live: bool = Field(description="whether the configured model is offered: not archived")
    training_periods: dict[str, int] = Field(
        default_factory=dict,
        description="how many periods the model trains on before its first forecast, by the "
        "period types it supports ('month', 'week'): a backtest's first split comes after them",
    )


class ConfiguredModelDetail(ModelSpecRead):
    """One configured model (``GET /v1/crud/configured-models/{id}``) with its template
    nested, as 2.5.1's ``ConfiguredModelRead``."""

    model_template: ModelTemplateRead


class ConfiguredModelDB(WireModel):
    """A configured model's stored row, as 2.5.1 joins it into a prediction."""

    id: int
    name: str
    model_template_id: int
    user_option_values: dict[str, Any]
    additional_continuous_covariates: list[str]
    configuration_digest: str
    archived: bool
    is_live: bool
    uses_chapkit: bool


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
