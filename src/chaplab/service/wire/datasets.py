"""Wire models of datasets: the list item, the dataset with its observations, the two ways of
creating one, and the kinds of data the models read."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import AliasChoices, Field

from chaplab.service.wire.common import DataSource, Name, Observation, WireModel, WireRequest
from chaplab.service.wire.observations import ObservationColumns


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
    created_manually: bool = Field(
        description="true for a dataset stored as one, false for the data an evaluation or a "
        "prediction came with (chap-core 2.5.1's meaning)"
    )


class DatasetWithObservations(DatasetRead):
    observations: list[Observation]
    geojson: str | None = Field(
        None,
        description="the org units' polygons, a GeoJSON FeatureCollection as JSON text "
        "(chap-core 2.5.1's spelling)",
    )


class DatasetCreate(WireRequest):
    """``POST /v1/crud/datasets``: a dataset from inline JSON; the observations may also be
    sent as ``providedData``."""

    name: Name
    type: str = Field(default="evaluation", pattern="^(evaluation|prediction)$")
    observations: ObservationColumns = Field(
        validation_alias=AliasChoices("observations", "providedData", "provided_data")
    )
    geojson: dict[str, Any] | None = None
    data_sources: list[DataSource] = []


class MakeDatasetRequest(WireRequest):
    """``POST /v1/analytics/make-dataset``: a dataset from provided data and org-unit polygons."""

    name: Name
    type: str = Field(default="evaluation", pattern="^(evaluation|prediction)$")
    geojson: dict[str, Any] | None = None
    provided_data: ObservationColumns
    data_sources: list[DataSource] = []
    data_to_be_fetched: list[dict[str, Any]] = []


class RejectedOrgUnit(WireModel):
    """An org unit of inline data left out, why, and the feature and periods at fault
    (2.5.1's rejection: its OpenAPI document names FastAPI's ``ValidationError`` instead)."""

    org_unit: str
    reason: str
    feature_name: str
    time_periods: list[str]


class DatasetImportSummary(WireModel):
    """What ``POST /v1/analytics/make-dataset`` answers (2.5.1's ``ImportSummaryResponse``):
    the job storing the dataset, how many org units it stores, and those left out (none: data
    the service cannot store whole is refused with a 422)."""

    id: str = Field(description="the job's id")
    imported_count: int = Field(description="how many org units the dataset holds")
    rejected: list[RejectedOrgUnit]


class DataSourceKind(WireModel):
    """A kind of data the service's models read, and which templates need it."""

    name: str
    display_name: str
    description: str
    period_types: list[str]
    used_by: list[str]
    role: Literal["target", "covariate"]
    supported_features: list[str] = Field(
        description="the dataset features this kind delivers (2.5.1's field): itself"
    )
    dataset: str = Field(
        description="where its values come from (2.5.1's upstream dataset): 'provided', the "
        "data a request sends, since the service fetches nothing"
    )
