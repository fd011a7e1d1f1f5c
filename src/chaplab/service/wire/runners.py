"""Wire models of the registry of model services (``/v2/services``, snake_case as chap-core
2.5.1 writes it): what servicekit sends to register, and 2.5.1's answers."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from chaplab.service.text import printable

SERVICE_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$"
"""A service id as servicekit writes it (a slug of the model's name)."""
AssessedStatus = Literal["gray", "red", "orange", "yellow", "green"]


class ModelMetadata(BaseModel):
    """Who wrote the model and where it is documented (chapkit's ``ModelMetadata``)."""

    model_config = ConfigDict(extra="allow")
    author: str | None = Field(None, max_length=500)
    author_note: str | None = Field(None, max_length=5000)
    author_assessed_status: AssessedStatus | None = None
    contact_email: str | None = Field(None, max_length=500)
    organization: str | None = Field(None, max_length=500)
    organization_logo_url: str | None = Field(None, max_length=2083)
    citation_info: str | None = Field(None, max_length=5000)
    repository_url: str | None = Field(None, max_length=2083)
    documentation_url: str | None = Field(None, max_length=2083)


class ServiceInfo(BaseModel):
    """What a model service says about itself (chapkit's ``MLServiceInfo``, as
    ``GET /api/v1/info`` answers it and registration sends it)."""

    model_config = ConfigDict(extra="allow")
    id: str = Field(min_length=1, max_length=200, pattern=SERVICE_ID_PATTERN)
    display_name: Annotated[str, AfterValidator(printable)] = Field(min_length=1, max_length=200)
    version: str = Field("1.0.0", min_length=1, max_length=100)
    description: str | None = Field(None, max_length=5000)
    model_metadata: ModelMetadata
    period_type: Literal["weekly", "monthly", "any"]
    min_prediction_periods: int = Field(0, ge=0)
    max_prediction_periods: int = Field(100, ge=0)
    allow_free_additional_continuous_covariates: bool = False
    required_covariates: list[str] = []
    requires_geo: bool = False
    target: str = Field("disease_cases", min_length=1, max_length=200)
    hpo_search_space: dict[str, Any] | None = None
    git_revision: str | None = Field(None, max_length=200)
    chapkit_version: str | None = Field(None, max_length=100)
    servicekit_version: str | None = Field(None, max_length=100)


class ServiceRegistration(BaseModel):
    """``POST /v2/services/$register``: where the service answers and its info; servicekit
    also sends the service's ``id``, which must then be the id of its info."""

    model_config = ConfigDict(extra="forbid")
    id: str | None = Field(None, max_length=200)
    url: Annotated[str, AfterValidator(printable)] = Field(
        min_length=1, max_length=2000, description="Base URL of the chapkit service"
    )
    info: ServiceInfo


class RegistrationResponse(BaseModel):
    id: str
    status: Literal["registered"] = "registered"
    service_url: str
    message: str
    ttl_seconds: int
    ping_url: str = Field(description="the absolute URL to PUT keepalive pings to")


class PingResponse(BaseModel):
    id: str
    status: Literal["alive"] = "alive"
    last_ping_at: datetime
    expires_at: datetime


class ServiceDetail(BaseModel):
    id: str
    url: str
    info: ServiceInfo = Field(description="what the service said of itself when it registered")
    registered_at: datetime
    last_updated: datetime
    last_ping_at: datetime
    expires_at: datetime


class ServiceList(BaseModel):
    count: int
    services: list[ServiceDetail]
