"""chap-core 2.5.1's own charts in JupyterLab in headless Chromium, as a person asks for them in
a notebook with ``CHAP_URL`` set: a metric chart (whose container-sized Vega spec used to freeze
the renderer until the tab crashed), the wide horizon x location grid and a metric map. Each is
shown as a picture, nothing runs past the notebook's right edge (a wide chart is shrunk to the
output's width), and the tab keeps answering, also after ``interactive()`` shows the metric chart
live with its size fixed.
Screenshot: test-output/browser/chap-core-charts.png."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from playwright.sync_api import expect, sync_playwright

from chaplab.client import Evaluation

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "browser"))
from lab_harness import JupyterLab, NotebookPage, launch_chromium  # noqa: E402

REPOSITORY = Path(__file__).resolve().parents[2]
NOTEBOOK = "charts.ipynb"
CHARTS = (
    ("metric_plot", "metric_by_horizon_mean", "crps"),
    ("evaluation_plot", "horizon_location_grid"),
    ("metric_plot", "metric_map", "crps"),
)


@pytest.fixture
def lab(peer_url: str, naive_evaluation: Evaluation, tmp_path: Path) -> Iterator[JupyterLab]:
    """JupyterLab on a notebook that asks the peer for three of its charts."""
    cells = ["import chaplab\nclient = chaplab.connect()"]
    for method, *names in CHARTS:
        arguments = ", ".join([repr(names[0]), str(naive_evaluation.id), *map(repr, names[1:])])
        cells.append(f"client.{method}({arguments})")
    # the live view of the chart that crashed the tab, its size fixed
    cells.append(
        f"client.metric_plot('metric_by_horizon_mean', {naive_evaluation.id}, 'crps').interactive()"
    )
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    root = tmp_path / "root"
    root.mkdir()
    nbformat.write(notebook, root / NOTEBOOK)
    started = JupyterLab.start(root, tmp_path / "state", env={"CHAP_URL": peer_url})
    yield started
    started.stop()


def test_chap_core_charts_show_as_pictures_without_a_crash(lab: JupyterLab, tmp_path: Path) -> None:
    with sync_playwright() as playwright:
        context = launch_chromium(playwright, tmp_path / "profile")
        try:
            page = NotebookPage.open(context, lab, NOTEBOOK)
            page.page.set_viewport_size({"width": 1200, "height": 2600})
            page.run_all_cells()
            pictures = page.output_area().locator("img[src^='data:image/svg+xml']")
            expect(pictures).to_have_count(len(CHARTS))
            for index in range(len(CHARTS)):
                page.page.wait_for_function(
                    "(img) => img.complete && img.naturalWidth > 200",
                    arg=pictures.nth(index).element_handle(),
                )
            live = page.output_area().locator(".vega-embed")
            expect(live).to_have_count(1)  # only the interactive() view is live
            expect(live.locator("svg, canvas").first).to_be_visible()
            assert page.past_right_edge(page.page.locator(".jp-NotebookPanel:visible")) == []
            # the tab still answers: a cell run after the charts prints
            assert page.kernel_output("print(6 * 7)").strip() == "42"
            out = REPOSITORY / "test-output" / "browser" / "chap-core-charts.png"
            page.screenshot(out)
        finally:
            context.close()
