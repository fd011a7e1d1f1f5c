"""The fork server's warm-up (chaplab.service.worker_preload) compiles every table's statements:
a table it could not compile would stop the fork server, and with it every job."""

from __future__ import annotations

import subprocess
import sys

from chaplab.service.tables import Base
from chaplab.service.worker_preload import compile_every_table


def test_every_table_compiles_for_both_dialects() -> None:
    compile_every_table()
    assert {mapper.class_.__tablename__ for mapper in Base.registry.mappers} >= {"jobs", "job_logs"}


def test_the_fork_server_preload_imports_cleanly_in_a_fresh_interpreter() -> None:
    """The fork server imports the module first thing in a new process, as here."""
    run = subprocess.run(
        [sys.executable, "-c", "import chaplab.service.worker_preload"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
