"""Figure 13, a model from outside (issue 32): the same chapkit model service evaluated on our
service and on chap-core 2.5.1.

The model is ``tests/peer/scaled_mean/service.py`` (two Python functions served by chapkit in the
peer's Python 3.13 environment); one instance registers with a fresh chaplab service, another
with a chap-core 2.5.1 started as ``make test-peer`` starts it (a chapkit service registers with
one orchestrator). On each, through the client: a configured model of it, evaluated on the peer
tests' dataset (two org units, four years monthly) with 12 splits x 3 periods, from submitting
to ``wait_for_job`` returning.

Targets: ours at least 3x faster than chap-core (which polls the model service every 2 s); and
ours at most 1 s beyond the time the model service itself reports for the train and predict jobs
of our evaluation (the union of their started-to-finished intervals, as its
``/api/v1/jobs`` says).
"""

from __future__ import annotations

import tempfile
import time
from datetime import datetime
from pathlib import Path

import httpx
from tests.peer.chapkit_services import scaled_mean
from tests.peer.peer_data import observation_table, org_unit_geojson

from benchmarks.country_scale import chap_core
from benchmarks.results import Result, at_most, faster, reported
from chaplab.client import ChapClient
from chaplab.service import create_app
from chaplab.toolkit import BackgroundServer

N_SPLITS, N_PERIODS = 12, 3
SPEEDUP, OVERHEAD_SECONDS = 3.0, 1.0


def run() -> list[Result]:
    folder = Path(tempfile.mkdtemp(prefix="bench-model-services-"))
    table = observation_table().rename(columns={"org_unit": "location", "period": "time_period"})
    with (
        chap_core() as peer_url,
        ChapClient(peer_url) as peer,
        scaled_mean(peer_url, "bench-scaled-mean", folder / "peer-service.log"),
    ):
        dataset = peer.create_dataset("bench model services", table, org_unit_geojson())
        theirs = evaluation_seconds(peer, "bench-scaled-mean", dataset.id)
    app = create_app(folder / "chaplab.db", workers=2, seed_demo=False)
    with (
        BackgroundServer(app, "127.0.0.1") as server,
        ChapClient(server.url) as ours,
        scaled_mean(server.url, "bench-scaled-mean", folder / "our-service.log") as service,
    ):
        dataset = ours.create_dataset("bench model services", table, org_unit_geojson())
        started = datetime.now().astimezone()
        our_seconds = evaluation_seconds(ours, "bench-scaled-mean", dataset.id)
        reported_seconds = service_busy_seconds(service.url, started)
    return [
        faster(
            "13 chapkit model, 12 splits: ours vs chap-core 2.5.1",
            our_seconds,
            theirs,
            SPEEDUP,
            "s",
            "chap-core 2.5.1",
        ),
        at_most(
            "13 chapkit model, 12 splits: ours beyond the model service's own job time",
            our_seconds - reported_seconds,
            OVERHEAD_SECONDS,
            "s",
            note=f"the model service reports {reported_seconds:.2f} s of train and predict jobs",
        ),
        reported("13 chapkit model, 12 splits on ours", our_seconds, "s"),
    ]


def evaluation_seconds(client: ChapClient, service_id: str, dataset_id: int) -> float:
    """Seconds from submitting a 12-split evaluation of the service's model to its end."""
    template = client.register_template_from_service(service_id)
    model = client.create_configured_model("bench", template.id, {"scale": 2.0})
    start = time.perf_counter()
    client.run_evaluation("bench model service", model.name, dataset_id, N_PERIODS, N_SPLITS)
    return time.perf_counter() - start


def service_busy_seconds(url: str, since: datetime) -> float:
    """How long the model service says its jobs submitted after ``since`` ran: the union of
    their started-to-finished intervals."""
    jobs = httpx.get(f"{url}/api/v1/jobs", timeout=30).json()
    intervals = sorted(
        (datetime.fromisoformat(job["started_at"]), datetime.fromisoformat(job["finished_at"]))
        for job in jobs
        if job.get("started_at")
        and job.get("finished_at")
        and datetime.fromisoformat(job["submitted_at"]) >= since
    )
    busy, end = 0.0, None
    for begin, finish in intervals:
        if end is None or begin > end:
            busy += (finish - begin).total_seconds()
            end = finish
        elif finish > end:
            busy += (finish - end).total_seconds()
            end = finish
    return busy
