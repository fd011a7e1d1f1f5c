"""The panel's "compare models" view on the embedded service over loopback: our three models and
chap-core's three baselines run as one batch, every job followed, the leaderboard and the
scoring diagnostics drawn, and two models of the batch opened in the comparison chart."""

from __future__ import annotations

import asyncio
import html

import numpy as np
import pandas as pd
import pytest

import chaplab
from chaplab import scoring
from chaplab.client import AsyncChapClient, Dataset, ModelSpec, ModelTemplate
from chaplab.frames import format_numbers
from chaplab.vocabulary import SUCCESS
from chaplab.widgets import ChapPanel
from chaplab.widgets._markup import GREY, RED
from chaplab.widgets._tasks import TaskKeeper
from chaplab.widgets.compare_models import RUNNING, CompareModelsView

pytestmark = [pytest.mark.anyio, pytest.mark.integration]

OUR_MODELS = ("naive_model", "seasonal_naive", "regression_model")
BASELINES = ("persistence", "seasonal_median", "global_median")
"""The embedded service's templates with the baseline role, as it lists them."""


def offered(view: CompareModelsView) -> tuple[str, ...]:
    """The model names the view's picker offers (its options' values)."""
    return tuple(name for _, name in view.models.options)


@pytest.fixture
async def compared(panel: ChapPanel) -> ChapPanel:
    """The panel after a batch of six models on the demo dataset has been run and scored."""
    view = panel.compare
    view.dataset.value = next(d.id for d in panel.dataset_list if d.name == "demo")
    view.models.value = (*view.models.value, *OUR_MODELS)
    view.n_periods.value, view.n_splits.value = 2, 3
    task = view.run()
    assert task is not None and view.button.disabled  # no second batch while one runs
    await task
    await panel.wait_idle()
    return panel


async def test_the_baselines_are_preselected_by_their_templates_role(panel: ChapPanel) -> None:
    view = panel.compare
    roles = {template.name: template.role for template in panel.template_list}
    assert {name for name, role in roles.items() if role == "baseline"} == set(BASELINES)
    assert set(view.models.value) == set(BASELINES)
    assert set(OUR_MODELS) <= set(offered(view))  # names, not ids
    assert f"3 of {len(offered(view))} selected" in view.models_note.value
    assert view.dataset.label == "demo" and not view.button.disabled


def test_preselection_follows_the_role_not_the_name() -> None:
    """A server's own reference model is preselected by its template's role, and a model that
    only bears a baseline's name is not."""
    templates = [
        ModelTemplate(id=1, name="district_mean", role="baseline"),
        ModelTemplate(id=2, name="seasonal_median"),  # a server that does not call it one
    ]
    models = [
        ModelSpec(id=10, name="district_mean", model_template_id=1),
        ModelSpec(id=11, name="district_mean:weekly"),  # a configuration, found by its name
        ModelSpec(id=12, name="seasonal_median", model_template_id=2),
        ModelSpec(id=13, name="reference", role="baseline"),  # the role sent with the model
    ]
    view = CompareModelsView(client=None, keeper=TaskKeeper(on_error=print))
    view.set_choices([], models, templates)
    assert offered(view) == (
        "district_mean",
        "district_mean:weekly",
        "reference",
        "seasonal_median",
    )
    assert view.models.value == ("district_mean", "district_mean:weekly", "reference")


