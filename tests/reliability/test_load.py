"""Load: 20 concurrent async client sessions against ``chaplab serve`` on loopback for a bounded
time, mixing reads, entry queries, dataset uploads and 10 evaluation launches.

Checks: no 5xx, no ``database is locked`` reaching a client (or the log), every job terminal and
SUCCESS with a complete evaluation, no lost or duplicated rows; read latency figures printed.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from chaplab.client import AsyncChapClient, ChapError, ChapHTTPError, RetryPolicy

from .serve_process import ServeProcess
from .settings import BOUNDS

NO_RETRIES = RetryPolicy(max_retries=0)
QUANTILES = (0.1, 0.5, 0.9)
EVALUATION = dict(n_periods=2, n_splits=2)


@dataclass
class LoadRecord:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: list[str] = field(default_factory=list)
    jobs: dict[str, str] = field(default_factory=dict)  # evaluation name -> job id
    datasets: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def loaded_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    workdir = tmp_path_factory.mktemp("load")
    with ServeProcess(workdir / "chaplab.db", workdir, "--workers", "2") as service:
        yield service.start()


def small_dataset(name: str) -> dict[str, Any]:
    observations = [
        {
            "featureName": "disease_cases",
            "orgUnit": f"OU_{unit}",
            "period": f"2020{m:02d}",
            "value": float(unit * 10 + m),
        }
        for unit in range(3)
        for m in range(1, 13)
    ]
    return {"name": name, "type": "evaluation", "observations": observations}


async def timed(record: LoadRecord, kind: str, call: Callable[[], Awaitable[Any]]) -> Any:
    started = time.perf_counter()
    try:
        result = await call()
    except ChapHTTPError as error:
        record.errors.append(f"{kind}: HTTP {error.status_code} {error.body[:300]}")
        return None
    except ChapError as error:
        record.errors.append(f"{kind}: {error}")
        return None
    record.latencies[kind].append(time.perf_counter() - started)
    return result


async def one_session(number: int, url: str, deadline: float, record: LoadRecord) -> None:
    async with AsyncChapClient(url, retry=NO_RETRIES, timeout=120) as client:
        if number < BOUNDS.load_evaluations:
            name = f"load evaluation {number}"
            job = await timed(
                record,
                "launch evaluation",
                lambda: client.create_evaluation(name, "naive_model", 1, **EVALUATION),
            )
            if job is not None:
                record.jobs[name] = job.id
        dataset_name = f"load dataset {number}"
        body = small_dataset(dataset_name)
        started = time.perf_counter()
        async with httpx.AsyncClient(timeout=120) as http:
            response = await http.post(f"{url}/v1/crud/datasets", json=body)
        if response.status_code == 200:
            record.datasets.append(dataset_name)
            record.latencies["upload dataset"].append(time.perf_counter() - started)
        else:
            record.errors.append(f"upload: HTTP {response.status_code} {response.text[:300]}")
        reads: list[tuple[str, Callable[[], Awaitable[Any]]]] = [
            ("list datasets", client.list_datasets),
            ("list evaluations", client.list_evaluations),
            ("list configured models", client.list_configured_models),
            ("list jobs", client.list_jobs),
            ("evaluation entries", lambda: client.evaluation_entries(1, QUANTILES)),
            ("one dataset", lambda: client.get_dataset(2)),
        ]
        step = number
        while time.monotonic() < deadline:
            kind, call = reads[step % len(reads)]
            await timed(record, kind, call)
            step += 1


async def run_load(url: str) -> LoadRecord:
    record = LoadRecord()
    deadline = time.monotonic() + BOUNDS.load_seconds
    await asyncio.gather(
        *(one_session(n, url, deadline, record) for n in range(BOUNDS.load_sessions))
    )
    return record


def latency_table(record: LoadRecord) -> str:
    lines = [f"{'request':<24}{'count':>7}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}"]
    for kind, values in sorted(record.latencies.items()):
        ordered = sorted(values)
        p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
        lines.append(
            f"{kind:<24}{len(values):>7}{statistics.median(values) * 1000:>9.1f}"
            f"{p95 * 1000:>9.1f}{ordered[-1] * 1000:>9.1f}"
        )
    return "\n".join(lines)


def test_concurrent_sessions_see_no_server_error_and_lose_nothing(
    loaded_service: ServeProcess, capsys: pytest.CaptureFixture[str]
) -> None:
    url = loaded_service.url
    before = asyncio.run(list_names(url))
    record = asyncio.run(run_load(url))
    with capsys.disabled():
        print(
            f"\nload: {BOUNDS.load_sessions} sessions, {BOUNDS.load_seconds:g} s, "
            f"{sum(map(len, record.latencies.values()))} requests\n{latency_table(record)}"
        )

    assert record.errors == []
    assert len(record.jobs) == BOUNDS.load_evaluations
    asyncio.run(check_jobs(url, record))
    after = asyncio.run(list_names(url))
    assert sorted(after["evaluations"]) == sorted(before["evaluations"] + list(record.jobs))
    assert sorted(after["datasets"]) == sorted(before["datasets"] + record.datasets)
    assert "database is locked" not in loaded_service.log()


async def list_names(url: str) -> dict[str, list[str]]:
    async with AsyncChapClient(url, timeout=120) as client:
        return {
            "evaluations": [e.name or "" for e in await client.list_evaluations()],
            "datasets": [d.name or "" for d in await client.list_datasets()],
        }


async def check_jobs(url: str, record: LoadRecord) -> None:
    """Every launched job ends SUCCESS with a complete evaluation of the requested shape."""
    async with AsyncChapClient(url, timeout=120) as client:
        for name, job_id in record.jobs.items():
            job = await client.wait_for_job(job_id, timeout=600)
            evaluation = await client.get_evaluation(int(job.result or "0"))
            assert evaluation.name == name and evaluation.dataset_id == 1
            assert evaluation.n_splits == EVALUATION["n_splits"]
            entries = await client.evaluation_entries(evaluation.id, QUANTILES)
            cells = (evaluation.n_splits or 0) * len(evaluation.org_units)
            expected = cells * EVALUATION["n_periods"] * len(QUANTILES)
            assert len(entries) == expected
