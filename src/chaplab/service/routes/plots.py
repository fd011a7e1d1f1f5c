"""Server-drawn plots (``/v1/visualization``): PNG charts of evaluations, datasets and metrics,
and the evaluation charts one facet at a time as Vega specs (chap-core 2.5.1's facet routes).

Sync routes, so FastAPI renders in its thread pool, off the event loop. An unknown chart or
metric name gets 404 listing the known ones. The metrics behind the metric charts are an
evaluation's (``GET /v1/visualization/metrics/{id}``, in :mod:`.evaluations`).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Response
from fastapi.responses import JSONResponse

from chaplab.service.domain import facets, plots
from chaplab.service.routes.dependencies import DB
from chaplab.service.wire.plots import FacetSpec, MetricPlotCatalog, PlotType

router = APIRouter(prefix="/v1/visualization", tags=["plots"])
PNG: dict[int | str, dict[str, Any]] = {
    200: {
        "content": {"image/png": {"schema": {"type": "string", "format": "binary"}}},
        "description": "a PNG image",
    }
}


@router.get("/backtest-plots/")
def backtest_plot_types() -> list[PlotType]:
    """The evaluation charts the service draws (their names go in the chart's URL)."""
    return plots.plot_types(plots.BACKTEST_PLOTS)


@router.get(
    "/backtest-plots/{visualization_name}/{backtest_id}", response_class=Response, responses=PNG
)
def backtest_plot(visualization_name: str, backtest_id: int, session: DB) -> Response:
    return png(plots.backtest_plot(session, visualization_name, backtest_id))


@router.get("/backtest-plots/{visualization_name}/{backtest_id}/facet-coords")
def backtest_plot_facets(
    visualization_name: str, backtest_id: int, session: DB
) -> dict[str, list[str]]:
    """Each facet dimension of the evaluation chart and its values (``split_period``,
    ``location``), as chap-core 2.5.1 answers them."""
    return facets.facet_coordinates(session, visualization_name, backtest_id)


@router.post("/backtest-plots/{visualization_name}/{backtest_id}/subplot")
def backtest_subplot(
    visualization_name: str,
    backtest_id: int,
    coordinates: Annotated[
        dict[str, Any], Body(description="facet dimension -> value, from facet-coords")
    ],
    session: DB,
) -> JSONResponse:
    """One facet of the evaluation chart as a Vega spec: the rows at the coordinates given (a
    dimension left out draws all its values together); 422 naming an unknown dimension or
    value."""
    return JSONResponse(facets.subplot(session, visualization_name, backtest_id, coordinates))


@router.get("/backtest-plots/{visualization_name}/{backtest_id}/subplots")
def backtest_subplots(visualization_name: str, backtest_id: int, session: DB) -> list[FacetSpec]:
    """Every facet of the evaluation chart as ``{key, spec}``: its coordinates and Vega spec."""
    return facets.subplots(session, visualization_name, backtest_id)


@router.get("/dataset-plots/")
def dataset_plot_types() -> list[PlotType]:
    """The dataset charts the service draws (their names go in the chart's URL)."""
    return plots.plot_types(plots.DATASET_PLOTS)


@router.get(
    "/dataset-plots/{visualization_name}/{dataset_id}", response_class=Response, responses=PNG
)
def dataset_plot(visualization_name: str, dataset_id: int, session: DB) -> Response:
    return png(plots.dataset_plot(session, visualization_name, dataset_id))


@router.get("/metric-plots/{backtest_id}")
def metric_plot_names(backtest_id: int, session: DB) -> MetricPlotCatalog:
    """The metric chart names and the metric ids an evaluation can be drawn for."""
    return plots.metric_plot_catalog(session, backtest_id)


@router.get(
    "/metric-plots/{visualization_name}/{backtest_id}/{metric_id}",
    response_class=Response,
    responses=PNG,
)
def metric_plot(visualization_name: str, backtest_id: int, metric_id: str, session: DB) -> Response:
    return png(plots.metric_plot(session, visualization_name, backtest_id, metric_id))


def png(image: bytes) -> Response:
    return Response(image, media_type="image/png")