def test_a_model_whose_service_is_gone_is_marked_and_refused() -> None:
    """A configured model whose model service is not registered now (``healthStatus`` null)
    is offered marked so, as the models table marks it, is not preselected as a baseline, and
    a batch with it is refused before anything is sent, saying why, as the launcher does."""
    service = {"uses_chapkit": True, "model_template_id": 2}
    models = [
        ModelSpec(id=10, name="persistence", role="baseline"),
        ModelSpec(id=11, name="naive_model"),
        ModelSpec(id=12, name="scaled:gone", role="baseline", health_status=None, **service),
        ModelSpec(id=13, name="scaled:here", health_status="live", **service),
    ]
    view = CompareModelsView(client=None, keeper=TaskKeeper(on_error=print))
    view.set_choices([Dataset(id=1, name="demo", type="evaluation")], models)
    assert view.models.options == (
        ("naive_model", "naive_model"),
        ("persistence", "persistence"),
        ("scaled:gone (model service not registered)", "scaled:gone"),
        ("scaled:here", "scaled:here"),
    )
    assert view.models.value == ("persistence",)
    view.models.value = ("persistence", "scaled:here")
    assert not view.button.disabled and view.problem.value == ""
    view.models.value = ("persistence", "scaled:gone")
    assert view.button.disabled
    assert (
        "scaled:gone runs on a model service that is not registered now: start the service "
        "(it registers itself) and refresh, or choose another model"
    ) in view.problem.value
    assert view.run() is None


async def test_bad_backtest_settings_are_said_before_anything_is_sent(panel: ChapPanel) -> None:
    view = panel.compare
    view.dataset.value = next(d.id for d in panel.dataset_list if d.name == "demo")
    view.n_periods.value, view.n_splits.value = 20, 101  # 20 + 100 periods of a 120-period set
    assert view.button.disabled
    assert view.n_splits.value == "101"  # kept as typed, refused with what fits
    assert html.unescape(view.settings.message.value).endswith(
        "the data has 120; at most 88 fit</div>"
    )  # after the 13 months the baselines chosen (persistence, seasonal_median) train on
    assert view.settings.note.value == ""  # one message at a time: the problem says what fits
    view.n_splits.value = 3
    assert "allows at most 88 splits of 20 periods after the 13 periods persistence trains on" in (
        html.unescape(view.settings.note.value)
    )
    view.models.value = ("persistence",)
    assert "select at least two models" in view.problem.value
    assert view.run() is None and view.job_rows == []


async def test_a_batch_of_six_models_is_followed_and_ranked(compared: ChapPanel) -> None:
    view = compared.compare
    assert sorted(row.name for row in view.job_rows) == sorted((*BASELINES, *OUR_MODELS))
    titles = [row.children[0].children[0].value for row in view.job_rows]  # names, not job ids
    assert titles == [f"<b>{row.name}</b>" for row in view.job_rows]
    assert {row.status for row in view.job_rows} == {SUCCESS}
    rows = view.leaderboard.rows
    assert len(rows) == 6
    assert [row["rank"] for row in rows] == [1, 2, 3, 4, 5, 6]
    assert {row["model"] for row in rows} == {*BASELINES, *OUR_MODELS}
    # relative to the strongest baseline (the lowest mean WIS): ranked below 1 is better than
    # every baseline
    assert view.scored is not None
    mean_wis = view.scored.scores.groupby("model", observed=True)["wis"].mean()
    strongest = min(BASELINES, key=lambda name: mean_wis[name])
    assert view.baseline.value == strongest
    baseline = next(row for row in rows if row["model"] == strongest)
    assert baseline["relative_skill"] == "1.00 (baseline)"  # the precision of its column
    assert "6 models scored on 36 forecast targets each" in view.status.value  # 6 × 3 × 2
    for image in view.images.values():
        assert bytes(image.value).startswith(b"\x89PNG")


async def test_the_batchs_evaluations_are_listed_in_the_results_view(
    compared: ChapPanel,
) -> None:
    """Once the batch's jobs have ended, the panel's evaluations list holds what they stored:
    the evaluation shown there can be compared with them."""
    batch = await compared.client.list_evaluations()
    newest = sorted(item.id for item in batch)[-6:]  # the batch's six, stored last
    assert set(newest) <= set(compared.results.evaluations)
    compared.results.table.select(newest[0])
    await compared.wait_idle()
    compared.results.compare(newest[-1])
    await compared.wait_idle()
    assert [item.id for item in compared.results.selected] == [newest[0], newest[-1]]


