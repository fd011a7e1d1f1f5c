"""A model service registered with the peer, as a deployed model registers itself: chapkit (which
chap-core 2.5.1 installs with itself, so it is in the peer's environment) runs the small MLproject
in ``chapkit_model/`` and registers it at the peer's ``/v2/services/$register``, pinging it alive.

chap-core stores a template from a service only when the service reports its source revision
(``GIT_REVISION``, a commit hash); a service without one is refused with 409."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from chaplab import ChapClient

PROJECT = Path(__file__).with_name("chapkit_model")
SERVICE_ID = "chaplab-mean"
"""The id chapkit registers the project under (its name, ``chaplab_mean``, as a slug)."""
REVISION = "0123456789abcdef0123456789abcdef01234567"
"""The source revision it reports (chap-core keeps only what looks like a commit hash)."""
STARTUP_SECONDS = 90


def chapkit_executable() -> Path:
    """``chapkit`` of the peer's environment (``CHAPLAB_PEER_CACHE``, as scripts/peer sets it)."""
    cache = os.environ.get("CHAPLAB_PEER_CACHE") or str(
        Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "chaplab" / "peer-2.5.1"
    )
    return Path(cache) / "venv" / "bin" / "chapkit"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def registered_model_service(client: ChapClient, peer_url: str, log: Path) -> Iterator[str]:
    """Run the model service until the block ends; yields its runner id once the peer lists
    it. Fails (with the service's log) when it never registers."""
    executable = chapkit_executable()
    assert executable.exists(), f"no chapkit at {executable}: run scripts/peer/install"
    port = free_port()
    command = [
        str(executable),
        "run",
        str(PROJECT),
        "--port",
        str(port),
        "--register-url",
        f"{peer_url}/v2/services/$register",
        "--advertise-host",
        "127.0.0.1",
        "--keepalive-interval",
        "5",
    ]
    with log.open("wb") as output:
        process = subprocess.Popen(
            command,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env={**os.environ, "GIT_REVISION": REVISION},
        )
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        # an earlier service's registration may still be listed: wait for this one's URL
        while not any(
            runner.id == SERVICE_ID and f":{port}" in str(runner.url)
            for runner in client.list_model_runners()
        ):
            assert process.poll() is None, f"the model service stopped:\n{log.read_text()}"
            assert time.monotonic() < deadline, f"it never registered:\n{log.read_text()}"
            time.sleep(0.5)
        yield SERVICE_ID
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
