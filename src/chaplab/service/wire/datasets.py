"""Wire models of datasets: the list item, the dataset with its observations, the two ways of
creating one, and the kinds of data the models read."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import AliasChoices, Field

from chaplab.service.wire.common import DataSource, Name, Observation, WireModel, WireRequest


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


class DataSourceKind(WireModel):
    """A kind of data the service's models read, and which templates need it."""

    name: str
    display_name: str
    description: str
    period_types: list[str]
    used_by: list[str]
    role: Literal["target", "covariate"]
