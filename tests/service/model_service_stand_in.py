"""A stand-in for a chapkit model service, for the service tests (``make test`` runs without
the peer's Python 3.13 environment; tests/peer runs real chapkit services).

It answers chapkit's REST API as chapkit 2.4 does (info, config schema, configs, ``$train``,
``$predict``, jobs, artifacts) for a deterministic model: every future period of an org unit
gets the mean of its history times the option ``scale``, as two samples (that value and one
more). ``mode`` makes it misbehave the ways the fault tests need."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx
from fastapi import FastAPI, HTTPException, Response

from chaplab.toolkit import BackgroundServer

Mode = Literal["ok", "error", "fail", "malformed", "hold"]
"""``ok``; ``error``: ``$train`` answers 500; ``fail``: the train job fails with an error;
``malformed``: predictions without sample columns; ``hold``: jobs never finish."""


@dataclass
class StandIn:
    """The stand-in's state: what it was sent, and how it behaves."""

    service_id: str
    revision: str | None = "0123456789abcdef0123456789abcdef01234567"
    version: str = "1.0.0"
    mode: Mode = "ok"
    configs: dict[str, dict[str, Any]] = field(default_factory=dict)
    sent_configs: list[dict[str, Any]] = field(default_factory=list)
    jobs: dict[str, dict[str, Any]] = field(default_factory=dict)
    artifacts: dict[str, dict[str, Any]] = field(default_factory=dict)
    cancelled: list[str] = field(default_factory=list)
    submitted: threading.Event = field(default_factory=threading.Event)

    def info(self) -> dict[str, Any]:
        return {
            "id": self.service_id,
            "display_name": "Scaled mean",
            "version": self.version,
            "description": "Each place's mean of the history, times scale.",
            "model_metadata": {
                "author": "The chaplab tests",
                "author_note": "deterministic",
                "author_assessed_status": "yellow",
            },
            "git_revision": self.revision,
            "period_type": "monthly",
            "min_prediction_periods": 1,
            "max_prediction_periods": 6,
            "required_covariates": [],
            "target": "disease_cases",
        }

    def app(self) -> FastAPI:
        app = FastAPI()

        @app.get("/api/v1/info")
        def info() -> dict[str, Any]:
            return self.info()

        @app.get("/api/v1/configs/$schema")
        def schema() -> dict[str, Any]:
            return {
                "title": "ScaledMeanConfig",
                "type": "object",
                "properties": {
                    "prediction_periods": {"type": "integer", "default": 3},
                    "additional_continuous_covariates": {
                        "type": "array",
                        "items": {"type": "string"},
                        "default": [],
                    },
                    "scale": {"type": "number", "default": 1.0, "title": "Scale"},
                },
            }

        @app.post("/api/v1/configs", status_code=201)
        def create_config(body: dict[str, Any]) -> dict[str, Any]:
            config_id = uuid.uuid4().hex
            self.sent_configs.append(body["data"])
            data = {"prediction_periods": 3, "scale": 1.0, **body["data"]}
            self.configs[config_id] = data
            return {"id": config_id, "name": body["name"], "data": data}

        @app.delete("/api/v1/configs/{config_id}", status_code=204)
        def delete_config(config_id: str) -> Response:
            self.configs.pop(config_id, None)
            return Response(status_code=204)

        @app.post("/api/v1/ml/$train", status_code=202)
        def train(body: dict[str, Any]) -> dict[str, str]:
            if self.mode == "error":
                raise HTTPException(500, "the stand-in cannot train today")
            rows = _records(body["data"])
            scale = self.configs[body["config_id"]]["scale"]
            sums: dict[str, list[float]] = {}
            for row in rows:
                if row["disease_cases"] is not None:
                    sums.setdefault(row["location"], []).append(row["disease_cases"])
            means = {place: scale * sum(values) / len(values) for place, values in sums.items()}
            log = f"trained on {len(rows)} rows\nmeans {sorted(means.items())}"
            return self._job({"means": means}, log, failed=self.mode == "fail")

        @app.post("/api/v1/ml/$predict", status_code=202)
        def predict(body: dict[str, Any]) -> dict[str, str]:
            means = self.artifacts[body["artifact_id"]]["content"]["means"]
            future = _records(body["future"])
            if self.mode == "malformed":
                table = {"columns": ["time_period", "location"], "data": []}
            else:
                table = {
                    "columns": ["time_period", "location", "sample_0", "sample_1"],
                    "data": [
                        [row["time_period"], row["location"], means[row["location"]], 1.0]
                        for row in future
                    ],
                }
            return self._job(table, f"predicted {len(future)} rows")

        @app.get("/api/v1/jobs/{job_id}")
        def job(job_id: str) -> dict[str, Any]:
            return self.jobs[job_id]

        @app.delete("/api/v1/jobs/{job_id}", status_code=204)
        def cancel(job_id: str) -> Response:
            self.cancelled.append(job_id)
            self.jobs[job_id]["status"] = "canceled"
            return Response(status_code=204)

        @app.get("/api/v1/artifacts/{artifact_id}")
        def artifact(artifact_id: str) -> dict[str, Any]:
            if artifact_id not in self.artifacts:
                raise HTTPException(404, f"Entity with id {artifact_id} not found")
            return {"id": artifact_id, "data": self.artifacts[artifact_id]}

        return app

    def _job(self, content: Any, stdout: str, failed: bool = False) -> dict[str, str]:
        job_id, artifact_id = uuid.uuid4().hex, uuid.uuid4().hex
        status = "running" if self.mode == "hold" else "failed" if failed else "completed"
        self.jobs[job_id] = {
            "id": job_id,
            "status": status,
            "error": "ValueError: the stand-in's model broke" if failed else None,
        }
        self.artifacts[artifact_id] = {
            "type": "ml_prediction",
            "metadata": {"stdout": stdout, "stderr": ""},
            "content": content,
        }
        self.submitted.set()
        return {"job_id": job_id, "artifact_id": artifact_id}


def _records(table: dict[str, Any]) -> list[dict[str, Any]]:
    return [dict(zip(table["columns"], row, strict=True)) for row in table["data"]]


@contextmanager
def registered_stand_in(service_url: str, stand_in: StandIn) -> Iterator[str]:
    """The stand-in served on loopback and registered with the service as servicekit
    registers; yields its URL. It stays registered (and answering) until the block ends."""
    with BackgroundServer(stand_in.app(), "127.0.0.1") as server:
        answer = httpx.post(
            f"{service_url}/v2/services/$register",
            json={"id": stand_in.service_id, "url": server.url, "info": stand_in.info()},
        )
        answer.raise_for_status()
        yield server.url
