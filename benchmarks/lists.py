"""Figure 18, lists at scale (issue 47): a service holding 5,000 evaluations and 20,000 jobs.

The records are stored straight into a new database the way the service stores them (25
datasets of the demo generator, 8 configured models, each dataset's backtest specification;
per evaluation its row, with the samples of one real 4-split ``naive_model`` backtest, its
successful job and its run under the specification; then 15,000 more jobs: dataset jobs that
succeeded, evaluations and predictions that failed; two log lines per job), since running
5,000 evaluations would take the figure most of an hour. Then a service in a process of its own
(``chaplab serve``, as ``chaplab.connect()`` starts it) serves that database, and through the
client, :data:`REPEATS` times each after one untimed call, medians:

- a page of evaluations: ``list_evaluations(limit=50, offset=-50)`` (the newest 50);
- a page of jobs: ``list_jobs(limit=50)`` (the newest 50);
- finding a job: ``get_job`` of a job in the middle of the list (``GET /v1/jobs?ids=...``);
- the panel's first load: ``ChapPanel`` on an async client, from creation to ``ready()`` (a
  panel made on the small service first, so the kernel's one-time imports are not counted).

Target: each at most :data:`LIMIT` s. Beside each, its floor: the same call on a service holding
one page of each (50 evaluations, 50 jobs). Reported: the whole list of evaluations, as a
client without paging reads it. chap-core 2.5.1 is not beside it: filling it with 5,000
evaluations would take its one worker hours.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import select

from benchmarks.results import Result, reported
from chaplab.client import AsyncChapClient, ChapClient
from chaplab.service.db import make_engine, prepare_database, session_factory, transaction
from chaplab.service.demo import generate_demo
from chaplab.service.embedded import start_embedded
from chaplab.service.forecasting import TEMPLATES, run_backtest
from chaplab.service.job_types import queue_backtest_job, queue_dataset_job
from chaplab.service.seed import sync_templates
from chaplab.service.storage import DatasetContent, add_dataset_row, samples_to_bytes
from chaplab.service.tables import (
    ConfiguredModelRow,
    EvaluationRow,
    JobLogRow,
    JobRow,
    ModelTemplateRow,
    SpecificationRunRow,
    find_or_add_specification,
    finished_line,
    utc_now,
)
from chaplab.vocabulary import FAILURE, SUCCESS, BacktestPlan, JobType

N_EVALUATIONS, N_JOBS = 5_000, 20_000
N_DATASETS, N_MODELS = 25, 8
PAGE = 50
REPEATS = 7
LIMIT = 0.2
N_SPLITS, N_PERIODS = 4, 3
PLAN = BacktestPlan(n_periods=N_PERIODS, n_splits=N_SPLITS)
WEATHER = "climatology"


def seed(url: str, n_evaluations: int, n_jobs: int) -> str:
    """Store ``n_evaluations`` evaluations and ``n_jobs`` jobs (those of the evaluations among
    them) in the new database ``url``; the id of the job in the middle of the list."""
    engine = make_engine(url)
    prepare_database(engine)
    factory = session_factory(engine)
    sync_templates(factory)
    demo = generate_demo(n_org_units=3, n_years=4)
    result = run_backtest(TEMPLATES["naive_model"], {}, demo.panel, PLAN, 100, seed=1)
    samples = samples_to_bytes(result.samples)
    content = DatasetContent(demo.panel, demo.geojson, [])
    jobs: list[JobRow] = []
    with transaction(factory) as session:
        template = session.scalars(
            select(ModelTemplateRow).where(ModelTemplateRow.name == "naive_model")
        ).one()
        models = [
            ConfiguredModelRow(
                name=f"naive_model:bench_{index}",
                template=template,
                user_option_values={},
                additional_continuous_covariates=[],
            )
            for index in range(N_MODELS)
        ]
        session.add_all(models)
        datasets = [
            add_dataset_row(session, f"bench {index}", "evaluation", content, created_manually=True)
            for index in range(N_DATASETS)
        ]
        specifications = [find_or_add_specification(session, d, PLAN, WEATHER) for d in datasets]
        session.flush()
        for index in range(n_evaluations):
            specification = specifications[index % N_DATASETS]
            model = models[index % N_MODELS]
            name = f"bench evaluation {index}"
            job = queue_backtest_job(
                session, JobType.CREATE_BACKTEST, name, model.id, specification
            )
            row = EvaluationRow(
                name=name,
                dataset_id=specification.dataset_id,
                configured_model_id=model.id,
                org_units=result.org_units,
                split_periods=result.split_periods,
                periods=result.periods,
                n_periods=N_PERIODS,
                n_splits=N_SPLITS,
                stride=1,
                n_samples=100,
                aggregate_metrics={"crps": 10.0 + index % 7},
                samples=samples,
                specification_id=specification.id,
            )
            session.add(row)
            session.flush()
            _ended(job, SUCCESS, str(row.id))
            session.add(
                SpecificationRunRow(
                    specification_id=specification.id,
                    configured_model_id=model.id,
                    reference=False,
                    job_id=job.id,
                )
            )
            jobs.append(job)
        for index in range(n_jobs - n_evaluations):
            kind = index % 3
            if kind == 0:
                job = queue_dataset_job(session, f"bench upload {index}", "evaluation", {})
                _ended(job, SUCCESS, str(datasets[index % N_DATASETS].id))
            else:
                specification = specifications[index % N_DATASETS]
                job = queue_backtest_job(
                    session,
                    JobType.CREATE_BACKTEST,
                    f"bench failed {index}",
                    models[0].id,
                    specification,
                )
                _ended(job, FAILURE, None)
            jobs.append(job)
        middle = jobs[len(jobs) // 2].id
    engine.dispose()
    return middle


def _ended(job: JobRow, status: str, result: str | None) -> None:
    """A job that started and ended with ``status`` (and ``result``), with its log lines."""
    now = utc_now()
    job.status, job.start_time, job.end_time, job.result = status, now, now, result
    job.error = None if status == SUCCESS else "ValueError: the model could not be fitted"
    job.logs.append(JobLogRow(line="started"))
    job.logs.append(JobLogRow(line=finished_line(result) if result else "failed"))


@dataclass
class Seconds:
    """Median seconds of each operation on one service."""

    page: float
    jobs: float
    job: float
    panel: float
    whole: float


def measure(url: str, job_id: str) -> Seconds:
    """The medians of each operation through the client on the service at ``url``."""
    with ChapClient(url, timeout=600.0) as client:
        page = _median(lambda: client.list_evaluations(limit=PAGE, offset=-PAGE))
        jobs = _median(lambda: client.list_jobs(limit=PAGE))
        job = _median(lambda: client.get_job(job_id))
        whole = _median(client.list_evaluations, repeats=3)
    panel = statistics.median(asyncio.run(_panel_seconds(url)))
    return Seconds(page, jobs, job, panel, whole)


def _median(call: Callable[[], Any], repeats: int = REPEATS) -> float:
    call()
    measured = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        measured.append(time.perf_counter() - start)
    return statistics.median(measured)


async def _panel_seconds(url: str) -> list[float]:
    """Seconds from creating a panel to ``ready()``, for :data:`REPEATS` panels in turn."""
    from chaplab.widgets import ChapPanel

    measured = []
    async with AsyncChapClient(url, timeout=600.0) as client:
        for _ in range(REPEATS + 1):
            start = time.perf_counter()
            panel = ChapPanel(client)
            await panel.ready()
            measured.append(time.perf_counter() - start)
            panel.close()
    return measured[1:]


def on_service(folder: Path, n_evaluations: int, n_jobs: int) -> Seconds:
    """Seed a new database in ``folder``, serve it in a process of its own and measure."""
    url = f"sqlite:///{folder / 'chaplab.db'}"
    job_id = seed(url, n_evaluations, n_jobs)
    service = start_embedded(folder)
    try:
        return measure(service.url, job_id)
    finally:
        service.stop()


def run() -> list[Result]:
    with tempfile.TemporaryDirectory(prefix="chaplab-bench-lists-") as name:
        small = Path(name) / "small"
        small.mkdir()
        floor = on_service(small, PAGE, PAGE)
        large = Path(name) / "large"
        large.mkdir()
        start = time.perf_counter()
        scale = on_service(large, N_EVALUATIONS, N_JOBS)
        seeded = time.perf_counter() - start
    held = f"{N_EVALUATIONS:,} evaluations and {N_JOBS:,} jobs stored"
    rows = [
        (
            "18 a page of evaluations",
            scale.page,
            floor.page,
            "list_evaluations(limit=50, offset=-50)",
        ),
        ("18 a page of jobs", scale.jobs, floor.jobs, "list_jobs(limit=50)"),
        ("18 finding a job", scale.job, floor.job, "get_job of a job in the middle of the list"),
        ("18 the panel's first load", scale.panel, floor.panel, "ChapPanel() to ready()"),
    ]
    results = [
        Result(
            figure,
            seconds,
            "s",
            f"<= {LIMIT:g} s",
            base,
            "one page stored",
            seconds / base,
            seconds <= LIMIT,
            f"{held}; {what}; median of {REPEATS}; ratio: to the same call with one page stored",
        )
        for figure, seconds, base, what in rows
    ]
    results.append(
        reported(
            "18 the whole list of evaluations",
            scale.whole,
            "s",
            note=f"{held}; list_evaluations() without a page; the figure took {seeded:.0f} s",
        )
    )
    return results
