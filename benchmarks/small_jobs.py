"""Figure 14, small jobs at interactive speed (issue 35): what an analyst launches over and over.

The data: 3 org units x 3 years of monthly cases, rainfall, temperature and population (built
here, deterministic). On a fresh service on loopback as ``chaplab.connect()`` starts it (a
child process with its own data folder), through the client, median of :data:`REPEATS` runs
each after one untimed run:

- evaluation: ``create_evaluation`` of ``naive_model``, 4 splits x 3 periods, to
  ``wait_for_job`` returning;
- upload: ``make_dataset`` (``POST /v1/analytics/make-dataset``, the route chap-core and the
  client's ``create_dataset`` use for full data) to ``wait_for_job`` returning.

Where the time goes: the same runs again on a fresh service in the benchmark's process, whose
statements and job path can be watched (its submit-to-result medians are a row of their own:
the client and the service then share one interpreter, so they run a few ms slower), each a
median over those runs:

- the create request (the client's create call returning the job);
- create request -> worker starts the job: the client's create call beginning to the runner
  handing the claimed job to a worker (a warm worker waits for it; the benchmark records when
  the runner's claim returned the job);
- the worker's own time for the job, as the worker reports it to the runner;
- worker's last write -> client sees SUCCESS: the runner receiving the worker's answer that
  the job ended (right after its final commit) to ``wait_for_job`` returning the job with its
  result; a job no worker ran (a small upload, stored while its request is answered) has
  instead: the create request returned -> client sees SUCCESS;
- database round trips per job: on the service's side (statements of the API and the runner
  from submit to result, over every run) and the worker's statements and commits (``do_job``
  run again in the benchmark process on a copy of the job, with an engine kept from copy to
  copy as a warm worker keeps its own);
- for the upload, the request's validation (parsing the body, building and checking the
  dataset, as ``POST /v1/analytics/make-dataset`` does before it queues the job); and the
  client's share of the create call before it
  sends anything: the frame's observations and their JSON text.

Side by side: the same runs on a chap-core 2.5.1 started as ``make test-peer`` starts it, in the
same run; targets: at most 40 ms (evaluation) and 30 ms (upload) on ours and at least 5x faster
than chap-core.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from sqlalchemy import Connection, Engine, event

from benchmarks.country_scale import chap_core
from benchmarks.results import Result, at_most, failed, faster, reported
from benchmarks.service import BenchService
from benchmarks.timing import times
from chaplab.client import ChapClient
from chaplab.frames import frame_to_observations
from chaplab.service import job_runner, worker
from chaplab.service.db import make_engine, session_factory, transaction
from chaplab.service.domain.datasets import check_target
from chaplab.service.embedded import start_embedded
from chaplab.service.storage import dataset_content
from chaplab.service.tables import JobRequestRow, JobRow, utc_now
from chaplab.service.wire.datasets import MakeDatasetRequest
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
    """Per kind of tiny job: submit-to-result and create-request seconds of each run, when
    each run's job was submitted and when the client had its result (``time.perf_counter``,
    by job id), and its last job's id."""

    seconds: dict[str, list[float]] = field(default_factory=dict)
    create_seconds: dict[str, list[float]] = field(default_factory=dict)
    submitted: dict[str, dict[str, float]] = field(default_factory=dict)
    seen: dict[str, dict[str, float]] = field(default_factory=dict)
    last_job: dict[str, str] = field(default_factory=dict)

    def median(self, kind: str) -> float:
        return statistics.median(self.seconds[kind])


Counting = Callable[[str], contextlib.AbstractContextManager[Any]]
"""Wraps the runs of one kind of job (e.g. counting the service's statements meanwhile)."""


def job_seconds(client: ChapClient, counting: Counting | None = None) -> Runs:
    """The tiny upload and evaluation, :data:`REPEATS` each after one untimed run of each."""
    table, geojson = tiny_table(), tiny_geojson()
    runs = Runs()
    for kind in KINDS:
        runs.create_seconds[kind], runs.submitted[kind], runs.seen[kind] = [], {}, {}

    def timed(kind: str, create: Callable[[], Any]) -> None:
        start = time.perf_counter()
        job = create()
        runs.create_seconds[kind].append(time.perf_counter() - start)
        runs.submitted[kind][job.id] = start
        done = client.wait_for_job(job.id, timeout=600.0)
        runs.seen[kind][job.id] = time.perf_counter()
        assert done.result_id is not None, f"job {job.id} stored no {kind} result"
        runs.last_job[kind] = job.id

    def upload() -> None:
        timed("upload", lambda: client.make_dataset("bench tiny", table, geojson))

    with counting("upload") if counting else contextlib.nullcontext():
        runs.seconds["upload"] = times(upload, REPEATS, warmup=1)
    dataset_id = client.list_datasets()[-1].id

    def evaluate() -> None:
        timed(
            "evaluation",
            lambda: client.create_evaluation(
                "bench tiny", MODEL, dataset_id, n_periods=N_PERIODS, n_splits=N_SPLITS, stride=1
            ),
        )

    with counting("evaluation") if counting else contextlib.nullcontext():
        runs.seconds["evaluation"] = times(evaluate, REPEATS, warmup=1)
    for kind in KINDS:  # the warm-up run is left out, as of the seconds
        runs.create_seconds[kind] = runs.create_seconds[kind][1:]
        del runs.submitted[kind][next(iter(runs.submitted[kind]))]
    return runs


