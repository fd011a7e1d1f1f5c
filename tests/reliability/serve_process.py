"""``chaplab serve`` as a child process on a file database, for crash, restart and log tests.

The child runs in its own process group, so that teardown can end it together with the job
workers it forked, even after the service itself was killed and the workers were orphaned.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType
from typing import Self

import httpx

STARTUP_SECONDS = 90.0


def free_port() -> int:
    """A loopback port free right now (for a service that must come back on the same port)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ServeProcess:
    """``chaplab serve --database <file or URL>`` on ``port`` (0: a free one); ``url`` once
    started.

    ``start()`` may be called again after ``kill()``: a restart on the same database."""

    def __init__(
        self, database: Path | str, workdir: Path, *extra_args: str, port: int = 0
    ) -> None:
        self.database = database
        self.port = port
        self.workdir = workdir
        self.extra_args = extra_args
        self.process: subprocess.Popen[bytes] | None = None
        self.url = ""
        self._runs = 0
        self.groups: list[int] = []
        self.log_paths: list[Path] = []

    def start(self, api_key: str | None = None) -> Self:
        """Start and wait until ``/health`` answers 200 (with ``api_key`` if given)."""
        self._runs += 1
        ready = self.workdir / f"ready-{self._runs}.txt"
        log_path = self.workdir / f"serve-{self._runs}.log"
        self.log_paths.append(log_path)
        command = [
            sys.executable,
            "-m",
            "chaplab",
            "serve",
            "--port",
            str(self.port),
            "--workers",
            "1",
            "--database",
            str(self.database),
            "--ready-file",
            str(ready),
            *self.extra_args,
        ]
        with log_path.open("wb") as log:
            self.process = subprocess.Popen(
                command,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                cwd=self.workdir,
                start_new_session=True,
            )
        self.groups.append(self.process.pid)
        deadline = time.monotonic() + STARTUP_SECONDS
        while not ready.exists():
            self._check_alive(deadline)
            time.sleep(0.05)
        self.url = ready.read_text(encoding="utf-8").strip()
        headers = {"X-API-Key": api_key} if api_key else {}
        while True:
            self._check_alive(deadline)
            try:
                if httpx.get(f"{self.url}/health", headers=headers, timeout=5).status_code == 200:
                    return self
            except httpx.TransportError:
                pass
            time.sleep(0.05)

    def _check_alive(self, deadline: float) -> None:
        assert self.process is not None
        if self.process.poll() is not None:
            raise RuntimeError(
                f"chaplab serve exited with {self.process.returncode}:\n{self.log()}"
            )
        if time.monotonic() > deadline:
            raise RuntimeError(
                f"chaplab serve did not start within {STARTUP_SECONDS} s:\n{self.log()}"
            )

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def signal(self, signum: int) -> None:
        """Send ``signum`` to the service process only (not to its workers)."""
        os.kill(self.pid, signum)

    def kill(self) -> None:
        """SIGKILL the service process alone, as a crash would; its workers may live on."""
        assert self.process is not None
        self.process.kill()
        self.process.wait(30)

    def group_alive(self, group: int) -> bool:
        """Whether any process of a run's group (e.g. an orphaned job worker) is still alive."""
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return False
        return True

    @staticmethod
    def group_members(group: int) -> list[str]:
        """Command lines of the group's live processes (Linux ``/proc``; empty elsewhere)."""
        members = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
                if int(fields[2]) == group and fields[0] != "Z":
                    cmdline = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ")
                    members.append(f"{stat.parent.name}: {cmdline.decode(errors='replace')}")
            except (OSError, IndexError, ValueError):
                continue
        return members

    def end_group(self) -> None:
        """SIGKILL what is left of every run's process group (orphaned workers included)."""
        for group in self.groups:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(group, signal.SIGKILL)
        if self.process is not None:
            self.process.wait(30)

    def stop(self) -> None:
        """Ask the service to shut down (SIGTERM); end the group if it does not."""
        if self.process is None or self.process.poll() is not None:
            self.end_group()
            return
        self.process.terminate()
        try:
            self.process.wait(30)
        finally:
            self.end_group()

    def log(self) -> str:
        """Everything every run of this service wrote to stdout and stderr."""
        return "\n".join(
            path.read_text(errors="replace") for path in self.log_paths if path.exists()
        )

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()
