"""Figure 17, a country's upload near its floor (issue 47).

The data: Brazil's 558 microregions x 240 months of ``chaplab.datasets.dengue_brazil()`` (five
features, 655,968 observed values), and its first 100 microregions x 96 months (2012-2019).

On SQLite and on PostgreSQL (a throwaway server of ``scripts/postgres/with-postgres``), in the
same run and alternating, :data:`REPEATS` times each after one untimed run, medians:

- ours: ``create_dataset`` of the country through the client, on a fresh service in a process
  of its own as ``chaplab.connect()`` starts it (``chaplab serve``), to the stored dataset;
- the floor (``benchmarks.upload_floor``): the same observations, as wire dicts built
  beforehand, encoded with orjson, sent over loopback to a process of their own, decoded with
  orjson and inserted as rows with the database's bulk path (``executemany``, ``COPY``).

Target: ours at most :data:`FLOOR_FACTOR` times the floor. Memory, in one more upload: the
growth of each side's peak resident memory (the service's process; the benchmark's, which
builds and sends the body), against the JSON body's size; target at most
:data:`MEMORY_FACTOR` times. Side by side: the same uploads on chap-core 2.5.1, started as
``make test-peer`` starts it (the country once, 100 places :data:`PEER_REPEATS` times), against
ours on SQLite; targets: at least :data:`SPEEDUP_COUNTRY` and :data:`SPEEDUP_HUNDRED` times
faster.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson
import pandas as pd

from benchmarks.country_scale import ROOT, chap_core
from benchmarks.results import Result, failed, faster, reported, within
from benchmarks.upload_floor import floor_receiver, send
from chaplab.client import ChapClient
from chaplab.datasets import dengue_brazil
from chaplab.frames import frame_to_observations, observation_rows
from chaplab.service.embedded import start_embedded

REPEATS = 5
PEER_REPEATS = 3
FLOOR_FACTOR = 1.5
MEMORY_FACTOR = 3.0
SPEEDUP_COUNTRY = 50.0
SPEEDUP_HUNDRED = 20.0
HUNDRED = 100
HUNDRED_FROM = "201201"
"""The first month of the 100 places' data (the table's periods are ``YYYYMM``)."""


def hundred_places(frame: pd.DataFrame) -> pd.DataFrame:
    """The first 100 microregions, 2012-2019: 100 places x 96 months."""
    places = frame["location"].drop_duplicates().iloc[:HUNDRED]
    chosen = frame["location"].isin(places) & (frame["time_period"] >= HUNDRED_FROM)
    return frame[chosen].reset_index(drop=True)


def body_bytes(frame: pd.DataFrame, geojson: dict[str, Any]) -> int:
    """The size of the JSON body ``create_dataset`` sends for ``frame``."""
    return len(
        orjson.dumps(
            {
                "name": "bench",
                "type": "evaluation",
                "geojson": geojson,
                "dataSources": [],
                "observations": orjson.Fragment(observation_rows(frame).json()),
            }
        )
    )


def _status_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    raise RuntimeError(f"/proc/{pid}/status has no {field}")


def peak_growth(pids: tuple[int, int], action: Callable[[], Any]) -> tuple[float, float]:
    """The growth of each process's peak resident memory (bytes) while ``action`` runs: the
    peak is reset first (``/proc/<pid>/clear_refs``), then compared with the memory then."""
    before = []
    for pid in pids:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
        before.append(_status_kib(pid, "VmRSS"))
    action()
    growth = [
        (_status_kib(pid, "VmHWM") - start) * 1024.0
        for pid, start in zip(pids, before, strict=True)
    ]
    return growth[0], growth[1]


@contextmanager
def throwaway_postgres() -> Iterator[str]:
    """A PostgreSQL server of ``scripts/postgres/with-postgres`` for the figure's life: the URL
    of its maintenance database."""
    waiting = (
        "import os, sys; print(os.environ['CHAPLAB_TEST_DATABASE_URL'], flush=True); "
        "sys.stdin.read()"
    )
    process = subprocess.Popen(
        [str(ROOT / "scripts" / "postgres" / "with-postgres"), sys.executable, "-c", waiting],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        url = process.stdout.readline().strip()
        if not url:
            raise RuntimeError("scripts/postgres/with-postgres did not start a server")
        yield url
    finally:
        process.stdin.close()
        process.wait(120)


def new_database(server: str | None, folder: Path, name: str) -> str:
    """A new, empty database: a SQLite file in ``folder``, or one on the PostgreSQL
    ``server`` (its maintenance database's URL)."""
    if server is None:
        return f"sqlite:///{folder / f'{name}.db'}"
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    database = f"bench_{name}_{uuid.uuid4().hex[:8]}"
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{database}"'))
    admin.dispose()
    return make_url(server).set(database=database).render_as_string(hide_password=False)


def backend(
    label: str, server: str | None, frame: pd.DataFrame, geojson: dict[str, Any], size: int
) -> tuple[list[Result], list[float]]:
    """Ours against the floor on one database, alternating; and ours' upload times."""
    wire = frame_to_observations(frame)
    ours: list[float] = []
    floor: list[float] = []
    with tempfile.TemporaryDirectory(prefix="chaplab-bench-upload-") as name:
        folder = Path(name)
        service = start_embedded(folder, database=new_database(server, folder, "service"))
        try:
            with (
                floor_receiver(new_database(server, folder, "floor")) as port,
                ChapClient(service.url, timeout=600.0) as client,
            ):
                upload = lambda: client.create_dataset(f"bench {uuid.uuid4().hex}", frame, geojson)  # noqa: E731
                upload()
                send(port, wire)
                for _ in range(REPEATS):
                    start = time.perf_counter()
                    assert send(port, wire) == len(wire)
                    floor.append(time.perf_counter() - start)
                    start = time.perf_counter()
                    upload()
                    ours.append(time.perf_counter() - start)
                assert service.process is not None
                server_growth, client_growth = peak_growth(
                    (service.process.pid, os.getpid()), upload
                )
        finally:
            service.stop()
    bulk = "executemany" if server is None else "COPY"
    load = f"load average {', '.join(f'{x:.1f}' for x in os.getloadavg())}"
    body_mib = size / 2**20
    rows = [
        within(
            f"17 upload a country vs its floor, {label}",
            statistics.median(ours),
            statistics.median(floor),
            FLOOR_FACTOR,
            "s",
            f"floor: orjson, loopback, {bulk}",
            note=f"{len(wire):,} values; median of {REPEATS}, alternating; ours: "
            + ", ".join(f"{x:.2f}" for x in ours)
            + "; floor: "
            + ", ".join(f"{x:.2f}" for x in floor)
            + f"; {load}",
        ),
        within(
            f"17 upload memory, the service's side, {label}",
            server_growth / 2**20,
            body_mib,
            MEMORY_FACTOR,
            "MiB",
            "the body",
            note="growth of the service process's peak resident memory",
        ),
        within(
            f"17 upload memory, the client's side, {label}",
            client_growth / 2**20,
            body_mib,
            MEMORY_FACTOR,
            "MiB",
            "the body",
            note="growth of the benchmark process's peak resident memory (body built and sent)",
        ),
    ]
    return rows, ours


def ours_hundred(frame: pd.DataFrame, geojson: dict[str, Any]) -> list[float]:
    """Our upload times of 100 places on SQLite, after one untimed run."""
    with tempfile.TemporaryDirectory(prefix="chaplab-bench-upload-") as name:
        service = start_embedded(Path(name))
        try:
            with ChapClient(service.url, timeout=600.0) as client:
                upload = lambda: client.create_dataset(f"bench {uuid.uuid4().hex}", frame, geojson)  # noqa: E731
                upload()
                measured = []
                for _ in range(REPEATS):
                    start = time.perf_counter()
                    upload()
                    measured.append(time.perf_counter() - start)
                return measured
        finally:
            service.stop()


def peer_times(
    country: pd.DataFrame, hundred: pd.DataFrame, geojson: dict[str, Any]
) -> tuple[float, list[float]]:
    """chap-core 2.5.1's upload of the country (once) and of 100 places."""
    with chap_core() as url, ChapClient(url, timeout=3600.0) as client:
        start = time.perf_counter()
        client.create_dataset("bench country", country, geojson)
        whole = time.perf_counter() - start
        measured = []
        for index in range(PEER_REPEATS):
            start = time.perf_counter()
            client.create_dataset(f"bench hundred {index}", hundred, geojson)
            measured.append(time.perf_counter() - start)
    return whole, measured


def run() -> list[Result]:
    frame, geojson = dengue_brazil()
    hundred = hundred_places(frame)
    size = body_bytes(frame, geojson)
    rows: list[Result] = [
        reported(
            "17 the country's upload body",
            size / 2**20,
            "MiB",
            note=f"{frame['location'].nunique()} places x {frame['time_period'].nunique()} "
            "months, JSON as create_dataset sends it",
        )
    ]
    sqlite_rows, ours = backend("SQLite", None, frame, geojson, size)
    rows.extend(sqlite_rows)
    try:
        with throwaway_postgres() as server:
            rows.extend(backend("PostgreSQL", server, frame, geojson, size)[0])
    except Exception as error:  # no PostgreSQL here: its rows fail, the rest stands
        rows.append(failed("17 upload a country, PostgreSQL", error))
    ours_small = ours_hundred(hundred, geojson)
    try:
        whole, small = peer_times(frame, hundred, geojson)
    except Exception as error:
        return [*rows, failed("17 chap-core 2.5.1 side by side", error)]
    places = f"{hundred['location'].nunique()} places x {hundred['time_period'].nunique()} months"
    rows += [
        faster(
            "17 upload a country: ours vs chap-core 2.5.1",
            statistics.median(ours),
            whole,
            SPEEDUP_COUNTRY,
            "s",
            "chap-core 2.5.1",
            note="ours on SQLite, the median above; chap-core once, same run",
        ),
        faster(
            "17 upload 100 places: ours vs chap-core 2.5.1",
            statistics.median(ours_small),
            statistics.median(small),
            SPEEDUP_HUNDRED,
            "s",
            "chap-core 2.5.1",
            note=f"{places}; medians of {REPEATS} (ours, SQLite) and {PEER_REPEATS} (chap-core)",
        ),
    ]
    return rows
