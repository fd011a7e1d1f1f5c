"""A running evaluation's progress in the panel's job row, in JupyterLab in headless Chromium.

A notebook opens the panel on its own embedded service (a fresh data folder) with a larger
synthetic dataset (200 districts, ten years of weekly data), runs a small naive evaluation to the
end (a finished row to compare with) and selects ``regression_model`` with 400 splits of 12 weeks
on the larger dataset: half a minute of work or more on a two-core machine, longer than the 10 s a
status request may be held, so the row shows the job running even where the job starts between
the client's reading of the job list and its first held status request (the held answer then
comes back with the new status only after 10 s). The test then clicks
"Run evaluation" and, while the job runs, checks what a person sees in its row: "split k/n" with
a bar filled to k of n (k < n), a count that goes up, the row on one line with its bar and status
under those of the finished row, nothing cut; a screenshot of the job rows is saved as
test-output/browser/panel-progress.png. At the end the bar is full and the row says SUCCESS.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from lab_harness import JupyterLab, NotebookPage
from playwright.sync_api import Locator, expect

NOTEBOOK = "job_progress.ipynb"
VIEWPORT = {"width": 1400, "height": 1600}
DATASET = "200 districts, weekly"
N_SPLITS = 400
FINISHED = "naive_model on demo"
RUNNING = f"regression_model on {DATASET}"
# Generous: the machine may be busy; the test waits for what the page shows, never for a time.
JOB_TIMEOUT_MS = 240_000  # within the suite's 300 s per test
CELLS = [
    "import pandas as pd\n"
    "import chaplab\n"
    "from chaplab.service.demo import generate_demo\n"
    "from chaplab.widgets import ChapPanel\n"
    "\n"
    "client = chaplab.connect()\n"
    "districts = generate_demo(n_org_units=200, n_years=10, period_type='week')\n"
    "observed = districts.panel\n"
    "frame = pd.DataFrame({\n"
    "    'time_period': [p for _ in observed.org_units for p in observed.periods],\n"
    "    'location': [u for u in observed.org_units for _ in observed.periods],\n"
    "    **{name: values.reshape(-1) for name, values in observed.features.items()},\n"
    "})\n"
    f"job = client.make_dataset({DATASET!r}, frame, geojson=districts.geojson)\n"
    "print('dataset', client.wait_for_job(job.id).result_id)\n"
    "panel = ChapPanel(chaplab.connect(async_=True))\n"
    "panel",
    "await panel.ready()\n"
    "def choose(dataset_name, model_name, n_periods, n_splits):\n"
    "    panel.datasets.select(next(d.id for d in panel.dataset_list if d.name == dataset_name))\n"
    "    panel.models.select(next(m.id for m in panel.model_list if m.name == model_name))\n"
    "    panel.launcher.n_periods.value = n_periods\n"
    "    panel.launcher.n_splits.value = n_splits\n"
    "\n"
    "choose('demo', 'naive_model', 3, 3)\n"
    "panel.launch()\n"
    "await panel.wait_idle()\n"
    "assert panel.jobs.rows[0].status == 'SUCCESS', panel.jobs.rows[0].error_label.value",
    f"choose({DATASET!r}, 'regression_model', 12, {N_SPLITS})\nprint(panel.launcher.name.value)",
]

# Runs in the page on a job row's line: what its bar says and how much of it is filled.
_BAR_JS = """
(line) => {
  const progress = line.querySelector('.widget-hprogress');
  const track = progress.querySelector('.progress').getBoundingClientRect();
  const filled = progress.querySelector('.progress-bar').getBoundingClientRect();
  return {
    label: progress.querySelector('.widget-label').textContent.trim(),
    fraction: filled.width / track.width,
  };
}
"""

# Runs in the page on a job row's line: the boxes a person lines up by eye ([left, width]), the
# vertical middles of its four parts (side by side on one line: the same middle), and how many
# lines the job's name and its id each take.
_LINE_BOXES_JS = """
(line) => {
  const box = (element) => {
    const rect = element.getBoundingClientRect();
    return [Math.round(rect.left), Math.round(rect.width)];
  };
  const middle = (element) => {
    const rect = element.getBoundingClientRect();
    return rect.top + rect.height / 2;
  };
  const [title, bar, status, buttons] = line.children;
  return {
    height: Math.round(line.getBoundingClientRect().height),
    bar: box(bar),
    status: box(status),
    middles: [title, bar, status, buttons].map(middle),
    name_lines: title.querySelector('b').getClientRects().length,
    id_lines: [...title.querySelectorAll('span')].find(
      (span) => span.textContent.startsWith('job ')
    ).getClientRects().length,
  };
}
"""

# Runs in the page on a job row's line: the pixels ``text`` needs in its bar's label (in the
# label's font, with its padding), and the pixels the label has.
_LABEL_ROOM_JS = """
(line, text) => {
  const label = line.querySelector('.widget-hprogress .widget-label');
  const style = getComputedStyle(label);
  const canvas = document.createElement('canvas').getContext('2d');
  canvas.font = style.font;
  const padding = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
  return [Math.ceil(canvas.measureText(text).width + padding), label.clientWidth];
}
"""

# Runs in the page: true once the bar of the job row's line says a later split than ``done``
# (with 120 splits and the log read every 2 s, the job is still running then).
_LATER_SPLIT_JS = """
([line, done]) => {
  const text = line.querySelector('.widget-hprogress .widget-label').textContent;
  const found = /split (\\d+)\\//.exec(text);
  return found !== null && Number(found[1]) > done;
}
"""


def job_line(panel: Locator, name: str) -> Locator:
    """The line of the job row named ``name``: its name and id, bar, status and buttons."""
    return panel.locator(".widget-hbox:has(> .widget-hprogress)").filter(
        has=panel.page.get_by_text(name, exact=True)
    )


def bar_of(line: Locator) -> dict[str, Any]:
    """What the line's bar says (``label``) and how much of its track is filled (``fraction``),
    read at one instant."""
    return dict(line.evaluate(_BAR_JS))


def split_count(label: str) -> tuple[int, int]:
    """``(k, n)`` from a bar's ``split k/n``."""
    found = re.fullmatch(r"split (\d+)/(\d+)", label)
    assert found is not None, f"the bar says {label!r}, not 'split k/n'"
    return int(found[1]), int(found[2])


