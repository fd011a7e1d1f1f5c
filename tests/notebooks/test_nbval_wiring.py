"""The executed-notebook wiring: the project's pytest configuration runs notebooks with nbval.

Notebooks are generated into a temporary folder and run by a separate pytest session configured
by this repository's pyproject.toml (lax mode, the current environment's kernel, the sanitize
file), exactly as `make test` runs `notebooks/*.ipynb`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbformat.notebooknode import NotebookNode
from project_pytest import project_pytest_cases, write_notebook
from service_probe import stops_answering


def code_cell(
    source: str, stored_stdout: str, execution_count: int = 1, checked: bool = False
) -> NotebookNode:
    """A code cell with the stdout a previous run stored; a checked one is tagged for nbval to
    compare its output, as the notebooks' checked cells are."""
    metadata = {"tags": ["nbval-check-output"]} if checked else {}
    cell = nbformat.v4.new_code_cell(source, execution_count=execution_count, metadata=metadata)
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=stored_stdout)]
    return cell


def run_project_pytest(folder: Path) -> dict[str, str]:
    """Run pytest on `folder` with the project's configuration; outcome per notebook test id."""
    outcomes = {}
    for case in project_pytest_cases(folder):
        failed = case.find("failure") is not None or case.find("error") is not None
        notebook = case.get("classname", "").rsplit(".", 1)[0]
        outcomes[f"{notebook}::{case.get('name')}"] = "failed" if failed else "passed"
    return outcomes


def test_notebooks_run_sanitized_lax_in_the_venv_kernel_and_leave_no_service_behind(
    tmp_path: Path,
) -> None:
    embedded_url_file = tmp_path / "embedded-url.txt"
    write_notebook(
        tmp_path / "passing.ipynb",
        [
            code_cell(
                "import datetime, sys, uuid\n"
                f"print('venv kernel:', sys.prefix == {sys.prefix!r})\n"
                "print('job', uuid.uuid4(), 'at', datetime.datetime.now().isoformat())\n"
                "print('finished at', datetime.datetime.now().strftime('%H:%M:%S'), 'in 0.42 s')\n"
                "print('service at http://127.0.0.1:51234/health and', object())\n",
                "venv kernel: True\n"
                "job 3f1c2a9e-7b41-4d0e-9a51-0c7e2f1d8b66 at 2024-01-02T03:04:05.678901\n"
                "finished at 23:59:01 in 12.5 s\n"
                "service at http://localhost:8000/health and <object object at 0x7f3a2b1c0d40>\n",
                checked=True,
            ),
            code_cell("import random\nprint(random.random())\n", "0.5\n", execution_count=2),
            code_cell(
                "import pathlib, chaplab\n"
                "client = chaplab.connect()\n"
                f"pathlib.Path({str(embedded_url_file)!r}).write_text(client.base_url)\n"
                "print('datasets:', len(client.list_datasets()) > 0)\n",
                "datasets: True\n",
                execution_count=3,
                checked=True,
            ),
        ],
    )
    write_notebook(
        tmp_path / "failing.ipynb",
        [
            code_cell("print(1 + 1)\n", "3\n", checked=True),
            code_cell("raise ValueError('the notebook broke')\n", "", execution_count=2),
        ],
    )

    outcomes = run_project_pytest(tmp_path)

    assert outcomes == {
        "passing::Cell 0": "passed",
        "passing::Cell 1": "passed",
        "passing::Cell 2": "passed",
        "failing::Cell 0": "failed",
        "failing::Cell 1": "failed",
    }
    assert stops_answering(embedded_url_file.read_text()), "the embedded service outlived nbval"
