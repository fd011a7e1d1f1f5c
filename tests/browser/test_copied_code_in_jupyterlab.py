""" "copy code" under a forecast, pasted into a new cell in JupyterLab in headless Chromium.

A notebook opens the panel on its own embedded service (a fresh data folder) and makes a
forecast with naive_model. The test presses the forecast's **copy code**, pastes the clipboard
into a new cell with the keyboard, as a person does, and runs it: the cell runs without an
error and draws the forecast's fan chart, the panels of the chart in the panel (the forecast's
places, by name). Saves the pasted cell and its chart as test-output/browser/copied-code.png.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from lab_harness import JupyterLab, NotebookPage
from playwright.sync_api import expect

NOTEBOOK = "copied_code.ipynb"
VIEWPORT = {"width": 1400, "height": 2600}
CELLS = [
    "from chaplab.widgets import ChapPanel\npanel = ChapPanel()\nawait panel.ready()\npanel",
    "panel.models.select(next(m.id for m in panel.model_list if m.name == 'naive_model'))\n"
    "panel.launcher.n_periods.value = 3\n"
    "await panel.forecast()\n"
    "await panel.wait_idle()\n"
    "print(panel.forecasts.prediction_id)",
]

# Runs in the page: a new code cell after the last, in edit mode, ready for the keyboard.
_NEW_LAST_CELL_JS = """
async () => {
  const app = window.jupyterapp;
  const notebook = app.shell.currentWidget.content;
  notebook.activeCellIndex = notebook.widgets.length - 1;
  await app.commands.execute('notebook:insert-cell-below');
  await app.commands.execute('notebook:enter-edit-mode');
  return notebook.activeCellIndex;
}
"""

# Runs in the page: the source of cell ``index`` and the types of its outputs (an error output
# as "error: Name: value", a picture as its MIME type).
_CELL_JS = """
(index) => {
  const cell = window.jupyterapp.shell.currentWidget.content.model.cells.get(index);
  const outputs = cell.outputs.toJSON().map((output) => output.output_type === 'error'
    ? `error: ${output.ename}: ${output.evalue}`
    : Object.keys(output.data || {}).filter((kind) => kind.startsWith('image/')).join(',')
      || output.output_type);
  return { source: cell.sharedModel.getSource(), outputs };
}
"""


@pytest.mark.browser
def test_the_forecasts_copied_code_pasted_into_a_new_cell_draws_its_chart(
    lab: JupyterLab,
    open_notebook: Callable[..., NotebookPage],
    browser_output_dir: Path,
) -> None:
    page = open_notebook(lab, NOTEBOOK, VIEWPORT)
    page.page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=lab.base_url)
    page.run_all_cells()
    panel = page.output_area().filter(has_text="Forecast forward").first
    # the evaluations' copy code and the forecast's own, the last one, under the forecast
    expect(panel.get_by_role("button", name="copy code")).to_have_count(2)
    copy = panel.get_by_role("button", name="copy code").last
    copy.scroll_into_view_if_needed()
    copy.click()
    expect(panel.get_by_text("copied: paste it into a cell").last).to_be_visible()
    copied = page.page.evaluate("() => navigator.clipboard.readText()")
    assert copied == page.kernel_value("panel.forecasts.code.code")
    prediction_id = page.kernel_value("panel.forecasts.prediction_id")
    assert f"client.prediction_frame({prediction_id})" in copied

    # pasted with the keyboard into a new cell and run, as a person does
    index = page.page.evaluate(_NEW_LAST_CELL_JS)
    page.page.keyboard.press("Control+V")
    pasted = page.page.evaluate(_CELL_JS, index)
    assert pasted["source"].strip() == copied.strip()
    page.page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-cell')")
    page.wait_until_idle()
    page.page.wait_for_function(
        "(index) => window.jupyterapp.shell.currentWidget.content.model.cells.get(index)"
        ".executionCount !== null",
        arg=index,
    )
    ran = page.page.evaluate(_CELL_JS, index)
    assert not [output for output in ran["outputs"] if output.startswith("error")], ran
    assert "image/png" in ran["outputs"], ran  # the chart, drawn under the pasted cell

    # the chart drawn is the forecast's: the same places as the panel's chart, by name
    titles = page.kernel_value("[axes.get_title() for axes in figure.axes if axes.get_title()]")
    assert titles and titles == page.kernel_value("panel.forecasts.shown_panels")
    cell = page.page.locator(".jp-NotebookPanel:visible .jp-Cell").nth(index)
    cell.scroll_into_view_if_needed()
    cell.locator(".jp-OutputArea-output img").first.wait_for()
    cell.screenshot(path=str(browser_output_dir / "copied-code.png"))
