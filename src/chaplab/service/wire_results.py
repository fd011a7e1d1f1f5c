"""Wire models of evaluations and predictions beyond the main table: row-only creation, edits,
full payloads with entries, overlaps, per-org-unit and per-horizon metrics, imports with inline
data, and job results. camelCase on the wire like every stored resource (``wire.WireModel``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from chaplab.service.wire import (
    BacktestRead,
    DatasetRead,
    DataSource,
    EvaluationEntry,
    Horizon,
    Name,
    Observation,
    PredictionEntry,
    SplitCount,
    Stride,
    WireModel,
    WireRequest,
)


class BacktestRowCreate(WireRequest):
    """``POST /v1/crud/backtests``: an evaluation row without forecasts (no job runs)."""

    name: Name
    model_id: str = Field(min_length=1, description="the configured model's NAME")
    dataset_id: int
    n_periods: Horizon = 3


class BacktestUpdate(WireRequest):
    """``PATCH /v1/crud/backtests/{id}``: the editable fields; others are refused."""

    model_config = ConfigDict(extra="forbid")
    name: Name


class DeletedIds(WireModel):
    deleted_ids: list[int]


class BacktestConfiguration(WireModel):
    n_periods: int
    n_splits: int
    stride: int
    n_samples: int


class BacktestFull(BacktestRead):
    """An evaluation with its configuration, configured model, dataset and predicted entries."""

    configuration: BacktestConfiguration
    quantiles: list[float]
    forecasts: list[EvaluationEntry]


class BacktestOverlap(WireModel):
    """What two evaluations share: org units, split periods and forecast periods."""

    backtest_ids: list[int]
    same_dataset: bool
    org_units: list[str]
    split_periods: list[str]
    periods: list[str]


class CreateBacktestWithDataRequest(WireRequest):
    """``POST /v1/analytics/create-backtest-with-data/``: an evaluation on data sent inline."""

    name: Name
    model_id: str = Field(min_length=1, description="the configured model's NAME")
    provided_data: list[Observation] = Field(min_length=1)
    geojson: dict[str, Any] | None = None
    data_sources: list[DataSource] = []
    n_periods: Horizon = 3
    n_splits: SplitCount = 7
    stride: Stride = 1


class RejectedOrgUnit(WireModel):
    org_unit: str
    reason: str


class DataImportReport(WireModel):
    """Which org units of inline data a model can use and why the others are left out. With
    ``dryRun`` nothing is created (``id`` and ``datasetId`` are null)."""

    dry_run: bool
    id: str | None = Field(None, description="the evaluation job's id")
    dataset_id: int | None = None
    imported_org_units: list[str]
    rejected: list[RejectedOrgUnit]
    periods: list[str]


class MetricsOf(WireModel):
    """Metrics of one org unit or one horizon (null where nothing was observed)."""

    crps: float | None
    mae: float | None
    rmse: float | None
    coverage_10_90: float | None = Field(alias="coverage_10_90")
    coverage_25_75: float | None = Field(alias="coverage_25_75")
    winkler_score_10_90: float | None = Field(alias="winkler_score_10_90")
    winkler_score_25_75: float | None = Field(alias="winkler_score_25_75")


class OrgUnitMetrics(MetricsOf):
    org_unit: str


class HorizonMetrics(MetricsOf):
    horizon: int = Field(description="periods after the split period, from 1")


class BacktestMetrics(WireModel):
    """``GET /v1/visualization/metrics/{backtest_id}``."""

    backtest_id: int
    metric_names: list[str]
    aggregate: dict[str, float | None]
    by_org_unit: list[OrgUnitMetrics]
    by_horizon: list[HorizonMetrics]


class MetricPlotCatalog(BaseModel):
    """The metric chart names and the metric ids they draw."""

    visualizations: list[str]
    metrics: list[str]


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


class PredictionFull(PredictionRead):
    """A prediction with its dataset and forecast entries."""

    dataset: DatasetRead
    quantiles: list[float]
    forecasts: list[PredictionEntry]


class PredictionRowCreate(WireRequest):
    """``POST /v1/crud/predictions``: a prediction row without forecasts (no job runs)."""

    name: Name
    dataset_id: int
    configured_model_with_data_source_id: int


class LegacyPredictionRequest(WireRequest):
    """``POST /v1/analytics/make-prediction``: the older submit naming the configured model."""

    name: Name
    model_id: str = Field(min_length=1, description="the configured model's NAME")
    geojson: dict[str, Any] | None = None
    provided_data: list[Observation] = Field(min_length=1)
    data_sources: list[DataSource] = []
    data_to_be_fetched: list[dict[str, Any]] = []
    n_periods: Horizon = 3


class PredictionEntryWithId(PredictionEntry):
    prediction_id: int


class JobDatabaseResult(WireModel):
    """The row a successful job created."""

    job_id: str
    result_type: Literal["backtest", "prediction", "dataset"]
    id: int
    row: BacktestRead | PredictionRead | DatasetRead