@pytest.mark.browser
def test_a_running_evaluation_shows_its_splits_in_its_job_row(
    lab: JupyterLab,
    open_notebook: Callable[..., NotebookPage],
    browser_output_dir: Path,
) -> None:
    page = open_notebook(lab, NOTEBOOK, VIEWPORT)
    page.run_all_cells()
    panel = page.panel_output()
    finished, running = job_line(panel, FINISHED), job_line(panel, RUNNING)
    expect(finished).to_contain_text("SUCCESS")
    assert page.kernel_output("print(panel.launcher.name.value)").strip() == RUNNING

    panel.get_by_role("button", name="Run evaluation").click()

    # while it runs: "split k/n" with the bar filled to k of n
    expect(running.locator(".widget-hprogress .widget-label")).to_have_text(
        re.compile(r"split \d+/\d+"), timeout=JOB_TIMEOUT_MS
    )
    first = bar_of(running)
    done, total = split_count(first["label"])
    assert total == N_SPLITS and 0 < done < total, first
    assert 0 < first["fraction"] < 1
    assert first["fraction"] == pytest.approx(done / total, abs=0.01)
    expect(running).to_contain_text("STARTED")

    # the row reads well: on one line, its bar and status under those of the finished row
    page.assert_reads_well(panel)
    boxes = {
        name: line.evaluate(_LINE_BOXES_JS)
        for name, line in (("running", running), ("finished", finished))
    }
    assert boxes["running"]["bar"] == boxes["finished"]["bar"], boxes
    assert boxes["running"]["status"] == boxes["finished"]["status"], boxes
    assert abs(boxes["running"]["height"] - boxes["finished"]["height"]) <= 1, boxes
    middles = boxes["running"]["middles"]
    assert max(middles) - min(middles) <= 1, boxes
    assert boxes["running"]["name_lines"] == boxes["running"]["id_lines"] == 1, boxes

    # the longest count the launcher can ask for (the service's bound) fits the label as well
    most = int(page.kernel_output("print(panel.launcher.settings.settings['nSplits'].maximum)"))
    widest = f"split {most}/{most}"
    needed, room = running.evaluate(_LABEL_ROOM_JS, widest)
    assert needed <= room, f"{widest!r} needs {needed} px, the label has {room} px"

    board = panel.locator(".widget-vbox:has(> .widget-vbox > .widget-hbox > .widget-hprogress)")
    screenshot = browser_output_dir / "panel-progress.png"
    board.screenshot(path=str(screenshot))
    assert screenshot.stat().st_size > 5_000

    # the count goes up while the job runs
    page.page.wait_for_function(
        _LATER_SPLIT_JS, arg=[running.element_handle(), done], timeout=JOB_TIMEOUT_MS
    )
    later = bar_of(running)
    later_done, _ = split_count(later["label"])
    assert later_done > done and later["fraction"] > first["fraction"], (first, later)

    # at the end: the bar full, SUCCESS
    expect(running).to_contain_text("SUCCESS", timeout=JOB_TIMEOUT_MS)
    end = bar_of(running)
    assert end == {"label": "finished", "fraction": 1}, end
    page.assert_reads_well(panel)
