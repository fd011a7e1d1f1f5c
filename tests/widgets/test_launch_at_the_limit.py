"""The launcher's limit is the service's: for every built-in model, on monthly and on weekly data,
an evaluation with as many splits as the launcher allows is accepted and runs, and one more is
refused by the launcher and by the service with the same reason (the plan's ``misfit``)."""

from __future__ import annotations

import html
from collections.abc import AsyncIterator

import pandas as pd
import pytest

from chaplab.client import ChapClient, UnprocessableEntityError
from chaplab.service.demo import weekly_demo_dataset
from chaplab.service.forecasting import TEMPLATES
from chaplab.vocabulary import SUCCESS
from chaplab.widgets import ChapPanel
from panels import loaded_panel

pytestmark = [pytest.mark.anyio, pytest.mark.integration]

WEEKS = ("2020W01", "2021W30")
"""A weekly stretch whose first year has 53 weeks: a model's first split trains on week 53."""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def weekly_dataset(service_url: str) -> str:
    """A weekly dataset on the service (the demo's weeks of :data:`WEEKS`); its name."""
    panel = weekly_demo_dataset().panel
    first, last = panel.periods.index(WEEKS[0]), panel.periods.index(WEEKS[1]) + 1
    frame = pd.DataFrame(
        {
            "time_period": [
                period for _ in panel.org_units for period in panel.periods[first:last]
            ],
            "location": [unit for unit in panel.org_units for _ in panel.periods[first:last]],
            **{name: values[:, first:last].reshape(-1) for name, values in panel.features.items()},
        }
    )
    with ChapClient(service_url) as client:
        return client.create_dataset("weekly limits", frame).name or ""


@pytest.fixture
async def panel(service_url: str, weekly_dataset: str) -> AsyncIterator[ChapPanel]:
    async with loaded_panel(service_url) as chap_panel:
        yield chap_panel


@pytest.mark.parametrize("dataset_name", ["demo", "weekly limits"])
@pytest.mark.parametrize("model_name", sorted(TEMPLATES))
async def test_the_launchers_limit_is_accepted_and_one_more_split_is_refused_alike(
    panel: ChapPanel, service_url: str, model_name: str, dataset_name: str
) -> None:
    dataset = next(item for item in panel.dataset_list if item.name == dataset_name)
    model = next(item for item in panel.model_list if item.name == model_name)
    panel.datasets.select(dataset.id)
    panel.models.toggle(model.id).value = True
    launcher = panel.launcher
    assert (launcher.dataset.id, launcher.model.name) == (dataset.id, model_name)
    limit = launcher.settings.most_splits()
    assert limit is not None and limit > 1
    launcher.n_splits.value = limit + 1
    assert launcher.button.disabled
    said = html.unescape(launcher.settings.message.value)
    assert f"number of splits is {limit + 1}, too many for the data: " in said
    with ChapClient(service_url) as client:
        with pytest.raises(UnprocessableEntityError) as refused:
            client.create_evaluation("past the limit", model_name, dataset.id, n_splits=limit + 1)
        reason = refused.value.message.removeprefix("n_splits: ")
        assert f"number of splits {reason}</div>" in said
        launcher.n_splits.value = limit
        assert not launcher.button.disabled, launcher.problem.value
        name = f"{model_name} at the limit of {dataset_name}"
        launcher.name.value = name
        launcher.button.click()
        await panel.wait_idle()
        (job,) = [row for row in panel.jobs.rows if row.name == name]
        done = client.wait_for_job(job.job_id, timeout=240)
        assert done.status == SUCCESS
        evaluation = client.get_evaluation(client.job_created_id(done))
        assert len(evaluation.split_periods) == limit
