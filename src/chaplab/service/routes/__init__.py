"""The service's routes, one module per resource; :data:`ROUTERS` lists them in order.

A route reads the request, calls the resource's functions in :mod:`chaplab.service.domain` and
answers their wire models (:mod:`chaplab.service.wire`)."""

from __future__ import annotations

from fastapi import APIRouter

from chaplab.service.routes import (
    alerts,
    datasets,
    debug,
    discovery,
    evaluations,
    health,
    jobs,
    models,
    plots,
    prediction_setups,
    predictions,
    runners,
    specifications,
    system,
    thresholds,
)

ROUTERS: tuple[APIRouter, ...] = (
    system.router,
    health.router,
    datasets.router,
    models.router,
    evaluations.router,
    specifications.router,
    predictions.router,
    prediction_setups.router,
    discovery.router,
    thresholds.router,
    alerts.router,
    jobs.router,
    plots.router,
    runners.router,
    debug.router,
)
