"""Every view of the panel on chap-core 2.5.1, in JupyterLab in headless Chromium, read as a
person reads it (``NotebookPage.assert_reads_well``: no text out of its box, over another or cut
without an ellipsis, no two values reading the same, raster charts shown at 90-100 % of the width
they were drawn for with text of 10 CSS px or more and sharp at a device pixel ratio of 2; at
1400 px with the file browser open and at 1024 px), with monthly and with weekly data.

A notebook opens ``ChapPanel()`` with ``CHAP_URL`` set to the peer, as a person does. The test
presses the dataset's and ``naive_model``'s rows and reads the tables and the evaluations list;
runs an evaluation from the launcher (two splits of three periods) and reads its job row and
results charts; runs ``naive_model`` and ``persistence`` as a batch in **Compare models** and
reads the leaderboard, the diagnostics and two of its rows compared, then the evaluation compared
with the batch's in the results; presses **Forecast forward** and reads every tab of the
forecast (chart, table, both maps, outbreak tiles). Screenshots:
test-output/browser/peer-panel-<monthly|weekly>-<view>.png.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import nbformat
import pytest
from playwright.sync_api import Locator, expect, sync_playwright

from chaplab import ChapClient
from chaplab.client import Dataset
from chaplab.vocabulary import SUCCESS
from chaplab.widgets.forecast import PROBABILITY_MAP

from .peer_data import observation_table, weekly_periods
from .peer_requests import upload_dataset

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "browser"))
from lab_harness import JupyterLab, NotebookPage, launch_chromium  # noqa: E402

SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-output" / "browser"
WEEKLY_DATASET = "chaplab peer tests, weekly"
KINDS = ("monthly", "weekly")
MODEL = "naive_model"
BATCH = (MODEL, "persistence")
N_PERIODS, N_SPLITS = 3, 2
WINDOW = {"width": 1400, "height": 900}
CELLS = [
    "from chaplab.widgets import ChapPanel\npanel = ChapPanel()\nawait panel.ready()\npanel",
]
FORECAST_TABS = {"chart": 0, "table": None, "map": 1, "P(outbreak)": 2}
"""The forecast's tabs, with the index of the chart each shows among the view's pictures."""
SELECTED = re.compile(r"\bmod-info\b")


@pytest.fixture(scope="module")
def weekly_dataset(peer_client: ChapClient, peer_http: httpx.Client) -> Dataset:
    """The tests' observations by ISO week (``weekly_periods``), stored when absent."""
    for dataset in peer_client.list_datasets():
        if dataset.name == WEEKLY_DATASET:
            return dataset
    table = observation_table(weekly_periods())
    return upload_dataset(peer_client, peer_http, WEEKLY_DATASET, table)


@pytest.fixture(scope="module")
def lab(peer_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterLab]:
    """JupyterLab with one panel notebook per kind of data, its kernels on the peer."""
    root = tmp_path_factory.mktemp("lab-root")
    for kind in KINDS:
        cells = [nbformat.v4.new_code_cell(cell) for cell in CELLS]
        notebook = nbformat.v4.new_notebook(cells=cells)
        notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
        nbformat.write(notebook, root / f"panel-{kind}.ipynb")
    started = JupyterLab.start(
        root, tmp_path_factory.mktemp("jupyter-state"), env={"CHAP_URL": peer_url}
    )
    yield started
    started.stop()


@pytest.fixture(params=KINDS)
def kind(request: pytest.FixtureRequest) -> str:
    kind: str = request.param
    return kind


@pytest.fixture
def dataset(kind: str, request: pytest.FixtureRequest) -> Dataset:
    """The dataset of ``kind``: the tests' monthly one, or its weekly twin."""
    found: Dataset = request.getfixturevalue(
        "peer_dataset" if kind == "monthly" else "weekly_dataset"
    )
    return found


def test_every_view_of_the_panel_reads_well_on_chap_core(
    lab: JupyterLab, dataset: Dataset, kind: str, tmp_path: Path
) -> None:
    with sync_playwright() as playwright:
        context = launch_chromium(playwright, tmp_path / "profile")
        try:
            page = NotebookPage.open(context, lab, f"panel-{kind}.ipynb")
            page.page.set_viewport_size(WINDOW)
            page.run_all_cells()
            page.open_file_browser()
            read_every_view(page, dataset, kind)
        finally:
            context.close()


