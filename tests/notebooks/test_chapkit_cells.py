"""Notebook 09's last step serves its model with chapkit, which needs a Python 3.13 environment
with chapkit (the peer's). On a machine without one its cells say so in one line and the notebook
runs to its end; ``make test`` runs the notebooks as such a machine (the repository's conftest.py
sets ``CHAPLAB_CHAPKIT_PYTHON`` empty), and ``make test-peer`` passes ``--run-chapkit-cells``,
which gives them the peer's to serve the model with (and stops the run when there is none).

``start_chapkit_service`` is checked here with a stand-in for chapkit's Python: the real
``python`` with a ``chapkit`` package on its path, running a script that registers as chapkit's
registration does, by answering on its port."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest
from project_pytest import REPOSITORY, project_pytest_cases, write_notebook

from chaplab.chapkit_functions import NO_CHAPKIT, chapkit_python, start_chapkit_service

NOTEBOOK_09 = REPOSITORY / "notebooks" / "09_your_own_model.ipynb"


def kernel_sees(folder: Path, *options: str) -> str | None:
    """``CHAPLAB_CHAPKIT_PYTHON`` as a notebook's kernel sees it when pytest runs the notebook
    with the repository's configuration and ``options`` (None: not set)."""
    shutil.copy(REPOSITORY / "conftest.py", folder / "conftest.py")
    seen = folder / "seen.txt"
    write_notebook(
        folder / "sees.ipynb",
        [
            nbformat.v4.new_code_cell(
                "import os, pathlib\n"
                f"pathlib.Path({str(seen)!r}).write_text("
                "repr(os.environ.get('CHAPLAB_CHAPKIT_PYTHON')))\n"
            )
        ],
    )
    cases = project_pytest_cases(folder, *options)
    assert [case.find("failure") for case in cases] == [None]
    return eval(seen.read_text())  # the repr of a str or None


def test_a_test_run_is_a_machine_without_chapkit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CHAPLAB_CHAPKIT_PYTHON", raising=False)
    assert kernel_sees(tmp_path) == ""


def test_the_option_gives_notebooks_chapkits_python(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    python = stand_in_chapkit(tmp_path / "stand-in")
    monkeypatch.setenv("CHAPLAB_CHAPKIT_PYTHON", str(python))
    assert kernel_sees(tmp_path, "--run-chapkit-cells") == str(python)


def test_the_option_without_chapkit_stops_the_run_at_once(tmp_path: Path) -> None:
    shutil.copy(REPOSITORY / "conftest.py", tmp_path / "conftest.py")
    write_notebook(tmp_path / "any.ipynb", [nbformat.v4.new_code_cell("1")])
    ran = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(tmp_path),
            "-c",
            str(REPOSITORY / "pyproject.toml"),
            "--rootdir",
            str(tmp_path),
            "-p",
            "no:cacheprovider",
            "--run-chapkit-cells",
        ],
        cwd=REPOSITORY,
        env={**os.environ, "CHAPLAB_CHAPKIT_PYTHON": ""},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.returncode == pytest.ExitCode.USAGE_ERROR
    assert "--run-chapkit-cells: no Python with chapkit found" in ran.stderr


def test_notebook_09_serves_its_model_through_start_chapkit_service_untagged() -> None:
    notebook = nbformat.read(NOTEBOOK_09, as_version=4)
    sources = "\n".join(cell.source for cell in notebook.cells)
    assert "start_chapkit_service(" in sources
    assert not [
        cell.metadata.get("tags")
        for cell in notebook.cells
        if "skip-execution" in cell.metadata.get("tags", [])
    ]


class Runners:
    """A client's model runners as the service script registered them (its port in a file)."""

    def __init__(self, folder: Path) -> None:
        self.base_url = "http://127.0.0.1:1"
        self.folder = folder

    def list_model_runners(self) -> list[SimpleNamespace]:
        port_file = self.folder / "registered"
        if not port_file.exists():
            return []
        return [SimpleNamespace(id="tiny", url=f"http://127.0.0.1:{port_file.read_text()}")]


def stand_in_chapkit(folder: Path) -> Path:
    """A ``python`` that runs this interpreter with a package ``chapkit`` importable."""
    package = folder / "site" / "chapkit"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    python = folder / "python"
    python.write_text(
        f'#!/bin/sh\nPYTHONPATH="{folder / "site"}:$PYTHONPATH" exec {sys.executable} "$@"\n'
    )
    python.chmod(0o755)
    return python


SCRIPT = """\
import os, pathlib, time
import chapkit, chaplab.chapkit_functions  # chapkit's Python, chaplab importable
orchestrator, revision = os.environ["SERVICEKIT_ORCHESTRATOR_URL"], os.environ["GIT_REVISION"]
print("registering with", orchestrator, "as", revision, flush=True)
pathlib.Path("registered").write_text(os.environ["SERVICEKIT_PORT"])
time.sleep(600)
"""


def test_a_service_runs_in_chapkits_python_until_it_is_registered_and_stops(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CHAPLAB_CHAPKIT_PYTHON", str(stand_in_chapkit(tmp_path)))
    model = tmp_path / "model"
    model.mkdir()
    (model / "service.py").write_text(SCRIPT)

    service = start_chapkit_service(model / "service.py", "tiny", Runners(model), timeout=60)

    assert service is not None and service.process.poll() is None
    assert service.url == f"http://127.0.0.1:{(model / 'registered').read_text()}"
    service.stop()
    assert service.process.poll() is not None
    log = service.log.read_text()
    assert "registering with http://127.0.0.1:1/v2/services/$register as " in log
    revision = log.split(" as ")[-1].strip()
    assert len(revision) == 40 and int(revision, 16) >= 0  # commit-like, as chap-core wants
    assert capsys.readouterr().out == ""


def test_a_service_that_stops_before_registering_is_an_error_with_its_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHAPLAB_CHAPKIT_PYTHON", str(stand_in_chapkit(tmp_path)))
    (tmp_path / "service.py").write_text("raise SystemExit('no port to serve on')\n")

    with pytest.raises(RuntimeError, match="did not register:\nno port to serve on"):
        start_chapkit_service(tmp_path / "service.py", "tiny", Runners(tmp_path), timeout=60)


@pytest.mark.parametrize("chosen", ["", "/no/such/python", sys.executable])
def test_without_a_python_with_chapkit_it_says_so_in_one_line_and_goes_on(
    chosen: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("CHAPLAB_CHAPKIT_PYTHON", chosen)  # none, missing, without chapkit
    (tmp_path / "service.py").write_text("raise SystemExit('never run')\n")

    assert chapkit_python() is None
    assert start_chapkit_service(tmp_path / "service.py", "tiny", Runners(tmp_path)) is None
    assert capsys.readouterr().out == NO_CHAPKIT + "\n"
    assert "\n" not in NO_CHAPKIT
    assert not (tmp_path / "service.log").exists()


def test_the_peer_cache_is_where_it_looks_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CHAPLAB_CHAPKIT_PYTHON", raising=False)
    monkeypatch.setenv("CHAPLAB_PEER_CACHE", str(tmp_path))
    assert chapkit_python() is None
    (tmp_path / "venv" / "bin").mkdir(parents=True)
    shutil.copy(stand_in_chapkit(tmp_path / "stand-in"), tmp_path / "venv" / "bin" / "python")
    assert chapkit_python() == tmp_path / "venv" / "bin" / "python"
    assert os.access(tmp_path / "venv" / "bin" / "python", os.X_OK)
