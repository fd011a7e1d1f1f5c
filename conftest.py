"""Session-wide settings for the whole pytest run (tests and executed notebooks).

The embedded service started by ``chaplab.connect()`` (in notebooks and in tests) keeps its data
in ``$CHAPLAB_DATA_DIR``. A test run gets a fresh temporary folder, so runs never share state with
each other or with a person's own data in the per-user folder.

Notebook cells tagged ``chapkit`` serve a model with chapkit, which needs a Python 3.13
environment with chapkit (the peer's, which ``make test-peer`` installs): they are skipped, with
that reason in pytest's report, unless pytest runs with ``--run-chapkit-cells``.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

_DATA_DIR_VARIABLE = "CHAPLAB_DATA_DIR"
_CHAPKIT_TAG = "chapkit"
_RUN_CHAPKIT_CELLS = "--run-chapkit-cells"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        _RUN_CHAPKIT_CELLS,
        action="store_true",
        help="run the notebook cells tagged 'chapkit' (they need the peer's Python 3.13 with "
        "chapkit, found through CHAPLAB_PEER_CACHE); skipped otherwise",
    )


def pytest_configure(config: pytest.Config) -> None:
    if _DATA_DIR_VARIABLE not in os.environ:
        folder = tempfile.mkdtemp(prefix="chaplab-test-data-")
        os.environ[_DATA_DIR_VARIABLE] = folder
        config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip the notebook cells tagged ``chapkit`` (nbval's items carry their cell) visibly,
    unless ``--run-chapkit-cells`` asks for them."""
    if config.getoption(_RUN_CHAPKIT_CELLS):
        return
    skip = pytest.mark.skip(
        reason="a chapkit cell: needs a Python 3.13 environment with chapkit and runs under "
        f"make test-peer ({_RUN_CHAPKIT_CELLS})"
    )
    for item in items:
        cell = getattr(item, "cell", None)
        if cell is not None and _CHAPKIT_TAG in cell.get("metadata", {}).get("tags", []):
            item.add_marker(skip)
