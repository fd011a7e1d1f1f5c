"""Notebook cells tagged ``chapkit`` (notebook 09's model served by chapkit) need the peer's
Python 3.13 environment: the repository's conftest.py skips them with a reason pytest reports,
and runs them under ``--run-chapkit-cells``, as ``make test-peer`` passes it.

A notebook is run by a separate pytest session with the project's configuration and this
repository's conftest.py, as ``make test`` and ``make test-peer`` run notebooks/."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
from test_nbval_wiring import REPOSITORY, project_pytest_cases, write_notebook


def run_notebook_cells(folder: Path, *options: str) -> dict[str, str]:
    """Run pytest on ``folder`` as the repository runs notebooks; each cell's outcome
    (``passed``, ``failed`` or ``skipped: <reason>``)."""
    shutil.copy(REPOSITORY / "conftest.py", folder / "conftest.py")
    outcomes = {}
    for case in project_pytest_cases(folder, *options):
        skipped = case.find("skipped")
        if skipped is not None:
            outcomes[str(case.get("name"))] = f"skipped: {skipped.get('message')}"
        elif case.find("failure") is not None or case.find("error") is not None:
            outcomes[str(case.get("name"))] = "failed"
        else:
            outcomes[str(case.get("name"))] = "passed"
    return outcomes


def write_served_notebook(folder: Path) -> Path:
    """A notebook whose second cell, tagged ``chapkit``, leaves a file behind when it runs."""
    ran = folder / "chapkit-cell-ran"
    cells = [
        nbformat.v4.new_code_cell("print('local part')\n"),
        nbformat.v4.new_code_cell(
            f"import pathlib\npathlib.Path({str(ran)!r}).touch()\n",
            metadata={"tags": ["chapkit", "skip-execution"]},
        ),
    ]
    write_notebook(folder / "served.ipynb", cells)
    return ran


def test_chapkit_cells_are_skipped_with_the_reason_by_default(tmp_path: Path) -> None:
    ran = write_served_notebook(tmp_path)

    outcomes = run_notebook_cells(tmp_path)

    assert outcomes["Cell 0"] == "passed"
    assert outcomes["Cell 1"].startswith("skipped: a chapkit cell: needs a Python 3.13")
    assert "make test-peer (--run-chapkit-cells)" in outcomes["Cell 1"]
    assert not ran.exists()


def test_chapkit_cells_run_with_the_option(tmp_path: Path) -> None:
    ran = write_served_notebook(tmp_path)

    outcomes = run_notebook_cells(tmp_path, "--run-chapkit-cells")

    assert outcomes == {"Cell 0": "passed", "Cell 1": "passed"}
    assert ran.exists()