async def test_the_leaderboard_is_the_scores_of_the_evaluations_entries(
    compared: ChapPanel,
) -> None:
    view = compared.compare
    assert view.scored is not None
    expected = scoring.relative_skill(
        scoring.score(view.scored.forecasts, view.scored.actuals), view.baseline.value, seed=0
    )
    shown = {row["model"]: row for row in view.leaderboard.rows}
    ratios = [*expected["relative_skill"], *expected["lower"], *expected["upper"]]
    (places,) = {len(text.partition(".")[2]) for text in format_numbers(ratios)}  # one for all
    for record in expected.itertuples():
        row = shown[record.model]
        assert row["rank"] == record.rank
        assert row["relative_skill"].split(" ")[0] == f"{record.relative_skill:.{places}f}"
        interval = f"{record.lower:.{places}f} \u2013 {record.upper:.{places}f}"
        assert row["interval"] == (None if record.baseline else interval)


async def test_another_baseline_reranks_the_models(compared: ChapPanel) -> None:
    view = compared.compare
    view.baseline.value = "naive_model"
    await compared.wait_idle()
    naive = next(row for row in view.leaderboard.rows if row["model"] == "naive_model")
    assert naive["relative_skill"].startswith("1.0") and naive["relative_skill"].endswith(
        " (baseline)"
    )


async def test_picking_two_models_opens_their_comparison(compared: ChapPanel) -> None:
    view = compared.compare
    assert bytes(view.comparison.value) == b""
    view.leaderboard.select("naive_model", "persistence")
    await compared.wait_idle()
    assert bytes(view.comparison.value).startswith(b"\x89PNG")
    assert "<b>naive_model</b> vs <b>persistence</b>" in view.comparison_title.value
    view.leaderboard.select("naive_model")
    assert bytes(view.comparison.value) == b"" and view.comparison_title.value == ""


async def test_the_leaderboards_copy_code_scores_and_draws_what_the_view_shows(
    compared: ChapPanel,
) -> None:
    """ "copy code" under the leaderboard copies its own code (not the evaluations' view):
    pasted into a cell, it ranks the same evaluations against the same baseline and draws the
    same leaderboard, diagnostics and comparison chart."""
    import matplotlib.pyplot as plt

    from chaplab.widgets._render import png_bytes

    view = compared.compare
    view.baseline.value = "naive_model"
    view.leaderboard.select("naive_model", "persistence")
    await compared.wait_idle()
    code = view.code.code
    assert view.code in view.children and view.code is not compared.code
    assert view.code.copy_button.code == code
    assert '"naive_model", level=0.9' in code and 'labels=("naive_model", "persistence")' in code
    namespace: dict[str, object] = {}
    exec(code, namespace)  # what a person pastes into a cell
    assert view.scored is not None
    pd.testing.assert_frame_equal(namespace["skill"], view.scored.skill("naive_model"))
    drawn = {
        "figure": view.images["leaderboard_chart"],
        "components": view.images["wis_components_chart"],
        "coverage": view.images["coverage_chart"],
        "pit": view.images["pit_chart"],
        "comparison": view.comparison,
    }
    for name, image in drawn.items():
        figure = namespace[name]
        assert png_bytes(figure) == bytes(image.value), f"the pasted {name} is the view's"
        plt.close(figure)
    namespace["client"].close()


async def test_a_local_backtest_joins_the_leaderboard(compared: ChapPanel) -> None:
    def train(config: object, data: pd.DataFrame, geo: object) -> pd.Series:
        return data.groupby("location")["disease_cases"].mean()

    def predict(
        config: object, model: pd.Series, historic: object, future: pd.DataFrame, geo: object
    ) -> pd.DataFrame:
        mean = future["location"].map(model).to_numpy()
        samples = np.outer(mean, np.linspace(0.5, 1.5, 20))
        columns = [f"sample_{i}" for i in range(20)]
        return pd.concat(
            [future, pd.DataFrame(samples, columns=columns, index=future.index)], axis=1
        )

    view = compared.compare
    data = await compared.client.dataset_frame(view.dataset.value)
    mine = await asyncio.to_thread(
        chaplab.backtest, train, predict, data, n_periods=2, n_splits=3, progress=False
    )
    with pytest.raises(ValueError, match="name 'naive_model' is a model of the batch"):
        view.add_forecasts("naive_model", mine)
    with pytest.raises(ValueError, match="frame must be an evaluation frame"):
        view.add_forecasts("mine", mine.drop(columns="split_period"))
    task = compared.add_forecasts("mine", mine)
    assert task is not None
    await task
    rows = {row["model"]: row for row in view.leaderboard.rows}
    assert len(rows) == 7 and rows["mine"]["targets"] == "36"
    assert "7 models scored on 36 forecast targets each" in view.status.value


