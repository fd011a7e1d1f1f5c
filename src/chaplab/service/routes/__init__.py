"""The service's routes, one module per resource group; :data:`ROUTERS` lists them in order."""

from __future__ import annotations

from fastapi import APIRouter

from chaplab.service.routes import (
    analytics,
    backtests,
    backtests_more,
    dataset_files,
    datasets,
    debug,
    job_results,
    jobs,
    models,
    models_more,
    predictions,
    registry,
    system,
    visualization,
)

ROUTERS: tuple[APIRouter, ...] = (
    system.router,
    datasets.router,
    models.router,
    backtests.router,
    analytics.router,
    jobs.router,
    backtests_more.router,
    dataset_files.router,
    models_more.router,
    predictions.router,
    job_results.router,
    visualization.router,
    registry.router,
    debug.router,
)
