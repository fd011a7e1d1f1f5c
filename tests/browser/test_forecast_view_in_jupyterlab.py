"""The panel's "Forecast forward" view in JupyterLab in headless Chromium, as a person sees it.

A notebook opens the panel on its own embedded service (a fresh data folder, the demo dataset
with its polygons). In a 1400 x 900 window with the file browser open, the test presses the
naive model's row (unless the panel selected it already) and **Forecast forward**, waits for
the forecast, and visits every tab of the forecast view (chart, table, map of both values,
outbreak-probability tiles). In each it checks that nothing is cut: no tab title elided, no
text or toggle label wider than its box, no chart image wider than its box or drawn with fewer
than two pixels per pixel shown, nothing past the panel's right edge; the map's place names
are shown at 9 px or more. Saves each tab as
test-output/browser/forecast-<tab>.png (the view) and forecast-<tab>-window.png (the window as
a person sees it), and the probability map as forecast-map-probability.png.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from lab_harness import JupyterLab, NotebookPage
from playwright.sync_api import Locator, expect

from chaplab.plotting._figure import DPI
from chaplab.plotting._map import LABEL_FONT
from chaplab.widgets._render import PIXEL_RATIO

NOTEBOOK = "forecast_view.ipynb"
WINDOW = {"width": 1400, "height": 900}
SMALLEST_NAME = 10.0
"""The fewest pixels a place's name on a map may be shown at, at 100 % zoom."""
MODEL = "naive_model"
CELLS = ["from chaplab.widgets import ChapPanel\npanel = ChapPanel()\nawait panel.ready()\npanel"]
TABS = ("chart", "table", "map", "P(outbreak)")
FILE_NAMES = {"chart": "chart", "table": "table", "map": "map", "P(outbreak)": "outbreak"}

# Runs in the page on the forecast view: the tab titles that do not fit their tab, each as
# "title (needs N px, has M px)".
_ELIDED_TAB_TITLES_JS = """
(view) => [...view.querySelectorAll('.lm-TabBar-tabLabel')]
  .filter((label) => label.scrollWidth > label.clientWidth + 1)
  .map((label) => `${label.textContent} (needs ${label.scrollWidth} px,`
    + ` has ${label.clientWidth} px)`)
"""

# Runs in the page on the forecast view: the shown chart images wider than their box, or with
# fewer than two pixels drawn per pixel shown (scaled up: blurred on most laptops' screens), each
# with its sizes.
_BADLY_SIZED_IMAGES_JS = """
(view) => {
  const bad = [];
  for (const img of view.querySelectorAll('img.widget-image')) {
    if (img.offsetParent === null) continue;
    const shown = img.getBoundingClientRect().width;
    const box = img.parentElement.getBoundingClientRect().width;
    if (shown > box + 1) bad.push(`image ${shown} px wide in a box of ${box} px`);
    if (shown * 2 > img.naturalWidth + 2) {  // sharp on screens of 2 pixels per CSS pixel
      bad.push(`image of ${img.naturalWidth} px shown ${shown} px wide (scaled up)`);
    }
  }
  return bad;
}
"""


# Runs in the page on a chart image and its pixel ratio: how large it is shown, 1 where each
# point of the chart is shown at its size at 100 % zoom.
_SHOWN_SCALE_JS = """
(img, ratio) => img.getBoundingClientRect().width / (img.naturalWidth / ratio)
"""


def assert_nothing_cut(page: NotebookPage, panel: Locator, view: Locator) -> None:
    """Nothing in the panel is cut or past its edge, no tab title elided, every shown chart
    inside its box and drawn with at least as many pixels as it is shown."""
    page.assert_reads_well(panel)
    assert view.evaluate(_ELIDED_TAB_TITLES_JS) == []
    assert view.evaluate(_BADLY_SIZED_IMAGES_JS) == []


def wait_for_image(page: NotebookPage, image: Locator) -> None:
    """Wait until a chart image is loaded and drawn (not the empty, hidden widget)."""
    expect(image).to_be_visible()
    page.page.wait_for_function(
        "(img) => img.complete && img.naturalWidth > 300", arg=image.element_handle()
    )


