"""A country's worth of org units in the panel, in JupyterLab in headless Chromium.

A notebook writes, against its own embedded service (a fresh data folder), a synthetic country
(558 named districts, ten years of monthly data, made by the project's demo generator) and 22
tiny datasets besides, so that the datasets table has two pages; it evaluates naive_model on
the country (three splits) and opens the panel. The test then checks what a person sees in a
1400 px window:

- the datasets table says "rows 1-20 of N" with those 20 rows, **previous** disabled on the
  first page; **next** shows "rows 21-N of N" and the other rows (the label says that the
  selected dataset is on another page), and **previous** goes back;
- selecting the country's evaluation draws the 12 places with most cases (its title says so, and
  the line above it "pick an org unit to draw any of the other 546 places"), and the 12
  panels are the 12 places with the most actual cases in the months the chart shows (the last
  split's forecast and the months before it), most first, titled with their names;
- typing into the org-unit search box ("find") narrows the picker to the places whose names
  hold the text, and choosing one draws that place alone;
- nothing is cut and nothing needs a horizontal scroll.

Screenshots: test-output/browser/panel-country.png (the panel with the 12 places' chart) and
panel-country-page2.png (the datasets table on its second page).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from lab_harness import JupyterLab, NotebookPage
from playwright.sync_api import Locator, expect

from chaplab.widgets.results import MAX_PANELS
from chaplab.widgets.tables import PAGE_SIZE

NOTEBOOK = "country.ipynb"
# Tall enough for the datasets table, the evaluations and a chart of 12 places in one picture.
VIEWPORT = {"width": 1400, "height": 3400}
N_PLACES = 558
N_SMALL = 22
COUNTRY = f"country, {N_PLACES} districts"
EVALUATION = "naive_model on the country"
PARTIAL = "District 34"  # names holding it: District 34, 134, 234, 340-349, ...
PLACE = "District 345"  # the only name that holds this text; not among the 12 with most cases
# Generous: the machine may be busy; the test waits for what the page shows, never for a time.
CHART_TIMEOUT_MS = 120_000
CELLS = [
    "import pandas as pd\n"
    "import chaplab\n"
    "from chaplab.service.demo import generate_demo\n"
    "from chaplab.widgets import ChapPanel\n"
    "\n"
    "client = chaplab.connect()\n"
    "\n"
    "def wide(demo):\n"
    "    observed = demo.panel\n"
    "    return pd.DataFrame({\n"
    "        'time_period': [p for _ in observed.org_units for p in observed.periods],\n"
    "        'location': [u for u in observed.org_units for _ in observed.periods],\n"
    "        **{name: values.reshape(-1) for name, values in observed.features.items()},\n"
    "    })\n"
    "\n"
    f"country = generate_demo(n_org_units={N_PLACES}, n_years=10, period_type='month')\n"
    f"job = client.make_dataset({COUNTRY!r}, wide(country), geojson=country.geojson)\n"
    "country_id = client.wait_for_job(job.id).result_id\n"
    f"for number in range(1, {N_SMALL + 1}):\n"
    "    small = generate_demo(n_org_units=2, n_years=2, seed=number)\n"
    "    client.create_dataset(f'small {number:02d}', wide(small), geojson=small.geojson)\n"
    "evaluation = client.run_evaluation(\n"
    f"    {EVALUATION!r}, 'naive_model', country_id, n_periods=3, n_splits=3\n"
    ")\n"
    "print('evaluation', evaluation.id, evaluation.split_periods)\n"
    "panel = ChapPanel(chaplab.connect(async_=True))\n"
    "panel",
    "await panel.ready()\nprint(panel.datasets.pager.label.value)",
]

# Runs in the kernel once the country's evaluation is loaded: the names of the MAX_PANELS
# places with the most actual cases in the months the chart shows (the last split's window:
# its forecast and the months before it), most first, and the totals of the last of them and
# of the next one (a tie there would make "the 12 with most cases" ambiguous).
_MOST_CASES_CODE = f"""
from chaplab.plotting._panels import forecast_windows
_frame, _actuals = panel.frame, panel.actuals
_last = _frame[_frame['split_period'] == _frame['split_period'].max()]
(_first, _end), = forecast_windows(_last, None).values()
_shown = _actuals[(_actuals['period'] >= _first) & (_actuals['period'] <= _end)]
_totals = _shown.groupby('org_unit')['value'].sum().sort_values(ascending=False, kind='stable')
_names = dict(zip(_frame['org_unit'], _frame['org_unit_name']))
print(repr((
    [_names[unit] for unit in _totals.index[:{MAX_PANELS}]],
    float(_totals.iloc[{MAX_PANELS - 1}]),
    float(_totals.iloc[{MAX_PANELS}]),
)))
"""


def table_captioned(panel: Locator, caption: str) -> Locator:
    """The table whose caption is ``caption``: caption, grid of rows, pager."""
    return panel.locator(
        "xpath=.//div[contains(concat(' ', @class, ' '), ' widget-vbox ')]"
        f"[./div[contains(@class, 'widget-html')]//b[normalize-space(.)='{caption}']]"
    )


def pager_of(table: Locator) -> Locator:
    """The pager under ``table``: **previous**, "rows 1-20 of N", **next**."""
    return table.locator(":scope > .widget-hbox").filter(
        has=table.page.get_by_role("button", name=button_name("next"))
    )


def button_name(text: str) -> re.Pattern[str]:
    """A button's accessible name: ``text`` after its icon (a glyph the icon font draws)."""
    return re.compile(rf"^\W*{re.escape(text)}$")


