"""Wire models of registrations and small records: model templates registered by description,
external model runners (``/v2/services``, snake_case like the contract says), debug entries and
the data-source kinds."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from chaplab.service.wire import WireModel, WireRequest


class ModelTemplateCreate(WireRequest):
    """``POST /v1/crud/models``: a template described by its name, period type, covariates and
    configuration schema (the JSON form of ``chaplab.schema``)."""

    name: str = Field(min_length=1, max_length=100, pattern=r"^[A-Za-z][A-Za-z0-9_\-]*$")
    display_name: str | None = Field(None, max_length=200)
    description: str = Field(min_length=1, max_length=5000)
    author: str = Field("unknown", max_length=200)
    supported_period_type: Literal["any", "month", "week"] = "any"
    target: str = Field("disease_cases", min_length=1, max_length=200)
    required_covariates: list[str] = []
    config_schema: dict[str, Any] = Field(
        default_factory=lambda: {"type": "object", "properties": {}},
        description="a draft-07 configuration schema as written by chaplab.schema.schema_to_json",
    )


class RunnerRegistration(BaseModel):
    """``POST /v2/services/$register``: where an external model runner answers, and its info."""

    model_config = ConfigDict(extra="forbid", strict=True)
    url: str = Field(min_length=1, max_length=2000, description="http(s) URL of the runner")
    info: dict[str, Any] = Field(
        default_factory=dict, description="what the runner says about itself"
    )


class RunnerRead(BaseModel):
    id: int
    url: str
    info: dict[str, Any]
    registered_at: datetime
    last_ping_at: datetime
    ping_count: int
    status: Literal["live", "stale"]
    stale_after_seconds: float


class DebugEntryCreate(WireRequest):
    message: str = Field(min_length=1, max_length=10_000)
    details: dict[str, Any] = {}


class DebugEntryRead(WireModel):
    id: int
    message: str
    details: dict[str, Any]
    created: datetime


class DataSourceKind(WireModel):
    """A kind of data the service's models read, and which templates need it."""

    name: str
    display_name: str
    description: str
    period_types: list[str]
    used_by: list[str]
    role: Literal["target", "covariate"]