@contextlib.contextmanager
def statements_of(engine: Engine, into: list[int]) -> Iterator[None]:
    """Count the statements ``engine`` sends to the database while the block runs (appended
    to ``into`` at its end)."""
    sent = [0]

    def count(*_arguments: Any) -> None:
        sent[0] += 1

    event.listen(engine, "before_cursor_execute", count)
    try:
        yield
    finally:
        event.remove(engine, "before_cursor_execute", count)
        into.append(sent[0])


@dataclass
class JobPath:
    """When (``time.perf_counter``) the job runner claimed each job (it hands it to a worker
    at once) and when it received the worker's answer that the job ended, with the seconds
    the worker reports for it, by job id."""

    claimed: dict[str, float] = field(default_factory=dict)
    answered: dict[str, tuple[float, float]] = field(default_factory=dict)


class _Answers(logging.Handler):
    """Records the runner's debug line of each worker's answer (job id, seconds of work)."""

    def __init__(self, path: JobPath) -> None:
        super().__init__(logging.DEBUG)
        self.path = path

    def emit(self, record: logging.LogRecord) -> None:
        if record.msg.startswith("job %s ended after") and isinstance(record.args, tuple):
            job_id, milliseconds = record.args[0], record.args[1]
            assert isinstance(milliseconds, float)
            self.path.answered[str(job_id)] = (time.perf_counter(), milliseconds / 1000)


@contextlib.contextmanager
def job_path_recorded(path: JobPath) -> Iterator[None]:
    """While the block runs, record the job runner's claims and its workers' answers."""
    claim = job_runner.claim_queued_jobs

    def recorded(*arguments: Any) -> list[str]:
        claimed = claim(*arguments)
        now = time.perf_counter()
        path.claimed.update(dict.fromkeys(claimed, now))
        return claimed

    handler = _Answers(path)
    level = job_runner.logger.level
    job_runner.logger.addHandler(handler)
    job_runner.logger.setLevel(logging.DEBUG)
    job_runner.claim_queued_jobs = recorded  # type: ignore[assignment]
    try:
        yield
    finally:
        job_runner.claim_queued_jobs = claim
        job_runner.logger.setLevel(level)
        job_runner.logger.removeHandler(handler)


def replay(service: BenchService, job_id: str) -> dict[str, float]:
    """Statements and commits of the worker's ``do_job`` on a copy of the job, run in this
    process on an engine that ran one copy before, as a warm worker's has."""
    factory = service.app.state.service.factory
    database_url = str(factory.kw["bind"].url.render_as_string(hide_password=False))
    with factory() as session:
        original = session.get_one(JobRow, job_id)
        job_type, payload = original.type, dict(original.payload)
    engine = make_engine(database_url)
    worker_factory = session_factory(engine)
    sent: list[int] = []
    commits: list[int] = []

    def count_commit(connection: Connection) -> None:
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
        with statements_of(engine, sent):
            worker.do_job(worker_factory, copy_id)

    event.listen(engine, "commit", count_commit)
    try:
        times(run_copy, 1, warmup=1)
    finally:
        event.remove(engine, "commit", count_commit)
        engine.dispose()
    return {"worker_statements": sent[-1], "worker_commits": len(commits)}


def validation_seconds(service: BenchService, job_id: str) -> float:
    """Median seconds of the make-dataset request's validation of the upload's body (kept
    with its job): parsing it, building and checking the dataset and its job payload."""
    with service.app.state.service.factory() as session:
        body = session.get_one(JobRequestRow, job_id).body

    def validate() -> None:
        request = MakeDatasetRequest.model_validate(body)
        content = dataset_content(
            request.provided_data, request.geojson, request.data_sources, "providedData"
        )
        check_target(content, request.type, "providedData")
        content.to_payload()

    return statistics.median(times(validate, REPEATS, warmup=1))


def client_body_seconds() -> float:
    """Median seconds of the client's work on the upload's body before sending it: the
    frame's observations and the body's JSON text (httpx's encoding)."""
    table, geojson = tiny_table(), tiny_geojson()

    def encode() -> None:
        body = {"providedData": frame_to_observations(table), "geojson": geojson}
        json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False)

    return statistics.median(times(encode, REPEATS, warmup=1))


