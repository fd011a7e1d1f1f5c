"""A chaplab error in a real notebook kernel: its sentence and a hint, the full traceback with
``CHAPLAB_FULL_TRACEBACKS=1``."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

pytestmark = pytest.mark.integration

CALL_A_WRONG_URL = (
    "from chaplab.client import ChapClient, RetryPolicy\n"
    "client = ChapClient('http://chaplab-no-such-host.invalid', retry=RetryPolicy(max_retries=0))\n"
    "client.list_datasets()"
)


def error_output(*sources: str) -> dict[str, Any]:
    """The error output of the last of ``sources``, run as cells in a fresh kernel."""
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in sources])
    NotebookClient(notebook, kernel_name="python3", timeout=120, allow_errors=True).execute()
    (output,) = [out for out in notebook.cells[-1].outputs if out["output_type"] == "error"]
    return dict(output)


@pytest.fixture(autouse=True)
def kernel_of_this_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ``python3`` kernel runs the interpreter found first on PATH: this one."""
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"])
    monkeypatch.delenv("CHAPLAB_FULL_TRACEBACKS", raising=False)


def test_a_wrong_url_shows_one_sentence_and_a_hint() -> None:
    output = error_output(CALL_A_WRONG_URL)
    assert output["ename"] == "ChapConnectionError"
    assert len(output["traceback"]) == 2
    first, hint = output["traceback"]
    assert first.startswith(
        "ChapConnectionError: GET /v1/crud/datasets could not reach "
        "http://chaplab-no-such-host.invalid"
    )
    assert "CHAPLAB_FULL_TRACEBACKS=1" in hint
    assert "httpx" not in "".join(output["traceback"])


def test_the_variable_brings_the_full_traceback_back() -> None:
    output = error_output(
        "import os\nos.environ['CHAPLAB_FULL_TRACEBACKS'] = '1'", CALL_A_WRONG_URL
    )
    assert output["ename"] == "ChapConnectionError"
    assert len(output["traceback"]) > 2
    assert "httpx" in "".join(output["traceback"])
