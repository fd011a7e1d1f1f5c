"""A service in a child process for ``chaplab.connect()`` and ``chaplab lab``.

The child runs ``python -m chaplab serve --port 0`` on loopback, writes its URL to a ready file
once its socket is bound, and stops when its standard input closes, which happens when the
parent exits for any reason. Its output goes to ``service.log`` in the data folder, whose tail
is shown when the service does not come up.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from chaplab.service.paths import default_data_dir

START_TIMEOUT_SECONDS = 60.0
LOG_NAME = "service.log"


class EmbeddedServiceError(RuntimeError):
    """The child service did not come up; the message ends with its log's last lines."""


@dataclass
class EmbeddedService:
    """A running child service."""

    url: str
    process: subprocess.Popen[bytes]
    data_dir: Path

    def stop(self, timeout: float = 10.0) -> None:
        """Ask the child to shut down (closing its stdin), then terminate or kill it if needed."""
        if self.process.poll() is not None:
            return
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_embedded(
    data_dir: Path | None = None, timeout: float = START_TIMEOUT_SECONDS
) -> EmbeddedService:
    """Start the child service on a free loopback port and wait until ``/health`` answers."""
    folder = data_dir or default_data_dir()
    folder.mkdir(parents=True, exist_ok=True)
    ready_file = Path(tempfile.mkdtemp(prefix="chaplab-ready-")) / "url"
    log_path = folder / LOG_NAME
    command = [
        sys.executable,
        "-m",
        "chaplab",
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--database",
        str(folder / "chaplab.db"),
        "--ready-file",
        str(ready_file),
        "--exit-with-stdin",
    ]
    with open(log_path, "ab") as log:
        process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT
        )
    deadline = time.monotonic() + timeout
    url = _wait_for_url(process, ready_file, deadline, log_path)
    service = EmbeddedService(url=url, process=process, data_dir=folder)
    try:
        _wait_for_health(process, url, deadline, log_path)
    except BaseException:
        service.stop()
        raise
    return service


def _wait_for_url(
    process: subprocess.Popen[bytes], ready_file: Path, deadline: float, log_path: Path
) -> str:
    while time.monotonic() < deadline:
        if ready_file.exists():
            text = ready_file.read_text(encoding="utf-8").strip()
            if text:
                return text
        _check_alive(process, log_path)
        time.sleep(0.02)
    process.kill()
    raise EmbeddedServiceError(
        f"the chaplab service did not report its address in time{_tail(log_path)}"
    )


def _wait_for_health(
    process: subprocess.Popen[bytes], url: str, deadline: float, log_path: Path
) -> None:
    with httpx.Client(timeout=2.0) as http:
        while time.monotonic() < deadline:
            _check_alive(process, log_path)
            try:
                if http.get(f"{url}/health").status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.05)
    raise EmbeddedServiceError(
        f"the chaplab service at {url} did not become healthy in time{_tail(log_path)}"
    )


def _check_alive(process: subprocess.Popen[bytes], log_path: Path) -> None:
    code = process.poll()
    if code is not None:
        raise EmbeddedServiceError(
            f"the chaplab service stopped at start-up (exit code {code}){_tail(log_path)}"
        )


def _tail(log_path: Path, lines: int = 20) -> str:
    try:
        text = log_path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:]
    except OSError:
        return ""
    return "; its log (" + str(log_path) + ") ends with:\n" + "\n".join(text)
