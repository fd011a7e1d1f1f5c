"""Control of the throwaway PostgreSQL server the tests run on (``make test-postgres``)."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class PostgresServer:
    """The throwaway PostgreSQL server ``scripts/postgres/with-postgres`` started, under the
    tests' control: ``bindir`` holds its pg_ctl, ``pgdata`` is its cluster, ``user`` the user it
    runs as when the tests run as root (PostgreSQL refuses to run as root)."""

    bindir: Path
    pgdata: Path
    user: str | None

    def restart(self) -> None:
        """Restart the server (a fast shutdown: every session ends) and wait until it answers."""
        command = [
            str(self.bindir / "pg_ctl"),
            f"--pgdata={self.pgdata}",
            f"--log={self.pgdata.parent / 'server.log'}",
            "--mode=fast",
            "--wait",
            "--timeout=60",
            "restart",
        ]
        if self.user and os.geteuid() == 0:
            command = ["runuser", "-u", self.user, "--", *command]
        subprocess.run(command, cwd=self.pgdata.parent, check=True, capture_output=True)
