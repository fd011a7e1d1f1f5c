"""notebooks/02_panel.ipynb run in JupyterLab in headless Chromium: the panel as a person sees it.

The notebook runs top to bottom against its own embedded service (a fresh data folder). The test
waits until the panel shows the finished evaluation and its fan chart, checks the rendered page
as a person would read it in a 1400 px window with the file browser open (no text cut, no
horizontal scroll, place names in the chart, pressing another evaluation showing it instead of
adding it, "compare with" drawing the comparison with its metrics under the chart and "show one
evaluation" going back, a delete that asks first, "copy code" putting the code on the
clipboard) and saves screenshots of the panel as test-output/browser/panel.png (the README's
picture, docs/images/panel.png, is a copy of it) and panel-compare.png, of the window at
1400 x 900 as panel-window.png and panel-compare-window.png, and of the panel in a 1024 px
window without the file browser as panel-1024.png.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from lab_harness import JupyterLab, NotebookPage
from playwright.sync_api import expect

REPOSITORY = Path(__file__).resolve().parents[2]
NOTEBOOK = REPOSITORY / "notebooks" / "02_panel.ipynb"
BESIDE_NOTEBOOK = REPOSITORY / "notebooks" / "demo_data.py"  # the notebook imports it
# A tall window: the panel, chart included, in sight at once (screenshots take it whole anyway).
VIEWPORT = {"width": 1400, "height": 2600}
WINDOW = {"width": 1400, "height": 900}  # a laptop's window, for what a person sees at once


@pytest.fixture(scope="module")
def lab(
    tmp_path_factory: pytest.TempPathFactory, start_lab: Callable[..., JupyterLab]
) -> JupyterLab:
    """JupyterLab on a copy of the panel notebook, its kernels using a fresh data folder."""
    folder = tmp_path_factory.mktemp("lab-root")
    for path in (NOTEBOOK, BESIDE_NOTEBOOK):
        shutil.copy(path, folder / path.name)
    data_dir = tmp_path_factory.mktemp("chaplab-data")
    return start_lab(folder, env={"CHAPLAB_DATA_DIR": str(data_dir)})


@pytest.mark.browser
def test_panel_notebook_shows_a_finished_evaluation_with_its_fan_chart(
    lab: JupyterLab,
    open_notebook: Callable[..., NotebookPage],
    browser_output_dir: Path,
) -> None:
    page = open_notebook(lab, NOTEBOOK.name, VIEWPORT)
    page.page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=lab.base_url)

    page.run_all_cells()
    page.open_file_browser()

    dataset_name = str(page.kernel_value("dataset_name"))
    evaluation_name = f"naive_model on {dataset_name}"
    panel = page.panel_output()
    expect(panel.get_by_text("Datasets", exact=True)).to_be_visible()
    for name in (dataset_name, "naive_model", "seasonal_naive", "regression_model"):
        expect(panel.get_by_role("button", name=name, exact=True)).to_be_visible()

    job_row = panel.locator(".widget-hbox", has_text=f"{evaluation_name} evaluation")
    expect(job_row.locator(".widget-html").filter(has_text="SUCCESS")).to_have_text("SUCCESS")

    evaluation = panel.get_by_role("button", name=evaluation_name, exact=True)
    expect(evaluation).to_have_class(re.compile(r"\bmod-info\b"))  # selected: its chart is shown

    chart = panel.locator("img.widget-image").first  # the results' chart comes first
    chart.wait_for()
    page.page.wait_for_function(
        "(img) => img.complete && img.naturalWidth > 300", arg=chart.element_handle()
    )
    assert chart.evaluate("(img) => img.src.startsWith('blob:') || img.src.startsWith('data:')")

    assert page.kernel_value("panel.views.views") == 1  # the browser counted its one view
    screenshot = browser_output_dir / "panel.png"
    page.screenshot_whole(panel, screenshot)
    assert screenshot.stat().st_size > 10_000
    page.assert_reads_well(panel)

    # the chart's panels are titled with the places' names, and the org-unit picker offers them
    names = page.kernel_value("sorted(set(panel.frame['org_unit_name']))")
    ids = page.kernel_value("sorted(set(panel.frame['org_unit']))")
    panels = page.kernel_value("panel.results.shown_panels")
    assert isinstance(names, list) and isinstance(ids, list) and isinstance(panels, list)
    assert sorted(panels) == names and not set(panels) & set(ids) - set(names)
    expect(panel.locator("select").filter(has_text=names[0])).to_have_count(1)
    # the job row: the bar finished, the job id on one line
    expect(job_row.locator(".progress-bar")).to_be_visible()
    job_id = job_row.locator("span", has_text="job ")
    assert job_id.evaluate("(span) => span.getClientRects().length") == 1

    # the new-model form: every label, option and choice readable, ranges shown
    panel.get_by_text("New configured model").click()
    page.kernel_output(
        "panel.model_form.template.value = next(t.id for t in panel.template_list"
        " if t.name == 'regression_model')"
    )
    expect(panel.get_by_text("allowed: from 1 to 12")).to_be_visible()
    page.assert_reads_well(panel)
    page.screenshot_whole(panel, browser_output_dir / "panel-new-model.png")
    panel.get_by_text("New configured model").click()

    # a delete asks first; "Keep" deletes nothing
    panel.locator(f'button[title="delete {dataset_name}"]').click()  # an icon, named by its title
    question = panel.get_by_text(f"Delete dataset {dataset_name} (id ")
    expect(question).to_be_visible()
    page.assert_reads_well(panel)
    panel.get_by_role("button", name="Keep", exact=True).click()
    expect(question).to_be_hidden()

    # "copy code" puts the code of the view on the clipboard
    panel.get_by_role("button", name="copy code").click()
    expect(panel.get_by_text("copied: paste it into a cell")).to_be_visible()
    copied = page.page.evaluate("() => navigator.clipboard.readText()")
    assert copied.startswith("import chaplab\n") and "client = chaplab.connect()" in copied
    assert f'title="{evaluation_name}"' in copied

    # a second evaluation of the dataset: pressing the first shows it instead (no comparison)
    page.kernel_output("panel.launcher.n_splits.value = 2\npanel.launch()\nawait panel.wait_idle()")
    second = panel.get_by_role("button", name=f"{evaluation_name}-2", exact=True)
    expect(second).to_have_class(re.compile(r"\bmod-info\b"))
    evaluation.click()
    expect(evaluation).to_have_class(re.compile(r"\bmod-info\b"))
    expect(second).not_to_have_class(re.compile(r"\bmod-info\b"))
    page.wait_until_idle()
    assert page.kernel_value("[item.name for item in panel.results.selected]") == [evaluation_name]
    metrics = panel.locator("table", has_text="aggregate metrics")
    expect(metrics).to_have_count(0)

    # "compare with" draws both, the metrics table under the chart
    compare_with = panel.locator("select").filter(has_text="nothing (one evaluation)")
    compare_with.select_option(label=f"{evaluation_name}-2 (#{second_id(page)})")
    metrics.wait_for()
    page.wait_until_idle()
    chart_box, table_box = chart.bounding_box(), metrics.bounding_box()
    assert chart_box is not None and table_box is not None
    assert table_box["y"] >= chart_box["y"] + chart_box["height"] - 1  # under the chart
    assert table_box["x"] + table_box["width"] <= VIEWPORT["width"]
    page.assert_reads_well(panel)
    page.screenshot_whole(panel, browser_output_dir / "panel-compare.png")
    page.page.set_viewport_size(WINDOW)
    compare_with.scroll_into_view_if_needed()
    page.screenshot(browser_output_dir / "panel-compare-window.png")

    # one click back to one evaluation
    panel.get_by_role("button", name="show one evaluation").click()
    expect(metrics).to_have_count(0)
    assert page.kernel_value("[item.name for item in panel.results.selected]") == [evaluation_name]
    evaluation.scroll_into_view_if_needed()
    page.screenshot(browser_output_dir / "panel-window.png")

    # a 1024 px window without the file browser: still nothing cut, no horizontal scroll, with
    # a weekly dataset of a long name listed (it widened the datasets table past the edge)
    page.kernel_output(
        "import pandas as pd\n"
        "weeks = [f'2020W{week:02d}' for week in range(1, 54)]\n"
        "weekly = pd.DataFrame({'time_period': weeks * 2, 'location': ['a'] * 53 + ['b'] * 53,"
        " 'disease_cases': 1.0, 'rainfall': 1.0, 'mean_temperature': 20.0,"
        " 'population': 1000.0})\n"
        "chaplab.connect().create_dataset('influenza hospital admissions (example hub)', weekly)\n"
        "await panel.refresh()"
    )
    expect(
        panel.get_by_role("button", name="influenza hospital admissions (example hub)")
    ).to_be_visible()
    page.page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
    page.page.set_viewport_size({"width": 1024, "height": VIEWPORT["height"]})
    page.wait_until_idle()
    page.assert_reads_well(panel)
    page.screenshot_whole(panel, browser_output_dir / "panel-1024.png")


def second_id(page: NotebookPage) -> int:
    """The id of the evaluation launched second (the newest)."""
    return int(page.kernel_output("print(max(item.id for item in panel.evaluations))"))
