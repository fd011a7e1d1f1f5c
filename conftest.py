"""Session-wide settings for the whole pytest run (tests and executed notebooks).

The embedded service started by ``chaplab.connect()`` (in notebooks and in tests) keeps its data
in ``$CHAPLAB_DATA_DIR``. A test run gets a fresh temporary folder, so runs never share state with
each other or with a person's own data in the per-user folder.

Notebook 09 serves a model with chapkit, which needs a Python 3.13 environment with chapkit
(the peer's, which ``make test-peer`` installs). A test run is a machine without one, whose
chapkit cells say so in a line and go on (``CHAPLAB_CHAPKIT_PYTHON`` set empty for the
notebooks' kernels), unless pytest runs with ``--run-chapkit-cells``: then they serve the
model with the peer's (the run stops at once when there is none).
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

_DATA_DIR_VARIABLE = "CHAPLAB_DATA_DIR"
_CHAPKIT_PYTHON_VARIABLE = "CHAPLAB_CHAPKIT_PYTHON"
_RUN_CHAPKIT_CELLS = "--run-chapkit-cells"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        _RUN_CHAPKIT_CELLS,
        action="store_true",
        help="let notebooks serve models with chapkit (the peer's Python 3.13 with chapkit, "
        "found through CHAPLAB_PEER_CACHE); otherwise they run as on a machine without it",
    )


def pytest_configure(config: pytest.Config) -> None:
    if _DATA_DIR_VARIABLE not in os.environ:
        folder = tempfile.mkdtemp(prefix="chaplab-test-data-")
        os.environ[_DATA_DIR_VARIABLE] = folder
        config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
    if not config.getoption(_RUN_CHAPKIT_CELLS):
        os.environ[_CHAPKIT_PYTHON_VARIABLE] = ""  # no chapkit here, whatever this machine has
        return
    from chaplab.chapkit_functions import chapkit_python

    python = chapkit_python()
    if python is None:
        raise pytest.UsageError(
            f"{_RUN_CHAPKIT_CELLS}: no Python with chapkit found (scripts/peer/install makes "
            f"one, or set {_CHAPKIT_PYTHON_VARIABLE})"
        )
    os.environ[_CHAPKIT_PYTHON_VARIABLE] = str(python)
