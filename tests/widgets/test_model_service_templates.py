"""The panel's new-model form with a template a model service runs: listed with its display
name, author and assessed status, configured from the service's config schema like any other.

The model service is the stand-in of tests/service (real chapkit services run in tests/peer),
registered with a service of this module's own, so no other test's template list changes."""

from __future__ import annotations

import html
from collections.abc import AsyncIterator, Callable, Iterator

import pytest

from chaplab.client import ChapClient
from chaplab.service import create_app
from chaplab.toolkit import BackgroundServer
from chaplab.widgets import ChapPanel
from panels import launched_evaluation, loaded_panel
from service.helpers import geojson_for, small_frame
from service.model_service_stand_in import StandIn, registered_stand_in

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


@pytest.fixture(scope="module")
def own_service(new_database_url: Callable[[str], str]) -> Iterator[str]:
    app = create_app(new_database_url("panel_model_services"), workers=1, seed_demo=False)
    with BackgroundServer(app, "127.0.0.1") as server:
        yield server.url


@pytest.fixture
def stand_in(own_service: str, unique: str) -> Iterator[StandIn]:
    """A stand-in registered with the service; its template is stored as it registers."""
    model = StandIn(f"panel-mean-{unique}")
    with registered_stand_in(own_service, model):
        yield model


@pytest.fixture
async def panel(own_service: str, stand_in: StandIn) -> AsyncIterator[ChapPanel]:
    async with loaded_panel(own_service) as chap_panel:
        yield chap_panel


async def test_a_services_template_shows_its_name_author_and_status_and_is_configured(
    panel: ChapPanel, stand_in: StandIn
) -> None:
    form = panel.model_form
    template = next(t for t in panel.template_list if t.name == stand_in.service_id)
    labels = {value: label for label, value in form.template.options}
    assert labels[template.id] == (
        f"{stand_in.service_id} (Scaled mean, by The chaplab tests; assessed yellow)"
    )
    built_in = next(t for t in panel.template_list if t.name == "naive_model")
    assert labels[built_in.id] == "naive_model"  # the tables' name, as before
    form.template.value = template.id
    about = form.about.value
    assert "<b>Scaled mean</b> by The chaplab tests" in about
    assert "assessed yellow by its author: ready for more rigorous testing on diverse data" in about
    assert "its model service is registered now" in about
    assert "forecasts 1 to 6 periods at a time" in about  # nPeriods beyond is refused
    assert "Each place&#x27;s mean of the history, times scale." in about
    # its options are the service's config schema's, without the ones the run sets itself
    assert set(form.options.fields) == {"scale"}
    assert form.options.fields["scale"].input.value == 1.0
    form.options.fields["scale"].input.value = 2.5
    form.name.value = "panel"
    assert not form.button.disabled
    form.button.click()
    await panel.wait_idle()
    expected = f"{stand_in.service_id}:panel"
    assert f"created {expected}" in form.message.value
    (row,) = panel.models.selected_rows
    assert row["name"] == expected and "scale=2.5" in row["options"]


async def test_a_horizon_beyond_the_services_bounds_is_refused_by_the_service_at_once(
    panel: ChapPanel, stand_in: StandIn, own_service: str
) -> None:
    with ChapClient(own_service) as client:
        dataset = client.create_dataset(f"places {stand_in.service_id}", small_frame(n_years=2))
        template = client.register_template_from_service(stand_in.service_id)
        model = client.create_configured_model("far", template.id, {})
    await panel.refresh()
    panel.datasets.select(dataset.id)
    panel.models.select(model.id)
    launcher = panel.launcher
    launcher.n_periods.value = 7  # it forecasts 1 to 6 periods at a time
    launcher.button.click()
    await panel.wait_idle()
    shown = html.unescape(launcher.problem.value)
    assert f"model {stand_in.service_id!r} forecasts from 1 to 6 periods at a time" in shown
    assert not panel.jobs.rows  # refused when submitted, no job


async def test_a_services_model_is_evaluated_and_forecast_from_the_panel(
    panel: ChapPanel, stand_in: StandIn, own_service: str
) -> None:
    with ChapClient(own_service) as client:
        frame = small_frame(n_years=2)
        dataset = client.create_dataset(
            f"served {stand_in.service_id}", frame, geojson=geojson_for(sorted(set(frame.location)))
        )
        template = client.register_template_from_service(stand_in.service_id)
        model = client.create_configured_model("served", template.id, {"scale": 2.0})
    await panel.refresh()
    panel.datasets.select(dataset.id)
    panel.models.select(model.id)
    evaluation_job = await launched_evaluation(
        panel, f"served run {stand_in.service_id}", n_splits=2, n_periods=2
    )
    assert len(panel.jobs.rows) == 1
    assert (evaluation_job.status, evaluation_job.error) == ("SUCCESS", None)
    (shown,) = panel.results.selected
    assert shown.name == f"served run {stand_in.service_id}"
    assert panel.frame["split_period"].nunique() == 2
    assert bytes(panel.results.image.value).startswith(b"\x89PNG")
    assert [config["scale"] for config in stand_in.sent_configs] == [2.0]

    panel.forecasts.button.click()
    await panel.wait_idle()
    forecast_job = next(row for row in panel.jobs.rows if row.kind == "forecast")
    assert (forecast_job.status, forecast_job.error) == ("SUCCESS", None)
    forecast = panel.forecasts.frame
    assert set(forecast["org_unit"]) == set(frame.location)
    assert forecast["period"].nunique() == 2
    assert bytes(panel.forecasts.image.value).startswith(b"\x89PNG")
