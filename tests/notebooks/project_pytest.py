"""Notebooks run by a separate pytest session with this repository's configuration (its
pyproject.toml and conftest.py's options), as `make test` runs `notebooks/*.ipynb`."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import nbformat
from nbformat.notebooknode import NotebookNode

REPOSITORY = Path(__file__).resolve().parents[2]


def write_notebook(path: Path, cells: list[NotebookNode]) -> None:
    """Write a notebook with the python3 kernelspec, like the ones in notebooks/."""
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(notebook, path)


def project_pytest_cases(folder: Path, *options: str) -> list[ElementTree.Element]:
    """Run pytest on `folder` with the project's configuration (and `options`); the test cases
    of its JUnit report."""
    report = folder / "report.xml"
    env = {**os.environ, "CHAPLAB_DATA_DIR": str(folder / "chaplab-data")}
    env.pop("CHAP_URL", None)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(folder),
            "-c",
            str(REPOSITORY / "pyproject.toml"),
            "--rootdir",
            str(folder),
            "-p",
            "no:cacheprovider",
            f"--junitxml={report}",
            "-q",
            *options,
        ],
        cwd=REPOSITORY,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    return list(ElementTree.parse(report).getroot().iter("testcase"))