def save(page: NotebookPage, view: Locator, folder: Path, tab: str) -> None:
    """Save the forecast view whole and the 1400 x 900 window showing its tab."""
    name = FILE_NAMES[tab]
    page.screenshot_whole(view, folder / f"forecast-{name}.png")
    view.locator(".lm-TabBar").scroll_into_view_if_needed()
    page.page.screenshot(path=str(folder / f"forecast-{name}-window.png"))


@pytest.mark.browser
def test_every_tab_of_a_forecast_reads_whole_at_1400_px_with_the_file_browser_open(
    lab: JupyterLab,
    open_notebook: Callable[..., NotebookPage],
    browser_output_dir: Path,
) -> None:
    page = open_notebook(lab, NOTEBOOK, WINDOW)
    page.run_all_cells()
    page.open_file_browser()

    panel = page.output_area().filter(has_text="Forecast forward").first
    model = panel.get_by_role("button", name=MODEL, exact=True)
    model.scroll_into_view_if_needed()
    if "mod-info" not in (model.get_attribute("class") or ""):  # not preselected: press it
        model.click()
    expect(model).to_have_class(re.compile(r"\bmod-info\b"))
    forecast = panel.get_by_role("button", name="Forecast forward")
    forecast.scroll_into_view_if_needed()
    expect(forecast).to_be_enabled()
    forecast.click()
    page.kernel_output("await panel.wait_idle()")

    tabs = panel.locator(".widget-tab")
    expect(tabs).to_have_count(1)
    view = tabs.locator("xpath=..")  # the forecast view: its button, tabs and code
    titles = view.locator(".lm-TabBar-tab")
    expect(titles).to_have_text(list(TABS))

    # chart: the fan chart of the forecast's places
    wait_for_image(page, view.locator("img.widget-image").nth(0))
    assert_nothing_cut(page, panel, view)
    save(page, view, browser_output_dir, "chart")

    # table: a page of places and periods with their thresholds and probabilities
    titles.filter(has_text="table").click()
    table = view.locator("table", has_text="the forecast")
    expect(table).to_be_visible()
    expect(table.locator("th", has_text="P(outbreak)")).to_have_count(1)
    assert table.locator("tbody tr").count() >= 1
    assert_nothing_cut(page, panel, view)
    save(page, view, browser_output_dir, "table")

    # map: the median forecast, then the outbreak probability; the toggle's labels whole
    titles.filter(has_text="map").click()
    map_image = view.locator("img.widget-image").nth(1)
    wait_for_image(page, map_image)
    for label in ("median forecast", "outbreak probability"):
        expect(view.get_by_role("button", name=label, exact=True)).to_be_visible()
    assert_nothing_cut(page, panel, view)
    shown = map_image.evaluate(_SHOWN_SCALE_JS, PIXEL_RATIO)
    assert LABEL_FONT * DPI / 72 * shown >= SMALLEST_NAME, f"map shown at {shown:.0%}"
    save(page, view, browser_output_dir, "map")
    median_map = map_image.get_attribute("src")
    view.get_by_role("button", name="outbreak probability", exact=True).click()
    page.kernel_output("await panel.wait_idle()")
    page.page.wait_for_function(
        "([img, before]) => img.complete && img.naturalWidth > 300 && img.src !== before",
        arg=[map_image.element_handle(), median_map],
    )
    assert_nothing_cut(page, panel, view)
    page.screenshot_whole(view, browser_output_dir / "forecast-map-probability.png")

    # P(outbreak): the tiles of the outbreak probability, the threshold strategy chosen
    titles.filter(has_text="P(outbreak)").click()
    wait_for_image(page, view.locator("img.widget-image").nth(2))
    expect(view.locator("select").first).to_be_visible()
    assert_nothing_cut(page, panel, view)
    save(page, view, browser_output_dir, "P(outbreak)")
