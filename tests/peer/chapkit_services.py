"""Real chapkit model services for the tests and benchmarks, run in the peer's Python 3.13
environment and registered with an orchestrator (chap-core 2.5.1 or chaplab's service) as
chapkit registers: ``scaled_mean`` (``scaled_mean/service.py``, two Python functions) and any
command, such as ``chapkit run`` of an MLproject (``running``)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

import httpx

from .model_service import REVISION, chapkit_executable, free_port


class Running(NamedTuple):
    """A model service's process and its URL."""

    process: subprocess.Popen[bytes]
    url: str


SERVICE = Path(__file__).with_name("scaled_mean") / "service.py"
PRINTING_MEAN = Path(__file__).with_name("printing_mean")
STARTUP_SECONDS = 90


@contextmanager
def scaled_mean(orchestrator: str, service_id: str, log: Path) -> Iterator[Running]:
    """The scaled-mean service under ``service_id``, registered with the orchestrator at
    ``orchestrator`` (its base URL) as chapkit registers; runs until the block ends."""
    python = chapkit_executable().with_name("python")
    port = free_port()
    environment = {
        "SERVICEKIT_ORCHESTRATOR_URL": f"{orchestrator}/v2/services/$register",
        "SERVICEKIT_HOST": "127.0.0.1",
        "SERVICEKIT_PORT": str(port),
        "SCALED_MEAN_ID": service_id,
        "SCALED_MEAN_DATABASE": str(log.with_name(f"{service_id}.db")),
    }
    command = [str(python), str(SERVICE)]
    with running(command, environment, orchestrator, service_id, port, log) as process:
        yield Running(process, f"http://127.0.0.1:{port}")


@contextmanager
def running(
    command: list[str],
    environment: dict[str, str],
    orchestrator: str,
    service_id: str,
    port: int,
    log: Path,
) -> Iterator[subprocess.Popen[bytes]]:
    """``command`` run (in the peer's environment, with ``GIT_REVISION`` set) until the block
    ends, once the orchestrator lists ``service_id`` at ``port``."""
    path = f"{chapkit_executable().parent}{os.pathsep}{os.environ.get('PATH', '')}"
    with log.open("wb") as output:
        process = subprocess.Popen(
            command,
            cwd=SERVICE.parent,
            env={**os.environ, **environment, "GIT_REVISION": REVISION, "PATH": path},
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while True:
            listed = httpx.get(f"{orchestrator}/v2/services", timeout=10).json()
            if any(
                service["id"] == service_id and service["url"].endswith(f":{port}")
                for service in listed["services"]
            ):
                break
            assert process.poll() is None, f"the model service stopped:\n{log.read_text()}"
            assert time.monotonic() < deadline, f"it never registered:\n{log.read_text()}"
            time.sleep(0.5)
        yield process
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=30)
