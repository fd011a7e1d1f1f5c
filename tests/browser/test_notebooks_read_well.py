"""Every notebook of notebooks/ as a new user meets it: opened in JupyterLab in headless Chromium
from a fresh copy of the folder, on a machine without the peer's chapkit environment, and run
with Run All. One JupyterLab walks them all.

For each notebook: opening it does not mark it changed; every cell runs without an error; and
in a 1400 px window with the file browser open and in a 1024 px window, each raster chart of its
outputs is shown at 90 to 100 % of the width it was drawn for, with its smallest text at
10 CSS px or more, sharp at a device pixel ratio of 2, and its time panels draw what the chart
says (``NotebookPage.chart_problems``). Each output holding a chart, a table or widgets is saved
as test-output/browser/notebooks/<notebook>-<width>-cell-<n>.png.

A new notebook made in the folder and saved writes nothing into notebooks/sources/. With
``CHAP_URL`` set (``make test-peer``) the notebooks run on that server instead.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from lab_harness import READING_LAYOUTS, JupyterLab, NotebookPage

REPOSITORY = Path(__file__).resolve().parents[2]
ON_ANOTHER_SERVER = bool(os.environ.get("CHAP_URL"))
"""``make test-peer`` runs this module with ``CHAP_URL`` naming chap-core: the notebooks talk to
it, all but 06, which is about chaplab's own service toolkit."""
NOTEBOOKS = [
    path
    for path in sorted((REPOSITORY / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    if not (ON_ANOTHER_SERVER and path.name.startswith("06_"))
]
WINDOW_HEIGHT = 900
_DIRTY_JS = "() => window.jupyterapp.shell.currentWidget.context.model.dirty"
# Runs in the page: the outputs worth a picture (charts, tables, widgets), as cell numbers.
_SHOWN_OUTPUTS_JS = """
() => [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell')]
  .map((cell, index) => [cell, index])
  .filter(([cell]) => cell.querySelector(
    '.jp-OutputArea-output img, .jp-OutputArea-output table, .jp-OutputArea-output .widget-box'))
  .map(([, index]) => index)
"""


@pytest.fixture(scope="module")
def lab(
    tmp_path_factory: pytest.TempPathFactory, start_lab: Callable[..., JupyterLab]
) -> JupyterLab:
    """JupyterLab on a fresh copy of notebooks/, its kernels on an embedded service with a fresh
    data folder, on a machine without a Python that has chapkit."""
    folder = tmp_path_factory.mktemp("clone") / "notebooks"
    shutil.copytree(REPOSITORY / "notebooks", folder, ignore=shutil.ignore_patterns("*.pyc"))
    data_dir = tmp_path_factory.mktemp("chaplab-data")
    return start_lab(folder, env={"CHAPLAB_DATA_DIR": str(data_dir), "CHAPLAB_CHAPKIT_PYTHON": ""})


@pytest.mark.browser
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda path: path.stem)
def test_the_notebook_runs_from_top_to_bottom_and_reads_well(
    notebook: Path,
    lab: JupyterLab,
    open_notebook: Callable[..., NotebookPage],
    browser_output_dir: Path,
) -> None:
    page = open_notebook(lab, notebook.name, {"width": 1400, "height": WINDOW_HEIGHT})
    page.wait_until_idle()
    assert page.page.evaluate(_DIRTY_JS) is False, "opening the notebook marked it changed"

    page.run_all_cells()

    problems = []
    outputs = page.page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea-output")
    cells = page.page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell")
    folder = browser_output_dir / "notebooks"
    for name, (width, file_browser) in READING_LAYOUTS.items():
        page.set_layout(width, file_browser, WINDOW_HEIGHT)
        for index in range(outputs.count()):
            found = page.reading_problems(outputs.nth(index))
            problems += [f"{name}: {problem}" for problem in found]
        for index in page.page.evaluate(_SHOWN_OUTPUTS_JS):
            output = cells.nth(index).locator(".jp-OutputArea")
            page.screenshot_whole(output, folder / f"{notebook.stem}-{width}-cell-{index}.png")
    assert problems == [], "\n".join(problems)


@pytest.mark.browser
def test_a_new_notebook_writes_nothing_into_sources(
    lab: JupyterLab, open_notebook: Callable[..., NotebookPage]
) -> None:
    page = open_notebook(lab, NOTEBOOKS[0].name)
    before = sorted(path.name for path in (lab.root_dir / "sources").iterdir())
    created = page.page.evaluate(  # made and saved as JupyterLab's "New notebook" does
        """async () => {
             const contents = window.jupyterapp.serviceManager.contents;
             const made = await contents.newUntitled({type: 'notebook', path: ''});
             const content = {
               cells: [{cell_type: 'code', source: '1 + 1', metadata: {}, outputs: [],
                        execution_count: null}],
               metadata: {kernelspec: {name: 'python3', display_name: 'Python 3'}},
               nbformat: 4, nbformat_minor: 5,
             };
             await contents.save(made.path, {type: 'notebook', format: 'json', content});
             return made.path;
           }"""
    )
    assert (lab.root_dir / created).exists()
    assert sorted(path.name for path in (lab.root_dir / "sources").iterdir()) == before
