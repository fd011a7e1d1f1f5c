"""Figure 14, small jobs at interactive speed (issue 35): what an analyst launches over and over.

The data: 3 org units x 3 years of monthly cases, rainfall, temperature and population (built
here, deterministic). On a fresh service on loopback, through the client, median of
:data:`REPEATS` runs each after one untimed run:

- evaluation: ``create_evaluation`` of ``naive_model``, 4 splits x 3 periods, to
  ``wait_for_job`` returning;
- upload: ``make_dataset`` (``POST /v1/analytics/make-dataset``, the route chap-core and the
  client's ``create_dataset`` use for full data) to ``wait_for_job`` returning.

Where the time goes: the same jobs' worker function (``run_job``) run again in the benchmark
process on a copy of the job (no fork, no runner, no HTTP): its time and its database commits;
the rest of the submit-to-result time is the job path (the create request, claiming the job,
starting the worker process, its database connection, noticing the end and answering the
client's wait).

Side by side: the same runs on a chap-core 2.5.1 started as ``make test-peer`` starts it, in the
same run; targets: at most 40 ms (evaluation) and 30 ms (upload) on ours and at least 5x faster
than chap-core.
"""

from __future__ import annotations

import math
import statistics
import uuid
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
from sqlalchemy import Connection, Engine, event

from benchmarks.country_scale import chap_core
from benchmarks.results import Result, at_most, failed, faster, reported
from benchmarks.service import BenchService
from benchmarks.timing import times
from chaplab.client import ChapClient
from chaplab.service import worker
from chaplab.service.db import transaction
from chaplab.service.tables import JobRow, utc_now
from chaplab.vocabulary import STARTED

MODEL = "naive_model"
N_ORG_UNITS, N_YEARS = 3, 3
N_SPLITS, N_PERIODS = 4, 3
REPEATS = 7
LIMITS = {"evaluation": 0.040, "upload": 0.030}
SPEEDUP = 5.0
KINDS = ("evaluation", "upload")


def tiny_table() -> pd.DataFrame:
    """3 org units x 36 months, one column per feature, a yearly season in cases and rain."""
    rows = []
    for unit in range(N_ORG_UNITS):
        for index in range(12 * N_YEARS):
            season = math.sin(2 * math.pi * (index % 12) / 12)
            rows.append(
                {
                    "location": f"OU_{unit}",
                    "time_period": f"{2020 + index // 12}-{index % 12 + 1:02d}",
                    "disease_cases": float(round(40 + 10 * unit + 15 * season + index % 5)),
                    "rainfall": round(120 + 80 * season + index * 13 % 17, 1),
                    "mean_temperature": round(25 + 2 * season + 0.5 * unit, 2),
                    "population": float(100_000 + 50_000 * unit),
                }
            )
    return pd.DataFrame(rows)


def tiny_geojson() -> dict[str, Any]:
    """One square polygon per org unit; ``id`` and ``NAME_1`` name it."""
    features = []
    for unit in range(N_ORG_UNITS):
        ring = [[unit, 0], [unit + 1, 0], [unit + 1, 1], [unit, 1], [unit, 0]]
        name = f"OU_{unit}"
        features.append(
            {
                "type": "Feature",
                "id": name,
                "properties": {"id": name, "name": name, "NAME_1": name},
                "geometry": {"type": "Polygon", "coordinates": [ring]},
            }
        )
    return {"type": "FeatureCollection", "features": features}


@dataclass
class Runs:
    """Submit-to-result seconds of each kind of tiny job, and the id of its last job."""

    seconds: dict[str, list[float]] = field(default_factory=dict)
    last_job: dict[str, str] = field(default_factory=dict)

    def median(self, kind: str) -> float:
        return statistics.median(self.seconds[kind])


def job_seconds(client: ChapClient) -> Runs:
    """The tiny upload and evaluation, :data:`REPEATS` each after one untimed run of each."""
    table, geojson = tiny_table(), tiny_geojson()
    runs = Runs()

    def upload() -> None:
        job = client.make_dataset("bench tiny", table, geojson)
        done = client.wait_for_job(job.id, timeout=600.0)
        assert done.result_id is not None, f"job {job.id} stored no dataset"
        runs.last_job["upload"] = job.id

    runs.seconds["upload"] = times(upload, REPEATS, warmup=1)
    dataset_id = client.list_datasets()[-1].id

    def evaluate() -> None:
        job = client.create_evaluation(
            "bench tiny", MODEL, dataset_id, n_periods=N_PERIODS, n_splits=N_SPLITS, stride=1
        )
        done = client.wait_for_job(job.id, timeout=600.0)
        assert done.result_id is not None, f"job {job.id} gave no evaluation"
        runs.last_job["evaluation"] = job.id

    runs.seconds["evaluation"] = times(evaluate, REPEATS, warmup=1)
    return runs


