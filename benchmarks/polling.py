"""Figure 4, polling: how soon ``wait_for_job`` returns after a job ends, and how many status
requests it makes.

The service has no job of a chosen length, and its job times are stored to the second, so this
figure runs the client against a small job server with jobs of exact lengths that follows our
service's long-poll contract: ``GET /v1/jobs/{id}`` with ``Prefer: wait=N`` is held until the
status changes or N seconds (at most 30) pass, and answers ``Preference-Applied: wait=N``.
The stand-in checks its jobs every 50 ms; our service answers when its job runner announces the
change, so the stand-in's latency is an upper bound of ours. Jobs of 1, 2, 3, 5, 8 and 10 s
run one after another while a 60 s job runs beside them. Latency = the moment
``wait_for_job`` returned minus the job's end, on one monotonic clock.
Targets: median latency at most 250 ms; at most 30 status requests for the 60 s job.
"""

from __future__ import annotations

import asyncio
import re
import statistics
import threading
import time
import uuid
from dataclasses import dataclass, field

from fastapi import FastAPI, Header
from fastapi.responses import JSONResponse, Response

from benchmarks.results import Result, at_most
from chaplab.client import ChapClient
from chaplab.toolkit import BackgroundServer

SHORT_JOBS = (1.0, 2.0, 3.0, 5.0, 8.0, 10.0)
LONG_JOB = 60.0
LATENCY_LIMIT_MS, REQUEST_LIMIT = 250.0, 30
MAX_WAIT_SECONDS, CHECK_SECONDS = 30, 0.05
_WAIT = re.compile(r"(?:^|[,;\s])wait\s*=\s*(\d+)", re.IGNORECASE)


@dataclass
class TimedJob:
    id: str
    ends_at: float
    status_requests: int = 0

    def status(self) -> str:
        return "SUCCESS" if time.monotonic() >= self.ends_at else "STARTED"

    def describe(self) -> dict[str, object]:
        return {
            "id": self.id,
            "type": "create_backtest",
            "name": self.id,
            "status": self.status(),
            "result": "1",
            "error": None,
        }


@dataclass
class TimedJobServer:
    """Jobs that end at a set moment, served with the long-poll contract."""

    jobs: dict[str, TimedJob] = field(default_factory=dict)

    def add(self, seconds: float) -> TimedJob:
        job = TimedJob(str(uuid.uuid4()), time.monotonic() + seconds)
        self.jobs[job.id] = job
        return job

    def app(self) -> FastAPI:
        app = FastAPI()

        @app.get("/v1/jobs")
        def list_jobs() -> list[dict[str, object]]:
            return [job.describe() for job in self.jobs.values()]

        @app.get("/v1/jobs/{job_id}")
        async def job_status(job_id: str, prefer: str | None = Header(default=None)) -> Response:
            job = self.jobs.get(job_id)
            if job is None:
                return JSONResponse({"detail": "no such job"}, status_code=404)
            job.status_requests += 1
            status, headers = job.status(), {}
            match = _WAIT.search(prefer or "")
            if match:
                wait = min(int(match.group(1)), MAX_WAIT_SECONDS)
                deadline, first = time.monotonic() + wait, status
                while status == first and time.monotonic() < deadline:
                    await asyncio.sleep(CHECK_SECONDS)
                    status = job.status()
                headers["Preference-Applied"] = f"wait={wait}"
            return Response(f'"{status}"', media_type="application/json", headers=headers)

        return app


def wait_latency(url: str, job: TimedJob) -> float:
    """Seconds between the job's end and ``wait_for_job`` returning."""
    with ChapClient(url) as client:
        client.wait_for_job(job.id)
    return time.monotonic() - job.ends_at


def run() -> list[Result]:
    server = TimedJobServer()
    with BackgroundServer(server.app(), "127.0.0.1") as running:
        long_job = server.add(LONG_JOB)
        long_wait = threading.Thread(target=wait_latency, args=(running.url, long_job))
        long_wait.start()
        latencies = [wait_latency(running.url, server.add(seconds)) for seconds in SHORT_JOBS]
        long_wait.join()
    return [
        at_most(
            "4 wait_for_job latency after job end, 1-10 s jobs",
            statistics.median(latencies) * 1000,
            LATENCY_LIMIT_MS,
            "ms",
            note=f"max {max(latencies) * 1000:.0f} ms over {len(latencies)} jobs",
        ),
        at_most(
            "4 status requests for a 60 s job", long_job.status_requests, REQUEST_LIMIT, "requests"
        ),
    ]
