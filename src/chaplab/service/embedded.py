"""The service on the data folder's database for ``chaplab.connect()`` and ``chaplab lab``.

One service serves a database file at a time (``instance_lock``). When a chaplab service
already holds the data folder's database (another kernel's, say) and answers ``/health``, it is
reused: it then lives as long as the process that started it. Otherwise a child runs
``python -m chaplab serve --port 0 --no-auth`` on loopback (key variables such as
``SERVICE_API_KEYS`` are meant for other services and do not turn its authentication on),
writes its URL to a ready file once its socket is bound, and stops when its standard input
closes, which happens when the parent exits for any reason. Its output goes to ``service.log``
in the data folder, whose tail is shown when the service does not come up.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from chaplab.service.instance_lock import current_owner
from chaplab.service.paths import default_data_dir

START_TIMEOUT_SECONDS = 60.0
LOG_NAME = "service.log"
DATABASE_NAME = "chaplab.db"
POLL_SECONDS = 0.05


class EmbeddedServiceError(RuntimeError):
    """The child service did not come up; the message ends with its log's last lines."""


@dataclass
class EmbeddedService:
    """A running service on the data folder's database: a child (``process``), or one another
    process started (``process`` None), which this one neither stops nor keeps alive."""

    url: str
    process: subprocess.Popen[bytes] | None
    data_dir: Path

    def running(self) -> bool:
        """Whether the child is alive, or the reused service still holds the database."""
        if self.process is not None:
            return self.process.poll() is None
        owner = current_owner(self.data_dir / DATABASE_NAME)
        return owner is not None and owner.url == self.url

    def stop(self, timeout: float = 10.0) -> None:
        """Ask the child to shut down (closing its stdin), then terminate or kill it if needed;
        a reused service is left running."""
        if self.process is None or self.process.poll() is not None:
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


def connect_embedded(
    data_dir: Path | None = None, timeout: float = START_TIMEOUT_SECONDS
) -> EmbeddedService:
    """The service on the data folder's database: the running one when a chaplab service holds
    it, else a new child (:func:`start_embedded`)."""
    folder = data_dir or default_data_dir()
    database = folder / DATABASE_NAME
    deadline = time.monotonic() + timeout
    url = running_service_url(database, deadline)
    if url is None:
        try:
            return start_embedded(folder, timeout)
        except EmbeddedServiceError:
            url = running_service_url(database, deadline)  # another process started one first
            if url is None:
                raise
    return EmbeddedService(url=url, process=None, data_dir=folder)


def running_service_url(database: Path, deadline: float) -> str | None:
    """The URL of the service holding ``database`` once its ``/health`` answers (waiting for
    one still starting until ``deadline``); None when no service holds the database."""
    with httpx.Client(timeout=2.0) as http:
        while (owner := current_owner(database)) is not None:
            if owner.url is not None and _healthy(http, owner.url):
                return owner.url
            if time.monotonic() > deadline:
                raise EmbeddedServiceError(
                    f"database {database} is in use by another chaplab service "
                    f"({owner.describe()}) that does not answer /health; stop it, or set "
                    "CHAP_URL to a service to use"
                )
            time.sleep(POLL_SECONDS)
    return None


def start_embedded(
    data_dir: Path | None = None,
    timeout: float = START_TIMEOUT_SECONDS,
    database: str | None = None,
) -> EmbeddedService:
    """Start the child service on a free loopback port and wait until ``/health`` answers;
    its database is the data folder's, or ``database`` (a file or a SQLAlchemy URL)."""
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
        database or str(folder / DATABASE_NAME),
        "--ready-file",
        str(ready_file),
        "--exit-with-stdin",
        "--no-auth",  # this user's own service on loopback; key variables are for others
    ]
    with open(log_path, "ab") as log:
        # A session of its own: a Ctrl-C in the starter's terminal (JupyterLab asking whether
        # to stop) does not reach the service; it ends with its starter (--exit-with-stdin).
        process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
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
            if _healthy(http, url):
                return
            time.sleep(POLL_SECONDS)
    raise EmbeddedServiceError(
        f"the chaplab service at {url} did not become healthy in time{_tail(log_path)}"
    )


def _healthy(http: httpx.Client, url: str) -> bool:
    try:
        return http.get(f"{url}/health").status_code == 200
    except httpx.TransportError:
        return False


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
