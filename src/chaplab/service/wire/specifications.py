"""Wire models of backtest specifications and batch evaluations, in chap-core 2.5.1's shapes:
``POST /v1/analytics/create-backtests`` (``MakeBacktestsRequest`` -> ``MakeBacktestsResponse``),
the list of specifications (``BacktestSpecificationSummary``) and one specification with its
leaderboard (``BacktestSpecificationRead``: evaluations compared with the reference models)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from chaplab.service.wire.common import BacktestPlanRequest, Name, WireModel
from chaplab.service.wire.datasets import DatasetRead
from chaplab.service.wire.evaluations import BacktestFields
from chaplab.service.wire.models import ConfiguredModelRead

ReferenceStatus = Literal["pending", "done", "not_applicable", "failed"]


class SpecificationFields(WireModel):
    """What makes evaluations on a dataset comparable: a specification's backtest settings and
    target, as its wire shapes repeat them."""

    n_periods: int
    n_splits: int
    stride: int
    n_retrain: int
    future_weather_provider: str
    target_column: str


class MakeBacktestsRequest(BacktestPlanRequest):
    """Several configured models (ids or names) on one dataset under one specification."""

    name: Name
    model_ids: list[int | str] = Field(min_length=1, max_length=100)
    dataset_id: int
    target_column: Literal["disease_cases"] = Field(
        "disease_cases", title="Target column", description="the feature that is forecast"
    )


class BacktestJob(WireModel):
    configured_model_id: int
    job_id: str


class MakeBacktestsResponse(WireModel):
    """The specification every evaluation of the batch files under, and one job per model in
    request order."""

    specification_id: int
    jobs: list[BacktestJob]


class ReferenceComparison(WireModel):
    """An evaluation's aggregate metrics compared with one reference model's (positive: better)."""

    configured_model_id: int
    values: dict[str, float | None]


class LeaderboardBacktestRead(BacktestFields):
    n_retrain: int
    specification_id: int
    aggregate_metrics: dict[str, float]
    configured_model: ConfiguredModelRead
    dataset: DatasetRead
    comparisons: list[ReferenceComparison]


class ReferenceModelResult(WireModel):
    """A reference model's run on a specification: ``done`` once its evaluation is stored."""

    configured_model: ConfiguredModelRead
    status: ReferenceStatus
    message: str | None = None
    backtest_id: int | None = None
    aggregate_metrics: dict[str, float] = {}


class MetricInfo(WireModel):
    """One metric of ``aggregateMetrics`` and how its comparison value reads."""

    id: str
    display_name: str
    description: str
    unit: str | None = None
    target: float | None = None
    target_behavior: Literal["closest", "at_least"]
    optimization_direction: Literal["minimize", "maximize"] | None
    comparison_op: str
    comparison_description: str


class BacktestSpecificationSummary(SpecificationFields):
    id: int
    dataset: DatasetRead
    org_unit_count: int
    backtest_count: int = Field(description="evaluations of models that are not baselines")


class BacktestSpecificationRead(SpecificationFields):
    """A specification's leaderboard: its evaluations (newest first) with their comparisons,
    the baselines' runs, and the metrics the comparisons are keyed by."""

    id: int
    dataset: DatasetRead
    org_units: list[str]
    backtests: list[LeaderboardBacktestRead]
    baselines: list[ReferenceModelResult]
    comparison_models: list[ReferenceModelResult] | None = None
    metrics: list[MetricInfo]
