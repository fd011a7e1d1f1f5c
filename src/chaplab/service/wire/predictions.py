"""Wire models of predictions: the forecast submit (by bundle, or the older one by model name),
the stored prediction, its full payload and its entries."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field

from chaplab.service.wire.common import (
    DataSource,
    Horizon,
    Name,
    Observation,
    WireModel,
    WireRequest,
)
from chaplab.service.wire.datasets import DatasetRead


class PredictionRequest(WireRequest):
    name: Name
    geojson: dict[str, Any] | None = None
    provided_data: list[Observation] = Field(min_length=1)
    data_sources: list[DataSource] = []
    data_to_be_fetched: list[dict[str, Any]] = []
    configured_model_with_data_source_id: int
    n_periods: Horizon = 3


class LegacyPredictionRequest(WireRequest):
    """``POST /v1/analytics/make-prediction``: the older submit naming the configured model."""

    name: Name
    model_id: str = Field(min_length=1, description="the configured model's NAME")
    geojson: dict[str, Any] | None = None
    provided_data: list[Observation] = Field(min_length=1)
    data_sources: list[DataSource] = []
    data_to_be_fetched: list[dict[str, Any]] = []
    n_periods: Horizon = 3


class PredictionRowCreate(WireRequest):
    """``POST /v1/crud/predictions``: a prediction row without forecasts (no job runs)."""

    name: Name
    dataset_id: int
    configured_model_with_data_source_id: int


class PredictionRead(WireModel):
    id: int
    name: str
    created: datetime
    dataset_id: int
    configured_model_with_data_source_id: int
    model_id: str
    org_units: list[str]
    periods: list[str]
    n_periods: int


class PredictionEntry(WireModel):
    org_unit: str
    period: str
    quantile: float
    value: float


class PredictionEntryWithId(PredictionEntry):
    prediction_id: int


class PredictionFull(PredictionRead):
    """A prediction with its dataset and forecast entries."""

    dataset: DatasetRead
    quantiles: list[float]
    forecasts: list[PredictionEntry]
