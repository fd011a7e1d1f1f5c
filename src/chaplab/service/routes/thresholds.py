"""Endemic thresholds (chap-core 2.5.1's routes): the strategies, and threshold lines of a
dataset's ``disease_cases`` for chosen periods and locations, each from the years before it."""

from __future__ import annotations

from fastapi import APIRouter

from chaplab.service.domain import thresholds
from chaplab.service.routes.dependencies import DB
from chaplab.service.wire.thresholds import (
    ThresholdRequest,
    ThresholdResponse,
    ThresholdStrategyInfo,
)

router = APIRouter(prefix="/v1/analytics/thresholds", tags=["thresholds"])


@router.get("/strategies")
def list_threshold_strategies() -> list[ThresholdStrategyInfo]:
    """The threshold strategies a request's ``params.type`` may select."""
    return thresholds.list_strategies()


@router.post("")
def compute_thresholds(request: ThresholdRequest, session: DB) -> ThresholdResponse:
    """Threshold lines per requested (period, location), each computed from the same month (or
    week) of the years before the period only; null where there is too little history."""
    return thresholds.compute_thresholds(session, request)