def ours() -> dict[str, float]:
    """Our medians on the service as ``chaplab.connect()`` runs it (a child process, as
    chap-core is one), then where the time of each job went, from the same runs on a service in
    this process (whose statements and job path can be watched), and the load average."""
    with tempfile.TemporaryDirectory(prefix="chaplab-bench-small-jobs-") as folder:
        service = start_embedded(Path(folder))
        try:
            with ChapClient(service.url, timeout=600.0) as client:
                headline = job_seconds(client)
        finally:
            service.stop()
    figures = {kind: headline.median(kind) for kind in KINDS}
    return figures | where_the_time_goes()


def where_the_time_goes() -> dict[str, float]:
    """The stages of each job and its database round trips, on a service in this process
    (its API and runner share this process with the client, so its medians run a little
    slower than the headline's)."""
    with BenchService() as service:
        factory = service.app.state.service.factory
        service_statements: dict[str, list[int]] = {kind: [] for kind in KINDS}

        def counting(kind: str) -> contextlib.AbstractContextManager[None]:
            return statements_of(factory.kw["bind"], service_statements[kind])

        path = JobPath()
        with job_path_recorded(path):
            runs = job_seconds(service.client, counting)
        figures = {"load": os.getloadavg()[0]}
        for kind in KINDS:
            submitted, seen = runs.submitted[kind], runs.seen[kind]
            figures[f"{kind}_in_process"] = runs.median(kind)
            figures[f"{kind}_create"] = statistics.median(runs.create_seconds[kind])
            figures[f"{kind}_statements"] = service_statements[kind][0] / (REPEATS + 1)
            if not any(job_id in path.claimed for job_id in submitted):
                # stored while its request was answered (a small upload): no worker's stages
                figures[f"{kind}_after_create"] = statistics.median(
                    seen[job_id] - submitted[job_id] - create
                    for job_id, create in zip(submitted, runs.create_seconds[kind], strict=True)
                )
                continue
            figures[f"{kind}_to_start"] = statistics.median(
                path.claimed[job_id] - submitted[job_id] for job_id in submitted
            )
            figures[f"{kind}_worker"] = statistics.median(
                path.answered[job_id][1] for job_id in submitted
            )
            figures[f"{kind}_to_seen"] = statistics.median(
                seen[job_id] - path.answered[job_id][0] for job_id in submitted
            )
            figures |= {
                f"{kind}_{name}": value
                for name, value in replay(service, runs.last_job[kind]).items()
            }
        figures["upload_validation"] = validation_seconds(service, runs.last_job["upload"])
        figures["upload_client_body"] = client_body_seconds()
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
    load = f"load average {mine['load']:.1f} (a shared machine)"
    size = f"{N_ORG_UNITS} org units x {N_YEARS} years monthly, median of {REPEATS}; {load}"
    rows = [
        at_most(f"14 tiny {kind}", mine[kind], LIMITS[kind], "s", note=f"{label}; {size}")
        for kind, label in what.items()
    ]
    for kind in what:
        stages = {
            "submit to result, the service in this process": (
                mine[f"{kind}_in_process"],
                "the runs the stages below are taken from",
            ),
            "the create request": (mine[f"{kind}_create"], "the client's create call"),
        }
        if f"{kind}_after_create" in mine:
            stages["create request returned -> client sees SUCCESS"] = (
                mine[f"{kind}_after_create"],
                "stored while its request was answered (one commit, no worker): "
                "wait_for_job's read of the job",
            )
        else:
            stages |= {
                "create request -> worker starts the job": (
                    mine[f"{kind}_to_start"],
                    "the create call's start to the runner handing the claimed job to a worker",
                ),
                "the worker's own time": (
                    mine[f"{kind}_worker"],
                    f"as the warm worker reports it; {mine[f'{kind}_worker_statements']:.0f} "
                    f"statements, {mine[f'{kind}_worker_commits']:.0f} commits",
                ),
                "worker's last write -> client sees SUCCESS": (
                    mine[f"{kind}_to_seen"],
                    "the runner receiving the worker's answer to wait_for_job returning the job",
                ),
            }
        if kind == "upload":
            stages["the request's validation"] = (
                mine["upload_validation"],
                "parse, build and check the dataset (part of the create request)",
            )
            stages["the client's body"] = (
                mine["upload_client_body"],
                "the frame's observations and their JSON text (part of the create request)",
            )
        rows.extend(
            reported(f"14 tiny {kind}: {stage}", seconds, "s", note=f"{note}; {load}")
            for stage, (seconds, note) in stages.items()
        )
        rows.append(
            reported(
                f"14 tiny {kind}: database round trips per job, service side",
                mine[f"{kind}_statements"],
                "statements",
                note="API and runner statements from submit to result, over every run",
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
