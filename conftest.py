"""Session-wide settings for the whole pytest run (tests and executed notebooks).

The embedded service started by ``chaplab.connect()`` (in notebooks and in tests) keeps its data
in ``$CHAPLAB_DATA_DIR``. A test run gets a fresh temporary folder, so runs never share state with
each other or with a person's own data in the per-user folder.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

_DATA_DIR_VARIABLE = "CHAPLAB_DATA_DIR"


def pytest_configure(config: pytest.Config) -> None:
    if _DATA_DIR_VARIABLE not in os.environ:
        folder = tempfile.mkdtemp(prefix="chaplab-test-data-")
        os.environ[_DATA_DIR_VARIABLE] = folder
        config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
