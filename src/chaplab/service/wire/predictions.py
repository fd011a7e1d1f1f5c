"""Wire models of predictions: the forecast submit (by bundle, or the older one by model name),
the stored prediction, its full payload and its entries."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field

from chaplab.service.forecasting.weather import CLIMATOLOGY
from chaplab.service.wire.common import (
    DatasetType,
    DataSource,
    ForecastWeatherProviderId,
    Horizon,
    Name,
    WireModel,
    WireRequest,
)
from chaplab.service.wire.datasets import DatasetRead
from chaplab.service.wire.models import ConfiguredModelDB
from chaplab.service.wire.observations import ObservationColumns


class PredictionRequest(WireRequest):
    name: Name
    geojson: dict[str, Any] | None = None
    provided_data: ObservationColumns
    data_sources: list[DataSource] = []
    data_to_be_fetched: list[dict[str, Any]] = []
    configured_model_with_data_source_id: int
    n_periods: Horizon = 3
    meta_data: dict[str, Any] = Field(
        default_factory=dict, description="kept with the prediction, as its metaData"
    )


class LegacyPredictionRequest(WireRequest):
    """``POST /v1/analytics/make-prediction``: the older submit naming the configured model."""

    name: Name
    model_id: str = Field(min_length=1, description="the configured model's NAME")
    geojson: dict[str, Any] | None = None
    provided_data: ObservationColumns
    data_sources: list[DataSource] = []
    data_to_be_fetched: list[dict[str, Any]] = []
    n_periods: Horizon = 3
    future_weather_provider: ForecastWeatherProviderId = CLIMATOLOGY.id
    meta_data: dict[str, Any] = Field(
        default_factory=dict, description="kept with the prediction, as its metaData"
    )
    type: DatasetType | None = Field(
        None, description="2.5.1's dataset type: the data of a forecast is 'prediction'"
    )


class PredictionRowCreate(WireRequest):
    """``POST /v1/crud/predictions``: a prediction row without forecasts (no job runs)."""

    name: Name
    dataset_id: int
    configured_model_with_data_source_id: int


class PredictionInfo(WireModel):
    """A forecast without its entries, as 2.5.1 lists it (``PredictionInfo``): with its
    configured model's stored row, its dataset and the prediction setup whose run made it."""

    id: int
    name: str
    created: datetime
    dataset_id: int
    prediction_setup_id: int | None
    model_id: str
    n_periods: int
    meta_data: dict[str, Any] = Field(
        description="the metadata the forecast's request sent (2.5.1's free-form map)"
    )
    org_units: list[str]
    configured_model: ConfiguredModelDB | None
    dataset: DatasetRead


class PredictionRead(PredictionInfo):
    """A stored forecast: 2.5.1's ``PredictionInfo``, the bundle it was made with and the
    periods it forecasts."""

    configured_model_with_data_source_id: int
    periods: list[str]


class PredictionEntry(WireModel):
    org_unit: str
    period: str
    quantile: float
    value: float


class PredictionEntryWithId(PredictionEntry):
    prediction_id: int


class PredictionFull(PredictionRead):
    """A prediction with its forecast entries."""

    quantiles: list[float]
    forecasts: list[PredictionEntry]
