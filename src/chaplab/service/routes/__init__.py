"""The service's routes, one module per resource group; :data:`ROUTERS` lists them in order."""

from __future__ import annotations

from fastapi import APIRouter

from chaplab.service.routes import analytics, backtests, datasets, jobs, models, system

ROUTERS: tuple[APIRouter, ...] = (
    system.router,
    datasets.router,
    models.router,
    backtests.router,
    analytics.router,
    jobs.router,
)
