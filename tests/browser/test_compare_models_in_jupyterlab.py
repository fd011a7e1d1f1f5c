"""The panel's "compare models" view in JupyterLab in headless Chromium, as a person sees it.

A notebook opens the panel on its own embedded service (a fresh data folder), shows the view,
adds our three models to the preselected baselines and runs the batch. The test waits until the
leaderboard is drawn, checks what the page shows (every model's job row ending ``SUCCESS``, six
ranked rows, the charts, the comparison of two models picked by clicking their rows shown right
under them, no choice cut in the dropdowns with a long dataset name among them) and saves
a screenshot of the view as test-output/browser/compare-models.png.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from lab_harness import JupyterLab, NotebookPage
from playwright.sync_api import expect

NOTEBOOK = "compare_models.ipynb"
VIEWPORT = {"width": 1400, "height": 3600}  # the whole view, charts included
OUR_MODELS = ("naive_model", "seasonal_naive", "regression_model")
BASELINES = ("persistence", "seasonal_median", "global_median")
LONG_NAME = "dengue and climate of every district, weekly since 2015 (ministry extract)"
CELLS = [
    "import chaplab\n"
    "from chaplab.widgets import ChapPanel\n"
    "client = chaplab.connect()\n"
    f"client.create_dataset({LONG_NAME!r}, client.dataset_frame('demo'))\n"
    "panel = ChapPanel()\n"
    "await panel.ready()\n"
    "view = panel.compare\n"
    "view",
    f"view.models.value = (*view.models.value, *{OUR_MODELS!r})\n"
    "view.n_periods.value, view.n_splits.value = 3, 4\n"
    "await view.run()\n"
    "await panel.wait_idle()\n"
    "print(view.status.value)",
]


@pytest.mark.browser
def test_a_batch_of_six_models_is_ranked_and_two_are_compared_in_jupyterlab(
    lab: JupyterLab,
    open_notebook: Callable[..., NotebookPage],
    browser_output_dir: Path,
) -> None:
    page = open_notebook(lab, NOTEBOOK, VIEWPORT)

    page.run_all_cells()

    view = page.output_area().filter(has_text="Compare models").first
    expect(view.get_by_text("Run batch")).to_be_visible()
    for model in (*OUR_MODELS, *BASELINES):
        job = view.locator(".widget-hbox", has_text=model).filter(has_text="SUCCESS")
        expect(job).to_have_count(1)  # the model's job row, titled with its name
        expect(view.get_by_role("button", name=model, exact=True)).to_be_visible()
    expect(view.get_by_text("6 models scored on 72 forecast targets each")).to_be_visible()
    expect(view.get_by_text("1.00 (baseline)", exact=True)).to_be_visible()

    charts = view.locator("img.widget-image")
    expect(charts).to_have_count(5)
    comparison = charts.nth(0)  # under the leaderboard's rows, empty until two are selected
    for index in range(1, 5):  # leaderboard, WIS components, coverage, PIT
        page.page.wait_for_function(
            "(img) => img.complete && img.naturalWidth > 300",
            arg=charts.nth(index).element_handle(),
        )

    for model in ("naive_model", "persistence"):
        view.get_by_role("button", name=model, exact=True).click()
    expect(view.get_by_role("button", name="naive_model", exact=True)).to_have_class(
        re.compile(r"\bmod-info\b")
    )
    expect(view.get_by_text("vs")).to_be_visible()
    page.page.wait_for_function(
        "(img) => img.complete && img.naturalWidth > 300", arg=comparison.element_handle()
    )
    # the pair's chart right under the rows clicked (it appeared 900 px below them)
    rows = [
        view.get_by_role("button", name=model, exact=True).bounding_box()
        for model in (*OUR_MODELS, *BASELINES)
    ]
    chart = comparison.bounding_box()
    assert chart is not None and all(rows)
    last_row = max(row["y"] + row["height"] for row in rows if row)
    assert 0 < chart["y"] - last_row < 150

    # a dataset with a long name: every choice of every dropdown readable, nothing cut
    expect(view.locator("select option", has_text=LONG_NAME)).to_have_count(1)
    page.assert_reads_well(view)

    screenshot = browser_output_dir / "compare-models.png"
    page.wait_until_idle()
    view.screenshot(path=str(screenshot))
    assert screenshot.stat().st_size > 10_000
