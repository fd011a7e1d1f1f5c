"""Figure 8, start-up, each in a fresh interpreter (median of several).

(a) ``import chaplab``: seconds of the import statement itself; the heavy libraries (pandas,
numpy, matplotlib, httpx, pydantic, jsonschema) must not be loaded by it;
(b) ``chaplab.connect()`` from nothing: a new interpreter without ``CHAP_URL`` and with an empty
data folder (``CHAPLAB_DATA_DIR``), from before ``import chaplab`` until the embedded child
service has answered a first request (``list_datasets``): database creation, demo content and
the child's imports included.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile

from benchmarks.results import Result, at_most

IMPORT_LIMIT, CONNECT_LIMIT = 0.3, 3.0
IMPORT_REPEATS, CONNECT_REPEATS = 7, 3
HEAVY = ("pandas", "numpy", "matplotlib", "httpx", "pydantic", "jsonschema")

IMPORT_SCRIPT = f"""
import json, sys, time
start = time.perf_counter()
import chaplab
seconds = time.perf_counter() - start
print(json.dumps({{"seconds": seconds, "heavy": [m for m in {HEAVY!r} if m in sys.modules]}}))
"""

CONNECT_SCRIPT = """
import json, time
start = time.perf_counter()
import chaplab
client = chaplab.connect()
client.list_datasets()
print(json.dumps({"seconds": time.perf_counter() - start}))
"""


def run_script(script: str, environment: dict[str, str]) -> dict[str, object]:
    completed = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=environment,
        check=True,
        timeout=300,
    )
    return json.loads(completed.stdout.strip().splitlines()[-1])


def clean_environment() -> dict[str, str]:
    return {
        name: value
        for name, value in os.environ.items()
        if name not in ("CHAP_URL", "CHAP_API_KEY", "CHAP_PROXY_PREFIX")
    }


def import_row() -> Result:
    runs = [run_script(IMPORT_SCRIPT, clean_environment()) for _ in range(IMPORT_REPEATS)]
    seconds = statistics.median(float(run["seconds"]) for run in runs)  # type: ignore[arg-type]
    heavy = sorted({name for run in runs for name in run["heavy"]})  # type: ignore[union-attr]
    row = at_most(
        "8 import chaplab",
        seconds,
        IMPORT_LIMIT,
        "s",
        note=f"heavy modules loaded: {', '.join(heavy) or 'none'}",
    )
    if heavy:
        return Result(**{**row.as_dict(), "passed": False})
    return row


def connect_row() -> Result:
    seconds = []
    for _ in range(CONNECT_REPEATS):
        with tempfile.TemporaryDirectory(prefix="chaplab-bench-connect-") as folder:
            environment = {**clean_environment(), "CHAPLAB_DATA_DIR": folder}
            seconds.append(float(run_script(CONNECT_SCRIPT, environment)["seconds"]))  # type: ignore[arg-type]
    return at_most(
        "8 connect() to a ready embedded service",
        statistics.median(seconds),
        CONNECT_LIMIT,
        "s",
        note="fresh interpreter and empty data folder; ends with a first answered request",
    )


def run() -> list[Result]:
    return [import_row(), connect_row()]
