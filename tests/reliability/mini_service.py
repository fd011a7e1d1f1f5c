"""A small toolkit-built service speaking a slice of the modeling service's wire format.

It lets the client-fault tests run against a service whose every request is counted:
``/v1/crud/model-templates`` (a read with a body of several kilobytes), configured models (a
creating POST and a list), and evaluation jobs that finish after a few status reads.
"""

from __future__ import annotations

import itertools
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from fastapi import APIRouter, FastAPI, Request

from chaplab.toolkit import ProblemError, ServiceBuilder

TEMPLATE_COUNT = 12
STATUS_READS_UNTIL_DONE = 3


@dataclass
class MiniState:
    """What the mini service stores and how often each route was reached."""

    models: list[dict[str, Any]] = field(default_factory=list)
    jobs: dict[str, int] = field(default_factory=dict)
    hits: Counter[str] = field(default_factory=Counter)
    ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    lock: threading.Lock = field(default_factory=threading.Lock)


def _templates() -> list[dict[str, Any]]:
    return [
        {
            "id": number,
            "name": f"template_{number}",
            "displayName": f"Template {number}",
            "description": "A template of the mini service. " * 8,
            "supportedPeriodType": "any",
            "userOptions": {f"option_{k}": {"type": "integer", "default": k} for k in range(8)},
        }
        for number in range(1, TEMPLATE_COUNT + 1)
    ]


def _router(state: MiniState) -> APIRouter:
    router = APIRouter()
    templates = _templates()

    @router.get("/v1/crud/model-templates")
    def list_templates() -> list[dict[str, Any]]:
        state.hits["GET templates"] += 1
        return templates

    @router.get("/v1/crud/configured-models")
    def list_models() -> list[dict[str, Any]]:
        with state.lock:
            return list(state.models)

    @router.post("/v1/crud/configured-models")
    async def create_model(request: Request) -> dict[str, Any]:
        body = await request.json()
        with state.lock:
            state.hits["POST configured-models"] += 1
            record = {
                "id": next(state.ids),
                "name": f"template_1:{body['name']}",
                "modelTemplateId": body["modelTemplateId"],
            }
            state.models.append(record)
        return record

    @router.post("/v1/analytics/create-backtest")
    async def create_backtest(request: Request) -> dict[str, str]:
        await request.json()
        with state.lock:
            state.hits["POST create-backtest"] += 1
            job_id = f"job-{next(state.ids)}"
            state.jobs[job_id] = 0
        return {"id": job_id}

    def status_of(job_id: str) -> str:
        reads = state.jobs[job_id]
        return "SUCCESS" if reads >= STATUS_READS_UNTIL_DONE else "STARTED"

    @router.get("/v1/jobs/{job_id}")
    def job_status(job_id: str) -> str:
        with state.lock:
            if job_id not in state.jobs:
                raise ProblemError(404, detail=f"No job with id {job_id!r}")
            state.jobs[job_id] += 1
            return status_of(job_id)

    @router.get("/v1/jobs")
    def list_jobs() -> list[dict[str, Any]]:
        with state.lock:
            return [
                {"id": job_id, "status": status_of(job_id), "result": job_id.split("-")[1]}
                for job_id in state.jobs
            ]

    return router


def build_mini_service() -> tuple[FastAPI, MiniState]:
    """The app and its state (for counting what reached it)."""
    state = MiniState()
    app = ServiceBuilder(title="mini", version="1").include_router(_router(state)).build()
    return app, state
