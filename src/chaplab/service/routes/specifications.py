"""Backtest specifications and batch evaluations (chap-core 2.5.1's routes): a batch of
configured models queued under one specification, the list of specifications (with 2.5.1's
filters) and one specification's leaderboard (reading it queues the baselines it lacks, as
2.5.1 does). Paths span ``/v1/analytics`` and ``/v1/crud``."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response

from chaplab.service.domain import specifications
from chaplab.service.routes.dependencies import (
    DB,
    LIST_ANSWER,
    Paged,
    QueryInteger,
    State,
    with_total,
)
from chaplab.service.wire.specifications import (
    BacktestSpecificationRead,
    BacktestSpecificationSummary,
    MakeBacktestsRequest,
    MakeBacktestsResponse,
)

router = APIRouter(tags=["specifications"])


@router.post("/v1/analytics/create-backtests")
def create_backtests(
    request: MakeBacktestsRequest, session: DB, state: State
) -> MakeBacktestsResponse:
    """Queue one evaluation per configured model (id or name) on one dataset under one
    specification, and the baselines' runs the specification lacks."""
    answer = specifications.queue_batch(session, request)
    state.runner.wake()
    return answer


@router.get("/v1/crud/backtest-specifications", responses=LIST_ANSWER)
def list_backtest_specifications(
    session: DB,
    page: Paged,
    response: Response,
    dataset_id: Annotated[QueryInteger | None, Query(alias="datasetId")] = None,
    target_column: Annotated[str | None, Query(alias="targetColumn")] = None,
    n_periods: Annotated[QueryInteger | None, Query(alias="nPeriods")] = None,
    n_splits: Annotated[QueryInteger | None, Query(alias="nSplits")] = None,
    stride: Annotated[QueryInteger | None, Query()] = None,
    n_retrain: Annotated[QueryInteger | None, Query(alias="nRetrain")] = None,
    future_weather_provider: Annotated[str | None, Query(alias="futureWeatherProvider")] = None,
) -> list[BacktestSpecificationSummary]:
    """Specifications matching every filter given, by id, with how many evaluations ran under
    each; a page of them when ``limit`` or ``offset`` is given."""
    listed = specifications.list_specifications(
        session,
        {
            "dataset_id": dataset_id,
            "target_column": target_column,
            "n_periods": n_periods,
            "n_splits": n_splits,
            "stride": stride,
            "n_retrain": n_retrain,
            "future_weather_provider": future_weather_provider,
        },
        page,
    )
    return with_total(response, listed)


@router.get("/v1/crud/backtest-specifications/{specification_id}")
def get_backtest_specification(
    specification_id: int,
    session: DB,
    state: State,
    include_comparison_models: Annotated[bool, Query(alias="includeComparisonModels")] = False,
) -> BacktestSpecificationRead:
    """A specification's leaderboard: its evaluations compared with the reference models. The
    baselines it lacks (a specification of single evaluations has none yet) are queued, as
    2.5.1 queues them when a specification is read, and listed as pending."""
    if specifications.queue_baselines_of(session, specification_id):
        state.runner.wake()
    return specifications.get_specification(session, specification_id, include_comparison_models)