def read_every_view(page: NotebookPage, dataset: Dataset, kind: str) -> None:
    """Go through the panel's views, gating and saving each. What starts work on the service
    or a redraw runs as code in the notebook's kernel, followed by ``await panel.wait_idle()``,
    so each view is gated once its work has ended (the clicks themselves are tested on our
    service, tests/browser)."""
    panel = page.panel_output()
    expect(panel.get_by_text("2.5.1")).to_have_count(1)  # the connection bar: the peer

    # the datasets and models tables, the evaluations list
    # on the page that holds it: a shuffled peer run may have stored more than a page before
    run(page, f"panel.datasets.select({dataset.id})\npanel.datasets.show_row({dataset.id})")
    run(
        page,
        f"model_id = next(m.id for m in panel.model_list if m.name == {MODEL!r})\n"
        "panel.models.select(model_id)\npanel.models.show_row(model_id)",
    )
    for name in (dataset.name, MODEL):
        expect(panel.get_by_role("button", name=name, exact=True)).to_have_class(SELECTED)
    page.assert_reads_well(panel)
    save(page, panel, kind, "tables")

    # an evaluation launched and followed: its job row, then its results
    run(
        page,
        f"panel.launcher.n_periods.value = {N_PERIODS}\n"
        f"panel.launcher.n_splits.value = {N_SPLITS}\n"
        "panel.launch()",
    )
    name = str(page.kernel_value("panel.jobs.rows[0].name"))
    job_row = panel.locator(".widget-hbox:has(> .widget-hprogress)").filter(
        has=page.page.get_by_text(name, exact=True)
    )
    expect(job_row).to_contain_text(SUCCESS)
    expect(panel.get_by_role("button", name=name, exact=True)).to_have_class(SELECTED)
    wait_for_chart(page, panel.locator("img.widget-image").first)
    page.assert_reads_well(panel)
    save(page, panel, kind, "evaluation")

    # Compare models: a batch of two models ranked with chap-core's baselines, two compared
    run(
        page,
        "view = panel.compare\n"
        f"view.dataset.value = {dataset.id}\n"
        f"view.models.value = {BATCH!r}\n"
        f"view.n_periods.value, view.n_splits.value = {N_PERIODS}, {N_SPLITS}\n"
        "await view.run()\n"
        f"view.leaderboard.select(*{BATCH!r})",
    )
    view = (
        panel.locator(".widget-vbox", has_text="Compare models")
        .filter(has=page.page.get_by_role("button", name="Run batch"))
        .last
    )
    expect(view.get_by_text(re.compile(r"\d+ models scored on"))).to_be_visible()
    for model in BATCH:
        row = view.locator(".widget-hbox", has_text=model).filter(has_text=SUCCESS)
        expect(row).to_have_count(1)
    expect(view.get_by_text(" vs ")).to_be_visible()
    wait_for_chart(page, view.locator("img.widget-image").first)  # the pair, under the rows
    wait_for_chart(page, view.locator("img.widget-image").last)  # the diagnostics
    page.assert_reads_well(panel)
    save(page, view, kind, "compare-models")

    # the evaluation compared with the newest comparable one (of the batch) in the results
    run(
        page,
        "panel.results.compare(max(value for _, value in panel.results.compare_with.options"
        " if isinstance(value, int)))",
    )
    expect(panel.locator("table", has_text="aggregate metrics")).to_be_visible()
    page.assert_reads_well(panel)
    save(page, panel, kind, "evaluation-compared")

    # Forecast forward: every tab of the forecast
    run(page, "panel.forecast()")
    tabs = panel.locator(".widget-tab")
    expect(tabs).to_have_count(1)
    forecast = tabs.locator("xpath=..")  # the forecast view: its button, tabs and code
    expect(forecast.locator(".lm-TabBar-tab")).to_have_text(list(FORECAST_TABS))
    for index, (tab, picture) in enumerate(FORECAST_TABS.items()):
        run(page, f"panel.forecasts.tabs.selected_index = {index}")
        if picture is None:
            expect(forecast.locator("table", has_text="the forecast")).to_be_visible()
        else:
            wait_for_chart(page, forecast.locator("img.widget-image").nth(picture))
        page.assert_reads_well(panel)
        save(page, forecast, kind, f"forecast-{tab.replace('P(outbreak)', 'outbreak')}")
        if tab == "map":
            run(page, f"panel.forecasts.map_value.value = {PROBABILITY_MAP!r}")
            wait_for_chart(page, forecast.locator("img.widget-image").nth(picture))
            page.assert_reads_well(panel)
            save(page, forecast, kind, "forecast-map-probability")


def run(page: NotebookPage, code: str) -> None:
    """Run ``code`` in the notebook's kernel and wait until the panel is idle; fail with what
    it printed when it raised."""
    printed = page.kernel_output(f"{code}\nawait panel.wait_idle()")
    assert "Error" not in printed, printed


def wait_for_chart(page: NotebookPage, image: Locator) -> None:
    """Wait until a chart image is loaded and drawn (not the empty, hidden widget)."""
    expect(image).to_be_visible()
    page.page.wait_for_function(
        "(img) => img.complete && img.naturalWidth > 300", arg=image.element_handle()
    )


def save(page: NotebookPage, locator: Locator, kind: str, view: str) -> None:
    """Save ``locator`` whole as the window shows it (1400 px, the file browser open)."""
    page.screenshot_whole(locator, SCREENSHOTS / f"peer-panel-{kind}-{view}.png")
