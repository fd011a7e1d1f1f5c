"""The paths every toolkit-built service serves besides its docs: ``/`` (a landing page) and
``/health`` (200 while the service can serve, 503 problem details when its check fails)."""

from __future__ import annotations

import html
import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from chaplab.toolkit.problems import ProblemError

HealthCheck = Callable[[], Any] | Callable[[], Awaitable[Any]]
"""A health check: returns (or awaits) None or True when healthy; False or an exception when not."""

logger = logging.getLogger("chaplab.toolkit.health")

_LANDING = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title} {version}</title>
<style>body{{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto}}</style>
</head><body>
<h1>{title}</h1>
<p>Version {version}</p>
<p>{description}</p>
<ul>
<li><a href="docs">Interactive API documentation</a> (/docs)</li>
<li><a href="redoc">API reference</a> (/redoc)</li>
<li><a href="openapi.json">OpenAPI description</a> (/openapi.json)</li>
<li><a href="health">Health</a> (/health)</li>
</ul>
</body></html>
"""


def landing_html(title: str, version: str, description: str) -> str:
    """The landing page naming the service and its version, with links to the docs."""
    return _LANDING.format(
        title=html.escape(title),
        version=html.escape(version),
        description=html.escape(description),
    )


async def _passes(check: HealthCheck) -> bool:
    if inspect.iscoroutinefunction(check):
        result = await check()
    else:
        result = await run_in_threadpool(check)
        if inspect.isawaitable(result):
            result = await result
    return result is not False


class HealthStatus(BaseModel):
    """The answer of a healthy ``/health`` (documented in ``/openapi.json``)."""

    status: str
    message: str
    service: str
    version: str


def standard_router(
    title: str, version: str, description: str, health_check: HealthCheck | None
) -> APIRouter:
    """Routes for ``/`` and ``/health``."""
    router = APIRouter()
    page = landing_html(title, version, description)

    @router.get("/", include_in_schema=False, response_class=HTMLResponse)
    async def landing() -> HTMLResponse:
        return HTMLResponse(page)

    @router.get("/health", tags=["health"], summary="Health check", response_model=HealthStatus)
    async def health() -> JSONResponse:
        """200 with a JSON body while the service can serve; 503 problem details otherwise."""
        if health_check is not None:
            try:
                healthy = await _passes(health_check)
            except Exception:
                logger.exception("Health check raised", extra={"event": "health.failed"})
                healthy = False
            else:
                if not healthy:
                    logger.warning(
                        "Health check reported unhealthy", extra={"event": "health.failed"}
                    )
            if not healthy:
                raise ProblemError(503, detail="The service's health check failed")
        return JSONResponse(
            {"status": "success", "message": "healthy", "service": title, "version": version}
        )

    return router
