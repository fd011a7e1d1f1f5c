"""The widget panel on a chap-core server, driven as a person would: set widget values, click
buttons, await the background tasks, and look at what the panel shows."""

from __future__ import annotations

import pytest

from chaplab import ChapClient
from chaplab.client import Dataset, Evaluation, ModelSpec
from chaplab.vocabulary import DEFAULT_QUANTILES, SUCCESS
from chaplab.widgets import ChapPanel

from .peer_data import DATASET_NAME, FIRST_YEAR, ORG_UNITS, YEARS

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _choose(panel: ChapPanel, dataset: Dataset, model: ModelSpec) -> None:
    """Press the dataset's and the configured model's rows, as a person would."""
    panel.datasets.toggle(dataset.id).value = True
    panel.models.toggle(model.id).value = True


async def test_lists_the_datasets_and_the_live_configured_models_with_their_templates(
    panel: ChapPanel,
    peer_client: ChapClient,
    seasonal_median_configuration: ModelSpec,
    unique: str,
) -> None:
    assert panel.connection.error_text == ""
    assert "2.5.1" in panel.connection.summary.value
    datasets = {row["name"]: row for row in panel.datasets.rows}
    assert datasets[DATASET_NAME]["periods"] == 12 * YEARS
    assert datasets[DATASET_NAME]["org_units"] == len(ORG_UNITS)
    templates = {row["name"]: row["template"] for row in panel.models.rows}
    assert templates["naive_model"] == "naive_model"
    assert templates["seasonal_median"] == "seasonal_median"
    assert templates[seasonal_median_configuration.name] == "seasonal_median"
    template = next(t for t in panel.template_list if t.name == "seasonal_median")
    archived = peer_client.create_configured_model(f"archived-{unique}", template.id, {})
    peer_client.delete_configured_model(archived.id)  # chap-core keeps it, marked archived
    await panel.refresh()
    assert archived.name not in {row["name"] for row in panel.models.rows}
    assert panel.launcher.model is not None and not panel.launcher.button.disabled


async def test_a_new_seasonal_median_configuration_appears_selected(
    panel: ChapPanel, unique: str
) -> None:
    form = panel.model_form
    template = next(t for t in panel.template_list if t.name == "seasonal_median")
    form.template.value = template.id
    form.name.value = f"panel-{unique}"
    assert not form.button.disabled
    form.button.click()
    await panel.wait_idle()
    expected = f"seasonal_median:panel-{unique}"
    assert f"created {expected}" in form.message.value
    (row,) = panel.models.selected_rows
    assert (row["name"], row["template"]) == (expected, "seasonal_median")
    assert panel.launcher.model.name == expected


async def test_a_launched_evaluation_is_followed_to_success_and_charted(
    panel: ChapPanel,
    peer_dataset: Dataset,
    seasonal_median_configuration: ModelSpec,
    unique: str,
) -> None:
    _choose(panel, peer_dataset, seasonal_median_configuration)
    panel.launcher.name.value = f"panel run {unique}"
    panel.launcher.n_periods.value = 3
    panel.launcher.n_splits.value = 2
    panel.launcher.button.click()
    await panel.wait_idle()
    (row,) = panel.jobs.rows
    assert (row.status, row.error) == (SUCCESS, None)
    assert row.bar.description == "finished" and row.cancel_button.disabled
    (shown,) = panel.results.selected
    assert shown.name == f"panel run {unique}"
    frame = panel.frame
    assert list(frame.columns) == [
        "org_unit",
        "org_unit_name",
        "split_period",
        "period",
        "horizon",
        "quantile",
        "value",
    ]
    assert set(frame["org_unit"]) == set(ORG_UNITS)
    assert frame["split_period"].nunique() == 2
    assert sorted(frame["quantile"].unique()) == list(DEFAULT_QUANTILES)
    assert set(panel.actuals["org_unit"]) == set(ORG_UNITS)
    assert sorted(panel.results.shown_panels) == sorted(ORG_UNITS.values())
    assert bytes(panel.results.image.value).startswith(b"\x89PNG")
    assert f"evaluation_frame({shown.id}, " in panel.code.code


async def test_two_evaluations_are_compared_with_their_metrics(
    panel: ChapPanel,
    peer_dataset: Dataset,
    seasonal_median_configuration: ModelSpec,
    naive_evaluation: Evaluation,
    unique: str,
) -> None:
    """chap-core 2.5.1 does not list evaluations of a ``seasonal_median`` configuration; the
    panel shows the one it launched all the same, and offers it under **compare with** when
    the listed ``naive_model`` one is shown: the two are drawn together with their metrics."""
    await panel.refresh()  # the naive evaluation was made after the panel loaded
    _choose(panel, peer_dataset, seasonal_median_configuration)
    panel.launcher.name.value = f"panel comparison {unique}"
    panel.launcher.n_splits.value = 2
    panel.launcher.button.click()
    await panel.wait_idle()
    (launched,) = panel.results.selected
    panel.results.table.select(naive_evaluation.id)
    panel.results.compare(launched.id)  # what choosing it under "compare with" does
    await panel.results.settled()
    assert [item.name for item in panel.results.selected] == [
        "peer naive",
        f"panel comparison {unique}",
    ]
    metrics = panel.results.metrics.value
    assert "CRPS" in metrics and "10\u201390 % coverage" in metrics  # titled, not wire keys
    assert sorted(panel.results.shown_panels) == sorted(ORG_UNITS.values())
    assert bytes(panel.results.image.value).startswith(b"\x89PNG")
    panel.results.org_unit.value = "OU_South"
    await panel.results.settled()
    assert panel.results.shown_panels == [ORG_UNITS["OU_South"]]


async def test_a_forecast_forward_is_followed_and_drawn_after_the_history(
    panel: ChapPanel, peer_dataset: Dataset, naive_model: ModelSpec
) -> None:
    _choose(panel, peer_dataset, naive_model)
    panel.launcher.n_periods.value = 3
    panel.forecasts.button.click()
    await panel.wait_idle()
    (row,) = panel.jobs.rows
    assert (row.kind, row.status, row.error) == ("forecast", SUCCESS, None)
    assert panel.forecasts.message.value == ""
    frame = panel.forecasts.frame
    assert set(frame["org_unit"]) == set(ORG_UNITS)
    assert [str(period) for period in sorted(frame["period"].unique())] == [
        f"{FIRST_YEAR + YEARS}-{month:02d}" for month in (1, 2, 3)
    ]
    assert sorted(frame["quantile"].unique()) == list(DEFAULT_QUANTILES)
    assert str(panel.forecasts.actuals["period"].max()) == f"{FIRST_YEAR + YEARS - 1}-12"
    assert sorted(panel.forecasts.shown_panels) == sorted(ORG_UNITS.values())
    assert bytes(panel.forecasts.image.value).startswith(b"\x89PNG")
