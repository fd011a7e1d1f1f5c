"""Charts as PNG bytes (evaluations, datasets, metrics) and the metrics behind them as JSON.

Sync routes, so FastAPI renders in its thread pool, off the event loop. An unknown chart or
metric name gets 404 listing the known ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi import APIRouter, Response

from chaplab.service import charts
from chaplab.service.db import DatasetRow, EvaluationRow
from chaplab.service.result_views import evaluation_metrics
from chaplab.service.routes._deps import DB, get_or_404
from chaplab.service.routes.analytics import _actual_cases
from chaplab.service.wire_results import BacktestMetrics, MetricPlotCatalog
from chaplab.toolkit import ProblemError

router = APIRouter(tags=["visualization"])
PNG = {
    200: {
        "content": {"image/png": {"schema": {"type": "string", "format": "binary"}}},
        "description": "a PNG image",
    }
}


def _known(
    kind: str, name: str, known: Mapping[str, Any], field: str = "visualization_name"
) -> None:
    if name not in known:
        raise ProblemError(
            404,
            detail=f"{field}: no {kind} named {name[:80]!r}; known: {', '.join(known)}",
            errors=[
                {
                    "loc": ["path", field],
                    "field": field,
                    "msg": f"known: {', '.join(known)}",
                    "type": "not_found",
                }
            ],
        )


def _png(draw: Any) -> Response:
    try:
        return Response(charts.png_bytes(draw), media_type="image/png")
    except ValueError as error:  # e.g. an evaluation stored without forecasts
        raise ProblemError(409, detail=f"nothing to draw: {error}") from None


@router.get("/v1/visualization/backtest-plots/")
def backtest_plot_names() -> list[str]:
    return list(charts.BACKTEST_PLOTS)


@router.get(
    "/v1/visualization/backtest-plots/{visualization_name}/{backtest_id}",
    response_class=Response,
    responses=PNG,
)
def backtest_plot(visualization_name: str, backtest_id: int, session: DB) -> Response:
    _known("backtest plot", visualization_name, charts.BACKTEST_PLOTS)
    row = get_or_404(session, EvaluationRow, backtest_id, "backtest")
    actual_cases = _actual_cases(backtest_id, session).model_dump(by_alias=True)
    return _png(lambda: charts.BACKTEST_PLOTS[visualization_name](row, actual_cases))


@router.get("/v1/visualization/dataset-plots/")
def dataset_plot_names() -> list[str]:
    return list(charts.DATASET_PLOTS)


@router.get(
    "/v1/visualization/dataset-plots/{visualization_name}/{dataset_id}",
    response_class=Response,
    responses=PNG,
)
def dataset_plot(visualization_name: str, dataset_id: int, session: DB) -> Response:
    _known("dataset plot", visualization_name, charts.DATASET_PLOTS)
    row = get_or_404(session, DatasetRow, dataset_id, "dataset")
    return _png(lambda: charts.DATASET_PLOTS[visualization_name](row))


@router.get("/v1/visualization/metric-plots/{backtest_id}")
def metric_plot_names(backtest_id: int, session: DB) -> MetricPlotCatalog:
    """The metric chart names and the metric ids an evaluation can be drawn for."""
    get_or_404(session, EvaluationRow, backtest_id, "backtest")
    return MetricPlotCatalog(visualizations=list(charts.METRIC_PLOTS), metrics=list(charts.METRICS))


@router.get(
    "/v1/visualization/metric-plots/{visualization_name}/{backtest_id}/{metric_id}",
    response_class=Response,
    responses=PNG,
)
def metric_plot(visualization_name: str, backtest_id: int, metric_id: str, session: DB) -> Response:
    _known("metric plot", visualization_name, charts.METRIC_PLOTS)
    _known("metric", metric_id, dict.fromkeys(charts.METRICS), "metric_id")
    row = get_or_404(session, EvaluationRow, backtest_id, "backtest")
    return _png(lambda: charts.METRIC_PLOTS[visualization_name](row, metric_id))


@router.get("/v1/visualization/metrics/{backtest_id}")
def backtest_metrics(backtest_id: int, session: DB) -> BacktestMetrics:
    """Aggregate metrics and their breakdown per org unit and per horizon."""
    return evaluation_metrics(get_or_404(session, EvaluationRow, backtest_id, "backtest"))