def option_texts(select: Locator) -> list[str]:
    """The texts of a dropdown's choices, in order (ipywidgets writes their spaces as
    no-break spaces)."""
    texts = select.evaluate("(select) => [...select.options].map((o) => o.text)")
    return [text.replace("\xa0", " ") for text in texts]


@pytest.mark.browser
def test_a_country_of_558_places_pages_ranks_and_finds_them_in_the_panel(
    lab: JupyterLab,
    open_notebook: Callable[..., NotebookPage],
    browser_output_dir: Path,
) -> None:
    page = open_notebook(lab, NOTEBOOK, VIEWPORT)
    page.run_all_cells()
    panel = page.panel_output()

    # the datasets table: the first 20 rows of all of them, "previous" disabled on page 1
    datasets = page.kernel_value("[d.name for d in panel.dataset_list]")
    assert isinstance(datasets, list) and COUNTRY in datasets
    total = len(datasets)
    assert PAGE_SIZE < total <= 2 * PAGE_SIZE, datasets
    table = table_captioned(panel, "Datasets")
    pager = pager_of(table)
    expect(pager.locator(".widget-label")).to_have_text(f"rows 1-{PAGE_SIZE} of {total}")
    previous = pager.get_by_role("button", name=button_name("previous"))
    following = pager.get_by_role("button", name=button_name("next"))
    expect(previous).to_be_disabled()
    expect(following).to_be_enabled()
    first_page = page.kernel_value("[row['name'] for row in panel.datasets.shown_rows]")
    assert isinstance(first_page, list) and len(first_page) == PAGE_SIZE
    for name in first_page:
        expect(table.get_by_role("button", name=name, exact=True)).to_be_visible()
    later = [name for name in datasets if name not in first_page]
    for name in later:
        expect(table.get_by_role("button", name=name, exact=True)).to_have_count(0)

    # the country's evaluation: the 12 with most cases (the chart's title says so, once), and
    # above it how to draw another
    panel.get_by_role("button", name=EVALUATION, exact=True).click()
    note = panel.get_by_text(f"any of the other {N_PLACES - MAX_PANELS} places")
    expect(note).to_be_visible(timeout=CHART_TIMEOUT_MS)
    assert "most cases" not in panel.inner_text()  # said once, in the chart's title
    chart = panel.locator("img.widget-image").first  # the results' chart comes first
    page.page.wait_for_function(
        "(img) => img.complete && img.naturalWidth > 300", arg=chart.element_handle()
    )
    page.wait_until_idle()
    places = page.kernel_value("sorted(set(panel.frame['org_unit_name']))")
    assert isinstance(places, list) and len(places) == N_PLACES
    expected = ast.literal_eval(page.kernel_output(_MOST_CASES_CODE).strip())
    assert isinstance(expected, tuple)
    most, last_total, next_total = expected
    assert last_total > next_total, expected  # no tie at the 12th place
    shown = page.kernel_value("panel.results.shown_panels")
    assert shown == most, (shown, most)
    assert shown != places[:MAX_PANELS]  # ranked by cases, not by name
    twelve_high = chart.evaluate("(img) => img.naturalHeight")
    page.assert_reads_well(panel)
    screenshot = browser_output_dir / "panel-country.png"
    panel.screenshot(path=str(screenshot))
    assert screenshot.stat().st_size > 20_000

    # "find" narrows the picker; choosing a place draws that place alone
    picker = panel.locator("select").filter(has_text="all org units")
    assert len(option_texts(picker)) == N_PLACES + 1
    assert PLACE not in shown
    search = panel.get_by_placeholder("type to narrow the org units (name or id)")
    search.fill(PARTIAL)
    holding = sorted(
        (name for name in places if PARTIAL.casefold() in name.casefold()),
        key=str.casefold,
    )
    assert 1 < len(holding) < 20, holding
    expect(picker.locator("option")).to_have_count(len(holding) + 1)
    assert option_texts(picker) == ["all org units", *holding]
    search.fill(PLACE)
    expect(picker.locator("option")).to_have_count(2)
    assert option_texts(picker) == ["all org units", PLACE]
    picker.select_option(label=PLACE)
    expect(note).to_have_count(0, timeout=CHART_TIMEOUT_MS)
    page.page.wait_for_function(
        "([img, high]) => img.complete && img.naturalWidth > 300 && img.naturalHeight < high",
        arg=[chart.element_handle(), twelve_high],
        timeout=CHART_TIMEOUT_MS,
    )
    page.wait_until_idle()
    assert page.kernel_value("panel.results.shown_panels") == [PLACE]
    place_id = page.kernel_value(
        f"dict(zip(panel.frame['org_unit_name'], panel.frame['org_unit']))[{PLACE!r}]"
    )
    assert page.kernel_value("panel.results.org_unit.value") == place_id
    page.assert_reads_well(panel)

    # "next": the other rows, "previous" enabled and "next" disabled on the last page; the
    # dataset selected on the first page is said to be there
    selected = page.kernel_value("[row['name'] for row in panel.datasets.selected_rows]")
    assert isinstance(selected, list) and len(selected) == 1 and selected[0] in first_page
    following.click()
    expect(pager.locator(".widget-label")).to_have_text(
        f"rows {PAGE_SIZE + 1}-{total} of {total} (1 selected row on another page)"
    )
    expect(previous).to_be_enabled()
    expect(following).to_be_disabled()
    for name in later:
        expect(table.get_by_role("button", name=name, exact=True)).to_be_visible()
    for name in first_page:
        expect(table.get_by_role("button", name=name, exact=True)).to_have_count(0)
    page.assert_reads_well(panel)
    page.wait_until_idle()
    screenshot = browser_output_dir / "panel-country-page2.png"
    table.screenshot(path=str(screenshot))
    assert screenshot.stat().st_size > 5_000

    # "previous" goes back to the first page
    previous.click()
    expect(pager.locator(".widget-label")).to_have_text(f"rows 1-{PAGE_SIZE} of {total}")
    expect(previous).to_be_disabled()