def replay(service: BenchService, job_id: str) -> tuple[float, int]:
    """Seconds and database commits of the worker's ``run_job`` on a copy of the job, run in
    this process (median seconds of :data:`REPEATS`; commits of the last)."""
    factory = service.app.state.service.factory
    database_url = str(factory.kw["bind"].url.render_as_string(hide_password=False))
    with factory() as session:
        original = session.get_one(JobRow, job_id)
        job_type, payload = original.type, dict(original.payload)
    service_engine = factory.kw["bind"]
    commits: list[int] = []

    def count_commit(connection: Connection) -> None:
        """A commit of the worker's own engine (the service's, in this process too, is not)."""
        if connection.engine is not service_engine:
            commits.append(1)

    def run_copy() -> None:
        copy_id = str(uuid.uuid4())
        with transaction(factory) as session:
            session.add(
                JobRow(
                    id=copy_id,
                    type=job_type,
                    payload=payload,
                    status=STARTED,
                    start_time=utc_now(),
                    name="bench replay",
                )
            )
        commits.clear()
        worker.run_job(database_url, copy_id)

    event.listen(Engine, "commit", count_commit)
    try:
        seconds = times(run_copy, REPEATS, warmup=1)
    finally:
        event.remove(Engine, "commit", count_commit)
    return statistics.median(seconds), len(commits)


def ours() -> dict[str, float]:
    """Our medians, the worker's own time and commits of each job."""
    with BenchService() as service:
        runs = job_seconds(service.client)
        figures = {kind: runs.median(kind) for kind in KINDS}
        for kind in KINDS:
            seconds, commits = replay(service, runs.last_job[kind])
            figures[f"{kind}_worker"] = seconds
            figures[f"{kind}_commits"] = commits
    return figures


def theirs() -> dict[str, float]:
    """chap-core 2.5.1's medians of the same runs."""
    with chap_core() as url, ChapClient(url, timeout=600.0) as client:
        runs = job_seconds(client)
    return {kind: runs.median(kind) for kind in KINDS}


def run() -> list[Result]:
    mine = ours()
    what = {
        "evaluation": f"{MODEL}, {N_SPLITS} splits x {N_PERIODS} periods, submit to result",
        "upload": "make-dataset and its job, submit to result",
    }
    size = f"{N_ORG_UNITS} org units x {N_YEARS} years monthly, median of {REPEATS}"
    rows = [
        at_most(f"14 tiny {kind}", mine[kind], LIMITS[kind], "s", note=f"{label}; {size}")
        for kind, label in what.items()
    ]
    for kind in what:
        rows.append(
            reported(
                f"14 tiny {kind}: the worker's run_job alone",
                mine[f"{kind}_worker"],
                "s",
                note=f"{mine[f'{kind}_commits']:.0f} commits; in-process on a copy of the job",
            )
        )
        rows.append(
            reported(
                f"14 tiny {kind}: the job path (start, end noticed, requests)",
                mine[kind] - mine[f"{kind}_worker"],
                "s",
                note="submit to result minus the worker's run_job",
            )
        )
    rows.extend(side_by_side(mine, what))
    return rows


def side_by_side(mine: dict[str, float], what: dict[str, str]) -> list[Result]:
    """The same runs on chap-core 2.5.1, ours at least :data:`SPEEDUP` times faster."""
    try:
        peer = theirs()
    except Exception as error:  # no chap-core here: its rows fail, ours stand
        return [failed("14 chap-core 2.5.1 side by side", error)]
    return [
        faster(
            f"14 tiny {kind}: ours vs chap-core 2.5.1",
            mine[kind],
            peer[kind],
            SPEEDUP,
            "s",
            "chap-core 2.5.1",
            note=f"median of {REPEATS} each, same run",
        )
        for kind in what
    ]
