"""notebooks/02_panel.ipynb run in JupyterLab in headless Chromium: the panel as a person sees it.

The notebook runs top to bottom against its own embedded service (a fresh data folder). The test
waits until the panel shows the finished evaluation and its fan chart, checks the rendered page
and saves a screenshot of the panel as test-output/browser/panel.png; the README's picture
(docs/images/panel.png) is a copy of it.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from lab_harness import JupyterLab, NotebookPage
from playwright.sync_api import Locator, expect

REPOSITORY = Path(__file__).resolve().parents[2]
NOTEBOOK = REPOSITORY / "notebooks" / "02_panel.ipynb"
# Tall enough to show the whole panel, chart included, in one screenshot.
VIEWPORT = {"width": 1400, "height": 2600}
EVALUATION_NAME = "naive_model on demo"


@pytest.fixture(scope="module")
def lab(
    tmp_path_factory: pytest.TempPathFactory, start_lab: Callable[..., JupyterLab]
) -> JupyterLab:
    """JupyterLab on a copy of the panel notebook, its kernels using a fresh data folder."""
    folder = tmp_path_factory.mktemp("lab-root")
    shutil.copy(NOTEBOOK, folder / NOTEBOOK.name)
    data_dir = tmp_path_factory.mktemp("chaplab-data")
    return start_lab(folder, env={"CHAPLAB_DATA_DIR": str(data_dir)})


def panel_output(page: NotebookPage) -> Locator:
    """The output of the cell that displays the panel (the one holding the job board)."""
    return page.output_area().filter(has_text="Run an evaluation").first


@pytest.mark.browser
def test_panel_notebook_shows_a_finished_evaluation_with_its_fan_chart(
    lab: JupyterLab,
    open_notebook: Callable[[JupyterLab, str], NotebookPage],
    browser_output_dir: Path,
) -> None:
    page = open_notebook(lab, NOTEBOOK.name)
    page.page.set_viewport_size(VIEWPORT)

    page.run_all_cells()

    panel = panel_output(page)
    expect(panel.get_by_text("Datasets", exact=True)).to_be_visible()
    for name in ("demo", "demo (recent)", "naive_model", "seasonal_naive", "regression_model"):
        expect(panel.get_by_role("button", name=name, exact=True)).to_be_visible()

    job_row = panel.locator(".widget-hbox", has_text=f"{EVALUATION_NAME} evaluation")
    expect(job_row.locator(".widget-html").filter(has_text="SUCCESS")).to_have_text("SUCCESS")

    evaluation = panel.get_by_role("button", name=EVALUATION_NAME, exact=True)
    expect(evaluation).to_have_class(re.compile(r"\bmod-info\b"))  # selected: its chart is shown

    chart = panel.locator("img.widget-image")
    chart.wait_for()
    page.page.wait_for_function(
        "(img) => img.complete && img.naturalWidth > 300", arg=chart.element_handle()
    )
    assert chart.evaluate("(img) => img.src.startsWith('blob:') || img.src.startsWith('data:')")

    screenshot = browser_output_dir / "panel.png"
    page.wait_until_idle()
    panel.screenshot(path=str(screenshot))
    assert screenshot.stat().st_size > 10_000
