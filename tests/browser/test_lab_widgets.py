"""The browser harness end to end: notebooks run in JupyterLab in headless Chromium; and the
panel with a wrong API key, as a person sees it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest
from lab_harness import JupyterLab, NotebookPage
from playwright.sync_api import expect

WIDGET_CELL = """\
import io

import ipywidgets as widgets
import matplotlib.pyplot as plt

figure, axes = plt.subplots(figsize=(2, 1.5))
axes.plot([0, 1, 2], [1, 3, 2])
png = io.BytesIO()
figure.savefig(png, format="png")
plt.close(figure)

widgets.VBox([
    widgets.Label("Datasets: 3 loaded"),
    widgets.Button(description="Launch evaluation"),
    widgets.Image(value=png.getvalue(), format="png"),
])
"""

WRONG_KEY_CELL = """\
from chaplab.client import AsyncChapClient
from chaplab.toolkit import BackgroundServer, ServiceBuilder
from chaplab.widgets import ChapPanel

app = ServiceBuilder(title="keyed", version="1.0.0").with_auth(
    api_keys=["sk_test_RIGHT_KEY_000000001"]
).build()
server = BackgroundServer(app).start()
panel = ChapPanel(AsyncChapClient(server.url, api_key="sk_test_WRONG_KEY_000000002"))
panel
"""

# The panel's evaluations table as a service with many runs and large counts fills it: ids of
# five digits, a reference model, scores in the thousands (a table of these exact widths reached
# 2 px past a 1024 px window's output on chap-core, cutting its delete buttons).
WIDE_TABLE_CELL = """\
import datetime

from chaplab.widgets.results import EVALUATION_COLUMNS
from chaplab.widgets.tables import SortableTable

table = SortableTable(EVALUATION_COLUMNS, caption="Evaluations", on_delete=print)
table.set_rows([
    {
        "id": 10_000 + index,
        "name": f"tune seasonal_median/window={index}",
        "model": "seasonal_median (reference)",
        "dataset": "influenza hospital admissions",
        "created": datetime.datetime(2026, 11, 29, 14, index),
        "n_periods": 12, "n_splits": 104, "stride": 52,
        "crps": 12_345.6 + index, "coverage_10_90": 0.8125,
    }
    for index in range(3)
])
table
"""

NOTEBOOKS = {
    "widgets.ipynb": [WIDGET_CELL],
    "wide_table.ipynb": [WIDE_TABLE_CELL],
    "wrong_key.ipynb": [WRONG_KEY_CELL, "await panel.ready()"],
    "raising.ipynb": ["total = 1 + 1", "raise ValueError('no datasets on the service')"],
}


def write_notebook(path: Path, sources: list[str]) -> None:
    """Write a notebook of code cells for the python3 kernel."""
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    nbformat.write(notebook, path)


@pytest.fixture(scope="module")
def lab(
    tmp_path_factory: pytest.TempPathFactory, start_lab: Callable[..., JupyterLab]
) -> JupyterLab:
    """One JupyterLab serving a folder with the notebooks above."""
    folder = tmp_path_factory.mktemp("notebooks")
    for name, sources in NOTEBOOKS.items():
        write_notebook(folder / name, sources)
    return start_lab(folder)


@pytest.mark.browser
def test_widget_panel_renders_label_button_and_image(
    lab: JupyterLab,
    open_notebook: Callable[..., NotebookPage],
    browser_output_dir: Path,
) -> None:
    page = open_notebook(lab, "widgets.ipynb")
    page.run_all_cells()

    outputs = page.output_area()
    label = outputs.locator(".widget-label")
    label.wait_for()
    assert label.inner_text() == "Datasets: 3 loaded"
    assert outputs.get_by_role("button", name="Launch evaluation").is_visible()
    image = outputs.locator("img.widget-image")
    image.wait_for()
    page.page.wait_for_function(
        "(img) => img.complete && img.naturalWidth > 0", arg=image.element_handle()
    )
    assert image.evaluate("(img) => img.naturalWidth") == 200
    assert page.screenshot(browser_output_dir / "widgets.png").stat().st_size > 0


@pytest.mark.browser
def test_a_table_wider_than_the_output_wraps_its_long_columns_and_stays_in_sight(
    lab: JupyterLab,
    open_notebook: Callable[..., NotebookPage],
    browser_output_dir: Path,
) -> None:
    page = open_notebook(lab, "wide_table.ipynb")
    page.run_all_cells()

    table = page.output_area()
    expect(table.get_by_text("10002", exact=True)).to_have_count(1)
    page.assert_reads_well(table)  # at 1400 px with the file browser open, and at 1024 px
    page.set_layout(1024, file_browser=False)
    page.screenshot_whole(table, browser_output_dir / "wide-table-1024.png")


@pytest.mark.browser
def test_running_a_notebook_that_raises_fails_naming_the_cell(
    lab: JupyterLab, open_notebook: Callable[..., NotebookPage]
) -> None:
    page = open_notebook(lab, "raising.ipynb")

    with pytest.raises(AssertionError, match="cell 1: ValueError: no datasets on the service"):
        page.run_all_cells()


@pytest.mark.browser
def test_a_wrong_key_shows_one_sentence_and_no_broken_image(
    lab: JupyterLab,
    open_notebook: Callable[..., NotebookPage],
    browser_output_dir: Path,
) -> None:
    page = open_notebook(lab, "wrong_key.ipynb")
    page.page.set_viewport_size({"width": 1400, "height": 1600})
    page.run_all_cells()

    panel = page.output_area().filter(has_text="Run an evaluation").first
    expect(panel.get_by_role("alert")).to_contain_text("HTTP 401")
    expect(panel.get_by_text("not connected", exact=False)).to_be_visible()
    assert "connecting" not in panel.inner_text()
    text = panel.inner_text()
    assert text.count("HTTP 401") == 1 and "refused the API key" in text
    assert "nothing to show yet" not in text and "select a dataset" not in text
    assert "could not be loaded" in text
    assert panel.locator("img:visible").count() == 0  # no empty chart: no broken-image icon
    assert page.cut_texts(panel) == []
    assert page.past_right_edge(panel) == []
    assert page.horizontal_overflow(panel) <= 0
    panel.screenshot(path=str(browser_output_dir / "panel-wrong-key.png"))
