"""Wire models of evaluations (backtests): creation as a job, on inline data or as a row only,
edits, the stored evaluation and its full payload with entries, actual cases, overlaps and
metrics per org unit and per horizon."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from chaplab.service.wire.common import (
    BacktestPlanRequest,
    DatasetType,
    DataSource,
    Horizon,
    Name,
    TargetColumn,
    WireModel,
    WireRequest,
)
from chaplab.service.wire.datasets import DatasetRead, RejectedOrgUnit
from chaplab.service.wire.models import ConfiguredModelRead
from chaplab.service.wire.observations import ObservationColumns


class BacktestFields(WireModel):
    """What every wire shape of a stored evaluation (a backtest) starts with."""

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
    future_weather_provider: str
    model_template_version: str | None = Field(
        description="the template's version when the evaluation was stored (null for one "
        "stored before the service recorded it)"
    )
    chap_version: str | None = Field(
        None,
        description="the chap-core release that produced the evaluation: null, since this "
        "service is not chap-core (/system/info names its release)",
    )
    prediction_setup_id: int | None = Field(
        description="the prediction setup made from the evaluation, if any"
    )


class BacktestRead(BacktestFields):
    """2.5.1's ``BacktestRead``: the configured model in 2.5.1's shape (its template nested),
    and the specification the evaluation is filed under (null for an evaluation stored as a
    row only, which no specification's parameters describe)."""

    n_retrain: int = 1
    specification_id: int | None
    aggregate_metrics: dict[str, float | None]
    configured_model: ConfiguredModelRead
    dataset: DatasetRead


class CreateBacktestRequest(BacktestPlanRequest):
    """``modelId`` is a configured model's NAME, or its integer id (as 2.5.1 takes it)."""

    name: Name
    model_id: str | int = Field(description="the configured model's NAME, or its id")
    dataset_id: int
    target_column: TargetColumn = "disease_cases"


class CreateBacktestWithDataRequest(BacktestPlanRequest):
    """``POST /v1/analytics/create-backtest-with-data/``: an evaluation on data sent inline."""

    name: Name
    model_id: str = Field(min_length=1, description="the configured model's NAME")
    provided_data: ObservationColumns
    geojson: dict[str, Any] | None = None
    data_sources: list[DataSource] = []
    data_to_be_fetched: list[dict[str, Any]] = Field(
        [], description="data to fetch from outside: none, the service fetches nothing"
    )
    type: DatasetType | None = Field(
        None, description="2.5.1's dataset type: the data of an evaluation is 'evaluation'"
    )


class DataImportReport(WireModel):
    """Which org units of inline data a model can use and why the others are left out. With
    ``dryRun`` nothing is created (``id`` and ``datasetId`` are null)."""

    dry_run: bool
    id: str | None = Field(default=None, description="the evaluation job's id")
    dataset_id: int | None = None
    imported_count: int = Field(description="how many org units are (or would be) imported")
    imported_org_units: list[str]
    rejected: list[RejectedOrgUnit]
    periods: list[str]


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
    """The evaluations a bulk delete removed, and chap-core 2.5.1's sentence saying how many."""

    deleted_ids: list[int]
    message: str


class EvaluationEntry(WireModel):
    org_unit: str
    period: str
    quantile: float
    value: float
    split_period: str


class BacktestConfiguration(WireModel):
    n_periods: int
    n_splits: int
    stride: int
    n_samples: int


class BacktestFull(BacktestRead):
    """An evaluation with its configuration, configured model (also by id, 2.5.1's
    ``modelDbId``), dataset and predicted entries."""

    model_db_id: int
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


class ActualCase(BaseModel):
    pe: str
    ou: str
    value: float | None


class ActualCases(WireModel):
    feature_id: str
    dhis2_id: str
    data: list[ActualCase]


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
    horizon: int = Field(
        description="periods ahead: 1 is the split period, the first forecast period"
    )


class BacktestMetrics(WireModel):
    """``GET /v1/visualization/metrics/{backtest_id}``."""

    backtest_id: int
    metric_names: list[str]
    aggregate: dict[str, float | None]
    by_org_unit: list[OrgUnitMetrics]
    by_horizon: list[HorizonMetrics]
