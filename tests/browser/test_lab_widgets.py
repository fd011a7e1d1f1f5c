"""The browser harness end to end: notebooks run in JupyterLab in headless Chromium."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest
from lab_harness import JupyterLab, NotebookPage

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

NOTEBOOKS = {
    "widgets.ipynb": [WIDGET_CELL],
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
    open_notebook: Callable[[JupyterLab, str], NotebookPage],
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
def test_running_a_notebook_that_raises_fails_naming_the_cell(
    lab: JupyterLab, open_notebook: Callable[[JupyterLab, str], NotebookPage]
) -> None:
    page = open_notebook(lab, "raising.ipynb")

    with pytest.raises(AssertionError, match="cell 1: ValueError: no datasets on the service"):
        page.run_all_cells()
