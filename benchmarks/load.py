"""Figure 5, API under load: the 95th percentile of ``GET /v1/crud/datasets`` while 4
evaluations run, against its idle value.

A fresh service (its default worker count) holds a synthetic dataset of 1,000 org units; 4
``regression_model`` evaluations (12 splits x 3 periods) are submitted at once, and the list is
requested one request after another until every job has ended (at least 20 requests). The idle
p95 comes from 100 requests before.
"""

from __future__ import annotations

import time

import httpx

from benchmarks.results import Result, within
from benchmarks.service import BenchService
from benchmarks.timing import percentile

IDLE_REQUESTS, MIN_LOADED_REQUESTS, EVALUATIONS = 100, 20, 4
LIMIT = 3.0


def request_seconds(http: httpx.Client, url: str) -> float:
    start = time.perf_counter()
    http.get(url).raise_for_status()
    return time.perf_counter() - start


def run() -> list[Result]:
    with BenchService() as service, httpx.Client(timeout=60.0) as http:
        url = f"{service.url}/v1/crud/datasets"
        dataset_id = service.add_dataset("bench load 1000 org units", 1000)
        for _ in range(10):  # warm the connection and the service's caches
            request_seconds(http, url)
        idle = [request_seconds(http, url) for _ in range(IDLE_REQUESTS)]
        jobs = [
            service.client.create_evaluation(
                f"bench load {k}", "regression_model", dataset_id, n_periods=3, n_splits=12
            ).id
            for k in range(EVALUATIONS)
        ]
        loaded: list[float] = []
        while True:
            loaded.extend(request_seconds(http, url) for _ in range(10))
            statuses = {job.id: job.status for job in service.client.list_jobs()}
            if len(loaded) >= MIN_LOADED_REQUESTS and all(
                statuses[job] not in ("PENDING", "STARTED") for job in jobs
            ):
                break
    idle_p95, loaded_p95 = percentile(idle, 0.95) * 1000, percentile(loaded, 0.95) * 1000
    return [
        within(
            "5 p95 GET /v1/crud/datasets during 4 evaluations",
            loaded_p95,
            idle_p95,
            LIMIT,
            "ms",
            "idle p95",
            note=f"{len(loaded)} requests under load",
        )
    ]