async def test_a_new_panel_offers_the_batches_run_before_and_ranks_one(
    compared: ChapPanel, service_url: str
) -> None:
    """A new panel does not say "Run a batch" while the service holds batches: it offers them
    under "earlier batch", and choosing one ranks its models as the batch's own view did."""
    ranked = {row["model"] for row in compared.compare.leaderboard.rows}
    client = AsyncChapClient(service_url)
    fresh = ChapPanel(client)
    try:
        await fresh.ready()
        view = fresh.compare
        assert view.earlier.options[0][0].startswith("none")
        batches = [  # the service may hold others (of other tests): the newest such comes first
            value
            for label, value in view.earlier.options[1:]
            if label.startswith("demo · ") and "· 2 periods, 3 splits, step 1 (#" in label
        ]
        assert batches, f"the batch run before is offered: {view.earlier.options}"
        await view.show_batch(batches[0])
        assert {row["model"] for row in view.leaderboard.rows} == ranked
        assert view.scored is not None and not view.button.disabled
    finally:
        fresh.close()
        await fresh.wait_idle()
        await client.aclose()


async def test_the_comparison_starts_on_the_dataset_selected_in_the_panel(
    panel: ChapPanel,
) -> None:
    """Selecting a dataset in the panel's table chooses it for the batch too (the view started
    on the first evaluation dataset whatever the panel showed); a choice made in the view
    stays until the next selection in the table."""
    view = panel.compare
    evaluation_sets = [d for d in panel.dataset_list if d.type == "evaluation"]
    assert view.dataset.value == panel.datasets.selected[0]
    other = next(d for d in panel.dataset_list if d.id != view.dataset.value)
    panel.datasets.select(other.id)
    assert view.dataset.value == other.id
    view.dataset.value = evaluation_sets[0].id  # chosen in the view
    await panel.refresh()
    assert view.dataset.value == evaluation_sets[0].id


async def test_earlier_batch_offers_batches_not_an_evaluation_run_alone(
    compared: ChapPanel, service_url: str
) -> None:
    """An evaluation run alone has a specification too (one model and the baselines' runs, as
    every specification): it is listed under the evaluations, not as an earlier batch."""
    dataset = next(d for d in compared.dataset_list if d.name == "demo")
    async with AsyncChapClient(service_url) as client:
        alone = await client.run_evaluation(
            "alone", "naive_model", dataset.id, n_periods=2, n_splits=5, stride=1
        )
        specifications = await client.list_backtest_specifications()
    view = compared.compare
    await view.load_batches()
    offered = {value for _, value in view.earlier.options[1:]}
    single = {item.id for item in specifications if item.backtest_count == 1}
    assert alone.id and single and not offered & single
    assert offered and all(
        item.backtest_count is None or item.backtest_count > 1
        for item in specifications
        if item.id in offered
    )


async def test_a_running_batch_is_said_as_a_note_not_as_an_error(panel: ChapPanel) -> None:
    """ "a batch is running" stood in red beside the button, as if something were wrong."""
    view = panel.compare
    view.models.value = tuple(BASELINES)
    view.n_periods.value, view.n_splits.value = 2, 2
    started = view.run()
    assert started is not None and view.button.disabled
    assert RUNNING in html.unescape(view.problem.value)
    assert GREY in view.problem.value and RED not in view.problem.value
    await started
    await panel.wait_idle()
    assert view.problem.value == "" and not view.button.disabled
