"""Fixtures for browser tests: Chromium, JupyterLab servers and notebook pages (see lab_harness).

A test module that names its notebook and its code cells at module level (``NOTEBOOK =
"panel.ipynb"``, ``CELLS = [...]``) gets ``lab``: JupyterLab on a folder with that notebook, its
kernels on an embedded service of their own; a module that needs another folder defines its own
``lab`` fixture.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import nbformat
import pytest
from lab_harness import JupyterLab, NotebookPage, launch_chromium
from playwright.sync_api import BrowserContext, sync_playwright

REPOSITORY = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def browser_output_dir() -> Path:
    """Where browser tests put screenshots: test-output/browser/ (ignored by git)."""
    folder = REPOSITORY / "test-output" / "browser"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserContext]:
    """One headless Chromium with a fresh profile per module.

    Module-scoped on purpose: while Playwright's sync API is running it marks an asyncio loop as
    running in the main thread, which would break every later test that runs its own loop.
    """
    with sync_playwright() as playwright:
        context = launch_chromium(playwright, tmp_path_factory.mktemp("chromium-profile"))
        yield context
        context.close()


@pytest.fixture(scope="module")
def start_lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[..., JupyterLab]]:
    """`start_lab(root_dir, env=None)` starts JupyterLab on root_dir; stopped after the module.

    Module-scoped so that a module can share one server between its tests (starting one takes
    seconds); use it from a module-scoped fixture or directly in a test.
    """
    started: list[JupyterLab] = []

    def start(root_dir: Path, env: dict[str, str] | None = None) -> JupyterLab:
        lab = JupyterLab.start(root_dir, tmp_path_factory.mktemp("jupyter-state"), env=env)
        started.append(lab)
        return lab

    yield start
    for lab in started:
        lab.stop()


@pytest.fixture(scope="module")
def lab_of_cells(
    tmp_path_factory: pytest.TempPathFactory, start_lab: Callable[..., JupyterLab]
) -> Callable[[str, Sequence[str]], JupyterLab]:
    """`lab_of_cells(name, cells)` writes a notebook ``name`` of those code cells into a fresh
    folder and starts JupyterLab on it, its kernels using a fresh data folder (an embedded
    service of their own)."""

    def start(name: str, cells: Sequence[str]) -> JupyterLab:
        folder = tmp_path_factory.mktemp("lab-root")
        notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
        notebook.metadata["kernelspec"] = {
            "name": "python3",
            "display_name": "Python 3",
            "language": "python",
        }
        nbformat.write(notebook, folder / name)
        data_dir = tmp_path_factory.mktemp("chaplab-data")
        return start_lab(folder, env={"CHAPLAB_DATA_DIR": str(data_dir)})

    return start


@pytest.fixture(scope="module")
def lab(
    request: pytest.FixtureRequest, lab_of_cells: Callable[[str, Sequence[str]], JupyterLab]
) -> JupyterLab:
    """JupyterLab on a folder with the test module's notebook (``NOTEBOOK``, of the code cells
    ``CELLS``), its kernels using a fresh data folder."""
    return lab_of_cells(request.module.NOTEBOOK, request.module.CELLS)


@pytest.fixture
def open_notebook(chromium: BrowserContext) -> Iterator[Callable[..., NotebookPage]]:
    """`open_notebook(lab, relative_path, viewport=None)` opens a notebook in a new tab (in a
    window of ``viewport``, ``{"width": ..., "height": ...}``, if given); closed after the
    test."""
    opened: list[NotebookPage] = []

    def open_(
        lab: JupyterLab, relative_path: str, viewport: dict[str, int] | None = None
    ) -> NotebookPage:
        notebook = NotebookPage.open(chromium, lab, relative_path)
        opened.append(notebook)
        if viewport is not None:
            notebook.page.set_viewport_size(viewport)
        return notebook

    yield open_
    for notebook in opened:
        notebook.close()
