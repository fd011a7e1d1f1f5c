"""A model service's template in the panel's "new configured model" form, in JupyterLab in
headless Chromium, as a person sees it.

A notebook registers the stand-in model service of tests/service with its own embedded service
(a fresh data folder), opens the panel and picks the service's template in the form. The test
opens the form and checks what the page shows: the picker's entry with the template's display
name, author and assessed status, the line under it (the status's dot, whether the service is
registered now, the description) and the option generated from the service's config schema,
nothing cut; a screenshot of the form is saved as test-output/browser/panel-model-service.png.

A second notebook configures a model of the service and removes the service's registration:
the models table says its service is not registered, and the launcher, with that model
selected, refuses to run it and says why (test-output/browser/panel-service-gone.png).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from lab_harness import JupyterLab, NotebookPage
from playwright.sync_api import expect

REPOSITORY = Path(__file__).resolve().parents[2]
NOTEBOOK = "model_service_panel.ipynb"
VIEWPORT = {"width": 1400, "height": 1800}
SERVICE_ID = "scaled-mean"
CELLS = [
    "import sys\n"
    f"sys.path.insert(0, {str(REPOSITORY / 'tests')!r})  # the stand-in model service\n"
    "import chaplab\n"
    "from chaplab.widgets import ChapPanel\n"
    "from service.model_service_stand_in import StandIn, registered_stand_in\n"
    "client = chaplab.connect()\n"
    f"registration = registered_stand_in(client.base_url, StandIn({SERVICE_ID!r}))\n"
    "registration.__enter__()\n"
    "panel = ChapPanel()\n"
    "await panel.ready()\n"
    f"template = next(t for t in panel.template_list if t.name == {SERVICE_ID!r})\n"
    "panel.model_form.template.value = template.id\n"
    "panel",
]
GONE_NOTEBOOK = "service_gone.ipynb"
GONE_CELLS = [
    "import sys\n"
    f"sys.path.insert(0, {str(REPOSITORY / 'tests')!r})  # the stand-in model service\n"
    "import chaplab\n"
    "from chaplab.widgets import ChapPanel\n"
    "from service.model_service_stand_in import StandIn, registered_stand_in\n"
    "client = chaplab.connect()\n"
    f"with registered_stand_in(client.base_url, StandIn({SERVICE_ID!r})):\n"
    f"    template = client.register_template_from_service({SERVICE_ID!r})\n"
    "    model = client.create_configured_model('double', template.id, {'scale': 2.0})\n"
    f"client.remove_model_runner({SERVICE_ID!r})\n"
    "panel = ChapPanel()\n"
    "await panel.ready()\n"
    "panel.models.select(model.id)\n"
    "panel",
]


@pytest.mark.browser
def test_a_model_services_template_shows_whose_it_is_and_its_options_in_jupyterlab(
    lab: JupyterLab,
    open_notebook: Callable[..., NotebookPage],
    browser_output_dir: Path,
) -> None:
    page = open_notebook(lab, NOTEBOOK, VIEWPORT)

    page.run_all_cells()

    panel = page.panel_output()
    panel.get_by_text("New configured model").click()
    form = panel.locator(".widget-vbox", has=page.page.get_by_text("Create configured model"))
    form = form.last
    picker = form.locator("select").first
    expect(picker.locator("option:checked")).to_have_text(
        f"{SERVICE_ID} (Scaled mean, by The chaplab tests; assessed yellow)"
    )
    expect(form.get_by_text("Scaled mean", exact=True)).to_be_visible()
    expect(form.get_by_text("assessed yellow by its author", exact=False)).to_be_visible()
    expect(form.get_by_text("its model service is registered now", exact=False)).to_be_visible()
    expect(form.get_by_role("spinbutton", name="scale")).to_have_value("1")  # from its schema
    page.assert_reads_well(panel)

    screenshot = browser_output_dir / "panel-model-service.png"
    page.wait_until_idle()
    form.screenshot(path=str(screenshot))
    assert screenshot.stat().st_size > 5_000


@pytest.mark.browser
def test_a_model_whose_service_is_gone_is_marked_and_refused_before_launch_in_jupyterlab(
    lab_of_cells: Callable[[str, Sequence[str]], JupyterLab],
    open_notebook: Callable[..., NotebookPage],
    browser_output_dir: Path,
) -> None:
    lab = lab_of_cells(GONE_NOTEBOOK, GONE_CELLS)
    page = open_notebook(lab, GONE_NOTEBOOK, VIEWPORT)

    page.run_all_cells()

    panel = page.panel_output()
    model = f"{SERVICE_ID}:double"
    expect(panel.get_by_role("button", name=model, exact=True)).to_be_visible()
    expect(panel.get_by_text("model service", exact=True)).to_be_visible()  # the column
    expect(panel.get_by_text("not registered", exact=True)).to_be_visible()
    refusal = (
        f"{model} runs on a model service that is not registered now: start the service "
        "(it registers itself) and refresh, or choose another model"
    )
    expect(panel.get_by_text(refusal)).to_be_visible()
    expect(panel.get_by_role("button", name="Run evaluation")).to_be_disabled()
    page.assert_reads_well(panel)

    screenshot = browser_output_dir / "panel-service-gone.png"
    page.wait_until_idle()
    panel.screenshot(path=str(screenshot))
    assert screenshot.stat().st_size > 10_000
