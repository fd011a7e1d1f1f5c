"""The panel's "compare models" view on chap-core 2.5.1: what the peer runs offline
(``naive_model``, a ``seasonal_median`` configuration and the three baselines) as one batch
through 2.5.1's own batch route, every job followed, the leaderboard and the diagnostics drawn
from the evaluations' entries, and two of the batch opened in the comparison chart."""

from __future__ import annotations

import httpx
import pytest

from chaplab.client import Dataset, ModelSpec
from chaplab.vocabulary import SUCCESS
from chaplab.widgets import ChapPanel

pytestmark = pytest.mark.anyio

BASELINES = {"persistence", "seasonal_median", "global_median"}
"""chap-core 2.5.1's built-in templates with the baseline role."""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_a_batch_runs_on_the_peer_is_ranked_and_two_open_in_the_comparison(
    panel: ChapPanel,
    peer_http: httpx.Client,
    peer_dataset: Dataset,
    naive_model: ModelSpec,
    seasonal_median_configuration: ModelSpec,
) -> None:
    view = panel.compare
    roles = {template.name: template.role for template in panel.template_list}
    assert {name for name, role in roles.items() if role == "baseline"} == BASELINES
    # preselected by role: the baselines and their configurations, ours and any other test's
    # (2.5.1 lists neither the role nor the template id of a configured model: it is found by
    # its name)
    baselines = {m.name for m in panel.model_list if m.role_in(panel.template_list) == "baseline"}
    assert set(view.models.value) == baselines >= {*BASELINES, seasonal_median_configuration.name}
    view.dataset.value = peer_dataset.id
    view.models.value = (*BASELINES, seasonal_median_configuration.name, naive_model.name)
    view.n_periods.value, view.n_splits.value = 3, 2
    task = view.run()
    assert task is not None
    await task
    await panel.wait_idle()

    models = {*BASELINES, naive_model.name, seasonal_median_configuration.name}
    assert "5 models scored on 12 forecast targets each" in view.status.value  # 2 × 2 × 3
    assert {row.name: row.status for row in view.job_rows} == dict.fromkeys(models, SUCCESS)
    rows = view.leaderboard.rows
    assert {row["model"] for row in rows} == models
    assert [row["rank"] for row in rows] == [1, 2, 3, 4, 5]
    assert view.baseline.value in {*BASELINES, seasonal_median_configuration.name}
    baseline = next(row for row in rows if row["model"] == view.baseline.value)
    skill, label = baseline["relative_skill"].split(" ")  # "1.00", as its column is written
    assert (float(skill), label) == (1.0, "(baseline)")
    for image in view.images.values():
        assert bytes(image.value).startswith(b"\x89PNG")

    view.leaderboard.select(naive_model.name, "global_median")
    await panel.wait_idle()
    assert bytes(view.comparison.value).startswith(b"\x89PNG")
    assert f"<b>{naive_model.name}</b> vs <b>global_median</b>" in view.comparison_title.value

    # 2.5.1 lists as comparison models the newest evaluation on the specification of each model
    # whose template has the "comparison" role (set from a marketplace entry, or by a model
    # service registered with it, as test_discovery does): none of the batch's models has it
    [specification] = peer_http.get(
        "/v1/crud/backtest-specifications",
        params={"datasetId": peer_dataset.id, "nPeriods": 3, "nSplits": 2},
    ).json()
    detail = peer_http.get(
        f"/v1/crud/backtest-specifications/{specification['id']}",
        params={"includeComparisonModels": "true"},
    ).json()
    listed = [item["configuredModel"] for item in detail["comparisonModels"]]
    assert all(model["modelTemplate"]["role"] == "comparison" for model in listed)
    assert not {model["name"] for model in listed} & set(view.models.value)
