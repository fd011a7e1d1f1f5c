"""The "compare models" view: several configured models and the baselines on one backtest.

The analyst picks a dataset and configured models (those whose template has the ``baseline``
role preselected, as the server says), sets the
backtest plan (the launcher's :class:`~chaplab.widgets.plan_inputs.PlanInputs`, with the
service's bounds and the chosen models' training periods) once and runs the models as one batch
(``create_backtests``): every evaluation files under one backtest specification, so they are
comparable by construction. Each model's job gets a row like those of the jobs section; when
every job has ended and the specification's baselines are done, the entries of every
evaluation are scored with :mod:`chaplab.scoring` (in a worker thread) and the view shows the
leaderboard (relative skill with bootstrap intervals, as a table and a chart) and the
diagnostics: the WIS split into its components, PIT histograms and coverage. Selecting two rows
of the leaderboard draws their comparison chart.

Widgets are read and written only on the event loop; the charts are drawn in the chart process.
"""

from __future__ import annotations

import asyncio
import html
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from chaplab.client import ArgumentError, ChapError
from chaplab.frames import format_number, format_numbers
from chaplab.vocabulary import BacktestPlan
from chaplab.widgets._markup import GREEN, GREY, message
from chaplab.widgets._render import image_widget, render_chart
from chaplab.widgets._tasks import Started, TaskKeeper, on_kernel_loop
from chaplab.widgets.connection import describe_error
from chaplab.widgets.jobs import JobLine
from chaplab.widgets.launcher import service_gone
from chaplab.widgets.plan_inputs import PlanInputs
from chaplab.widgets.results import HISTORY_PERIODS, ChartView
from chaplab.widgets.snippets import CodeView, LeaderboardShown, access_of, leaderboard_code
from chaplab.widgets.tables import Column, SortableTable, fit_choices

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

BASELINE_ROLE = "baseline"
"""The role of a template whose models every comparison is measured against (chap-core's
``ModelTemplateRead.role``): its configured models are preselected, and relative skill is
scaled by one of them."""
SKILL_LEVEL = 0.9
NO_BATCH = "none (run a batch, or choose one run before)"
"""The **earlier batch** choice that shows no batch of the service's."""
RUNNING = "a batch is running: Run batch waits until it has finished"
"""Said (as a note, not in red) beside the button while a batch runs."""
SERVICE_GONE = "model service not registered"
"""Beside a model's name in the picker, for a model whose model service is not registered now
(``ModelSpec.service_missing``), as the panel's models table says it."""
_STYLE = {"description_width": "90px"}
_EARLIER_LABEL = "100px"  # "earlier batch" whole

LEADERBOARD_COLUMNS = (
    Column("model", "model"),
    Column("rank", "rank"),
    Column("relative_skill", "relative WIS"),
    Column("interval", f"{SKILL_LEVEL:.0%} interval"),
    Column("mean_wis", "mean WIS"),
    Column("targets", "forecast targets"),
)


@dataclass(frozen=True)
class BatchRequest:
    """What the view asks the service to run: several models on one backtest."""

    name: str
    dataset_id: int
    model_names: tuple[str, ...]
    plan: BacktestPlan


@dataclass(frozen=True)
class BatchScores:
    """The batch's forecasts scored the same way (built in a worker thread): one row per model
    and forecast target, the mean of every metric per model, PIT histograms and coverage."""

    forecasts: Mapping[str, pd.DataFrame]
    actuals: pd.DataFrame
    scores: pd.DataFrame
    summary: pd.DataFrame
    pit: pd.DataFrame
    coverage: pd.DataFrame

    @classmethod
    def build(cls, forecasts: Mapping[str, pd.DataFrame], actuals: pd.DataFrame) -> BatchScores:
        """Score ``forecasts`` (model name -> evaluation frame) against ``actuals``; forecast
        targets without an actual case are left out."""
        from chaplab import scoring

        scores = scoring.score(forecasts, actuals, unmatched="drop")
        return cls(
            forecasts=dict(forecasts),
            actuals=actuals,
            scores=scores,
            summary=scoring.summarise(scores),
            pit=scoring.pit_histogram(forecasts, actuals, unmatched="drop"),
            coverage=scoring.coverage(forecasts, actuals, unmatched="drop"),
        )

    @property
    def models(self) -> list[str]:
        """The scored models, in the order they were run."""
        return list(self.forecasts)

    def strongest(self, candidates: Iterable[str]) -> str | None:
        """Of the scored ``candidates``, the one with the lowest mean WIS (ties by name): the
        baseline a model must beat to rank below 1 against every baseline. None when no
        candidate was scored."""
        scored = [name for name in candidates if name in self.forecasts]
        if not scored:
            return None
        mean_wis = self.scores.groupby("model", observed=True)["wis"].mean()
        return min(scored, key=lambda name: (mean_wis.get(name, float("inf")), name))

    def skill(self, baseline: str) -> pd.DataFrame:
        """Relative WIS of every model, scaled by ``baseline`` (seeded: the same every time)."""
        from chaplab import scoring

        return scoring.relative_skill(self.scores, baseline, level=SKILL_LEVEL, seed=0)


def leaderboard_rows(skill: pd.DataFrame) -> list[dict[str, Any]]:
    """The table rows of the models of a :func:`chaplab.scoring.relative_skill` frame; the
    relative WIS and its interval share one precision (``1.40`` beside ``1.38``), and so do
    the mean WIS."""
    ratios = format_numbers([*skill["relative_skill"], *skill["lower"], *skill["upper"]])
    relative, lower, upper = (ratios[i * len(skill) : (i + 1) * len(skill)] for i in range(3))
    mean_wis = format_numbers(skill["mean_score"])
    rows = []
    for index, record in enumerate(skill.to_dict("records")):
        baseline = bool(record["baseline"])  # 1 by definition: no interval to show
        rows.append(
            {
                "model": record["model"],
                "rank": int(record["rank"]),
                "relative_skill": relative[index] + (" (baseline)" if baseline else ""),
                "interval": None if baseline else f"{lower[index]} \u2013 {upper[index]}",
                "mean_wis": mean_wis[index],
                "targets": format_number(int(record["n_targets"])),
            }
        )
    return rows


@dataclass(frozen=True)
class ScoringChart:
    """A chart of :mod:`chaplab.plotting` (by name) of one scoring table, drawn in the chart
    process, where matplotlib lives."""

    plot: str
    table: pd.DataFrame

    def draw(self) -> Figure:
        """The chart on a figure of its own."""
        from chaplab import plotting

        figure: Figure = getattr(plotting, self.plot)(self.table)
        return figure


class CompareModelsView(widgets.VBox):  # type: ignore[misc]  # ipywidgets has no annotations
    """Run several configured models as one batch and rank them with proper scores."""

    def __init__(
        self,
        client: Any,
        keeper: TaskKeeper,
        on_stored: Callable[[list[int]], object] | None = None,
    ) -> None:
        """``on_stored`` is called with the ids of the evaluations a batch's jobs stored, once
        they have ended: the panel lists them among its evaluations."""
        super().__init__()
        self._client = client
        self._keeper = keeper
        self._on_stored = on_stored
        self._datasets: dict[int, Any] = {}
        self._models: dict[str, Any] = {}
        self._running = False
        self.unavailable = False
        self._showing_batches = False
        self.scored: BatchScores | None = None
        self.local_forecasts: dict[str, pd.DataFrame] = {}
        """Frames added with :meth:`add_forecasts`, ranked beside every batch's models."""
        self._served: dict[str, pd.DataFrame] = {}
        self._runs: dict[str, int] = {}  # the scored models of the service: their evaluations
        self.baselines: set[str] = set()
        """The names of the configured models known to have the baseline role: of the choices,
        and of the batches run or shown."""
        self.dataset = widgets.Dropdown(
            description="dataset", style=_STYLE, layout=widgets.Layout(width="380px")
        )
        self.models = widgets.SelectMultiple(
            description="models", rows=6, style=_STYLE, layout=widgets.Layout(width="380px")
        )
        self.models_note = widgets.HTML(layout=widgets.Layout(margin="0 0 0 98px"))
        self.settings = PlanInputs()
        self.n_periods = self.settings.n_periods
        self.n_splits = self.settings.n_splits
        self.stride = self.settings.stride
        self.name = widgets.Text(
            value="compare models",
            description="batch name",
            style=_STYLE,
            layout=widgets.Layout(width="380px"),
        )
        self.button = widgets.Button(
            description="Run batch",
            button_style="primary",
            icon="play",
            disabled=True,
            tooltip="run every selected model on the same backtest, as one batch",
        )
        self.problem = widgets.HTML()
        self.job_rows: list[JobLine] = []
        self.jobs = widgets.VBox()
        self.status = widgets.HTML()
        self.earlier = widgets.Dropdown(
            options=[(NO_BATCH, NO_BATCH)],
            value=NO_BATCH,
            description="earlier batch",
            style={"description_width": _EARLIER_LABEL},
            layout=widgets.Layout(max_width="100%"),
            tooltip="the batches the service holds: choose one to rank its models again",
        )
        fit_choices(self.earlier, _EARLIER_LABEL, "380px")
        self.earlier.observe(on_kernel_loop(lambda _: self._earlier_chosen()), names="value")
        self.baseline = widgets.Dropdown(
            description="relative to",
            style=_STYLE,
            layout=widgets.Layout(width="380px"),
            disabled=True,
        )
        self.leaderboard = SortableTable(
            LEADERBOARD_COLUMNS,
            key="model",
            max_selected=2,
            caption="Leaderboard (select two models to compare their forecasts)",
            empty_text="Run a batch, or choose an earlier one, to rank its models.",
        )
        self.images = {
            plot: image_widget()
            for plot in ("leaderboard_chart", "wis_components_chart", "pit_chart", "coverage_chart")
        }
        self.comparison = image_widget()
        self.comparison_title = widgets.HTML()
        self.code = CodeView()  # the leaderboard's own: it scores and draws what is ranked
        for choice in (self.dataset, self.models):
            choice.observe(on_kernel_loop(lambda _: self._bound_the_plan()), names="value")
        for control in (
            self.dataset,
            self.models,
            self.name,
            *self.settings.inputs.values(),
        ):
            control.observe(on_kernel_loop(lambda _: self.check()), names="value")
        self.button.on_click(on_kernel_loop(lambda _: self.run()))
        self.baseline.observe(on_kernel_loop(lambda _: self._baseline_changed()), names="value")
        self.leaderboard.observe(on_kernel_loop(lambda _: self.open_comparison()), names="selected")
        self.children = [
            widgets.HTML(
                "<b>Compare models</b><br><small>Run several configured models and the "
                "baselines on one backtest, then rank them by relative skill.</small>"
            ),
            widgets.HBox(
                [
                    widgets.VBox([self.dataset, self.name]),
                    widgets.VBox([self.models, self.models_note]),
                ],
                layout=widgets.Layout(flex_flow="row wrap", grid_gap="4px 24px"),
            ),
            self.settings,
            widgets.HBox([self.button, self.problem]),
            self.earlier,
            self.jobs,
            self.status,
            self.baseline,
            self.leaderboard,
            # the two models selected in the leaderboard, right under its rows (under the
            # diagnostics it appeared 900 px below the click)
            self.comparison_title,
            self.comparison,
            self.images["leaderboard_chart"],
            widgets.HBox(
                [self.images["wis_components_chart"], self.images["coverage_chart"]],
                layout=widgets.Layout(flex_flow="row wrap"),
            ),
            self.images["pit_chart"],
        ]
        self.check()

    # -- choices ------------------------------------------------------------------------

    def set_choices(
        self, datasets: Sequence[Any], models: Sequence[Any], templates: Sequence[Any] = ()
    ) -> None:
        """Offer ``datasets`` and the configured ``models`` (by name; one whose model service
        is not registered now marked so); choices still offered stay, and the models whose
        template has the baseline role (the role the server sends with a model, else its
        template's of ``templates``) are preselected while no model is chosen, unless their
        model service is not registered."""
        self.baselines |= {
            model.name for model in models if model.role_in(templates) == BASELINE_ROLE
        }
        self._datasets = {dataset.id: dataset for dataset in datasets}
        self._models = {model.name: model for model in models}
        kept = self.dataset.value
        self.dataset.options = [
            (dataset.name or f"dataset {dataset.id}", dataset.id) for dataset in datasets
        ]
        fit_choices(self.dataset, _STYLE["description_width"], "380px")
        if kept in self._datasets:
            self.dataset.value = kept
        elif datasets:
            evaluation_sets = [item for item in datasets if item.type == "evaluation"]
            self.dataset.value = (evaluation_sets or list(datasets))[0].id
        chosen = set(self.models.value)
        names = sorted(self._models, key=str.casefold)
        gone = {name for name, model in self._models.items() if service_gone(model) is not None}
        self.models.options = [
            (f"{name} ({SERVICE_GONE})" if name in gone else name, name) for name in names
        ]
        fit_choices(self.models, _STYLE["description_width"], "380px")
        self.models.value = tuple(
            name
            for name in names
            if name in chosen or (not chosen and name in self.baselines and name not in gone)
        )
        self.check()

    def _bound_the_plan(self) -> None:
        """The plan fits the chosen dataset after the periods every chosen model trains on."""
        self.settings.set_choice(
            self._datasets.get(self.dataset.value),
            [self._models[name] for name in self.models.value if name in self._models],
        )

    def follow_dataset(self, dataset_id: int | None) -> None:
        """Choose the dataset the panel has selected (its datasets table): the batch starts on
        the data the person is looking at; one chosen here afterwards stays until the next
        selection there."""
        if dataset_id is not None and dataset_id in self._datasets:
            self.dataset.value = dataset_id

    def problems(self) -> list[str]:
        """Why the batch cannot run yet (empty when it can): one is running, or the inputs'
        problems; the settings' own problems come last (they are said under the settings)."""
        running = [RUNNING] if self._running else []
        return [*running, *self._own_problems(), *self.settings.problems()]

    def set_unavailable(self, unavailable: bool) -> None:
        """Whether the service's datasets and models could not be loaded (the connection bar
        says why): then the button stays disabled without asking to select what is not there."""
        self.unavailable = unavailable
        self.check()

    def _own_problems(self) -> list[str]:
        if self.unavailable:
            return ["the service's datasets and configured models could not be loaded"]
        found: list[str] = []
        if self.dataset.value is None:
            found.append("select a dataset")
        if len(self.models.value) < 2:
            found.append("select at least two models to compare")
        found += [
            gone
            for name in self.models.value
            if (gone := service_gone(self._models.get(name))) is not None
        ]
        if not self.name.value.strip():
            found.append("batch name: give the batch a name")
        return found

    def check(self) -> list[str]:
        """Show the problems, enable the button only without any; returns the problems."""
        chosen, offered = len(self.models.value), len(self.models.options)
        self.models_note.value = (
            f"<small>{chosen} of {offered} selected (Ctrl- or Shift-click to choose)</small>"
        )
        found = self.problems()
        if self._running:  # not a problem: the button waits for the batch
            self.problem.value = message(RUNNING, GREY)
        else:
            self.show_problem("" if self.unavailable else "; ".join(self._own_problems()))
        self.button.disabled = bool(found)
        return found

    def show_problem(self, text: str) -> None:
        """Say (in red, beside the button) why the batch cannot run or did not start."""
        self.problem.value = message(text)

    def request(self) -> BatchRequest:
        """The batch to run; ``ValueError`` listing the problems when there are any."""
        found = self.check()
        if found:
            raise ValueError("cannot run the batch: " + "; ".join(found))
        return BatchRequest(
            name=self.name.value.strip(),
            dataset_id=self.dataset.value,
            model_names=tuple(self.models.value),
            plan=self.settings.plan(),
        )

    # -- running ------------------------------------------------------------------------

    def run(self) -> Started | None:
        """Start the batch (what **Run batch** does); None when the inputs are not valid.
        ``await`` it for the whole run: jobs, baselines, scores and charts."""
        try:
            request = self.request()
        except ValueError as error:
            self.show_problem(str(error))
            return None
        self._running = True
        self.check()
        return Started(self._keeper.spawn(self._run(request), on_error=self._failed))

    def _failed(self, error: BaseException) -> None:
        self._finished()
        self.show_error(error)

    def show_error(self, error: BaseException) -> None:
        """Say (in red, under the jobs) why the batch, its scores or a chart failed."""
        self.status.value = message(describe_error(error), alert=True)

    def _finished(self) -> None:
        self._running = False
        self.check()

    async def _run(self, request: BatchRequest) -> None:
        self.status.value = message("starting the batch…", GREEN)
        batch = await self._client.create_backtests(
            request.name,
            list(request.model_names),
            request.dataset_id,
            n_periods=request.plan.n_periods,
            n_splits=request.plan.n_splits,
            stride=request.plan.stride,
        )
        names = dict(zip((job.job_id for job in batch.jobs), request.model_names, strict=True))
        self.job_rows = [_job_row(job_id, names[job_id]) for job_id in names]
        for row in self.job_rows:
            row.cancel_button.on_click(on_kernel_loop(self._canceller(row)))
        self.jobs.children = [widgets.HTML("<b>Jobs of the batch</b>"), *self.job_rows]
        self.status.value = message(f"running {len(self.job_rows)} models…", GREEN)
        finished = await asyncio.gather(*(self._follow(row) for row in self.job_rows))
        runs = {
            row.name: evaluation
            for row, evaluation in zip(self.job_rows, finished, strict=True)
            if evaluation is not None
        }
        if self._on_stored is not None:
            self._on_stored(list(runs.values()))
        runs |= await self._baseline_runs(batch.specification_id, runs)
        if len(runs) < 2:
            self.status.value = message(
                f"{len(runs)} of the models finished, too few to compare (the rows above say "
                "why the others did not)"
            )
            self._finished()
            return
        await self._score_runs(runs)
        self._finished()
        await self.load_batches()  # the new batch is an earlier one from now on

    async def _score_runs(self, runs: Mapping[str, int]) -> None:
        """Score the evaluations ``runs`` (model name -> evaluation id) and show the ranking."""
        self.status.value = message(f"scoring {len(runs)} models…", GREEN)
        forecasts = {
            name: await self._client.evaluation_frame(evaluation)
            for name, evaluation in runs.items()
        }
        actuals = await self._client.actual_cases(next(iter(runs.values())))
        self._served, self._runs = forecasts, dict(runs)
        await self._score({**forecasts, **self.local_forecasts}, actuals)

    async def load_batches(self) -> None:
        """Offer the batches the service holds, newest first, under **earlier batch**: its
        backtest specifications with more than one model besides the baselines (an evaluation
        run alone has one, and the baselines' runs every specification gets: it is listed under
        the evaluations, not here); a server without them offers none."""
        try:
            specifications = await self._client.list_backtest_specifications()
        except ChapError:
            return
        kept = self.earlier.value
        choices = [
            (batch_title(item), item.id)
            for item in reversed(specifications)
            if item.backtest_count is None or item.backtest_count > 1
        ]
        self._showing_batches = True
        try:
            self.earlier.options = [(NO_BATCH, NO_BATCH), *choices]
            fit_choices(self.earlier, _EARLIER_LABEL, "380px")
            offered = {value for _, value in choices}
            self.earlier.value = kept if kept in offered else NO_BATCH
        finally:
            self._showing_batches = False

    def show_batch(self, specification_id: int) -> Started:
        """Rank the models of a batch the service holds (what choosing it under **earlier
        batch** does); ``await`` it for the leaderboard and charts."""
        return Started(
            self._keeper.spawn(self._show_batch(specification_id), on_error=self._failed)
        )

    def _earlier_chosen(self) -> None:
        if not self._showing_batches and self.earlier.value != NO_BATCH and not self._running:
            self.show_batch(self.earlier.value)

    async def _show_batch(self, specification_id: int) -> None:
        self._running = True
        self.check()
        detail = await self._client.get_backtest_specification(specification_id)
        runs = {
            (item.configured_model.name if item.configured_model else None)
            or item.model_id
            or f"evaluation {item.id}": item.id
            for item in detail.backtests
        }
        runs |= detail.baseline_runs(runs)
        self._learn_baselines(detail)
        self.job_rows, self.jobs.children = [], []
        if len(runs) < 2:
            self.status.value = message(f"batch {specification_id} has too few models to rank")
        else:
            await self._score_runs(runs)
        self._finished()

    async def _score(self, forecasts: Mapping[str, pd.DataFrame], actuals: pd.DataFrame) -> None:
        self.scored = await asyncio.to_thread(BatchScores.build, forecasts, actuals)
        await self._show_scores(self.scored)

    def add_forecasts(self, name: str, frame: pd.DataFrame) -> Started | None:
        """Rank a local forecast frame (``chaplab.backtest``, ``scoring.ensemble``, another
        server's evaluation) as ``name`` beside the batch's models, scored against the batch's
        actual cases: at once when a batch has been scored (``await`` the answer for the
        leaderboard and charts; None otherwise), and in every batch run after. ArgumentError (a
        ValueError) for a name the batch uses or a frame that is no evaluation frame."""
        import pandas as pd

        if not isinstance(name, str) or not name.strip():
            raise ArgumentError(f"name must be a non-empty model name, got {name!r}")
        if name in self._served:
            raise ArgumentError(f"name {name!r} is a model of the batch; choose another name")
        needed = ["org_unit", "split_period", "period", "quantile", "value"]
        if not isinstance(frame, pd.DataFrame) or not set(needed) <= set(frame.columns):
            raise ArgumentError(
                f"frame must be an evaluation frame with columns {needed}, as chaplab.backtest "
                "and evaluation_frame return"
            )
        self.local_forecasts[name] = frame
        if self.scored is None or self._running:
            return None
        forecasts = {**self._served, **self.local_forecasts}
        return Started(
            self._keeper.spawn(
                self._score(forecasts, self.scored.actuals), on_error=self.show_error
            )
        )

    def _canceller(self, row: JobLine) -> Any:
        async def cancel() -> None:
            row.cancel_button.disabled = True
            await self._client.cancel_job(row.job_id)

        return lambda _: self._keeper.spawn(cancel(), on_error=row.show_exception)

    async def _follow(self, row: JobLine) -> int | None:
        """Wait for a model's job, showing each status in its row; its evaluation's id, or
        None when it did not succeed (the row says why)."""
        try:
            job = await self._client.wait_for_job(row.job_id, on_status=row.show_status)
            return int(await self._client.job_created_id(job))
        except asyncio.CancelledError:
            if not row.finished:
                row.stop_following("the panel stopped following this job")
            raise
        except Exception as error:  # the row shows it; the other models still count
            row.show_exception(error)
            return None

    async def _baseline_runs(
        self, specification_id: int, runs: Mapping[str, int]
    ) -> dict[str, int]:
        """The evaluations of the specification's baselines that are done, once none is
        pending (the client's ``wait_for_baselines``; the status line names those waited for)."""

        def waiting(pending: list[str]) -> None:
            self.status.value = message(f"waiting for the baselines: {', '.join(pending)}", GREEN)

        detail = await self._client.wait_for_baselines(specification_id, on_pending=waiting)
        self._learn_baselines(detail)
        # the baselines, not the server's other configurations of their templates: the
        # chosen ones among those ran as the user's own models
        return {name: run for name, run in detail.baseline_runs().items() if name not in runs}

    def _learn_baselines(self, detail: Any) -> None:
        """Note the baselines of a specification's leaderboard: its baselines' runs, and its
        evaluations of models whose template has the baseline role."""
        self.baselines |= {ref.configured_model.name for ref in detail.baselines}
        self.baselines |= {
            item.configured_model.name
            for item in detail.backtests
            if item.configured_model is not None and item.configured_model.role == BASELINE_ROLE
        }

    # -- showing ------------------------------------------------------------------------

    async def _show_scores(self, scored: BatchScores) -> None:
        models = scored.models
        self.baseline.options = models
        fit_choices(self.baseline, _STYLE["description_width"], "380px")
        # the strongest baseline by default, else the first model; drawn when it changes
        self.baseline.value = scored.strongest(self.baselines) or models[0]
        self.baseline.disabled = False
        await self.redraw_leaderboard()
        charts = (
            ScoringChart("wis_components_chart", scored.summary),
            ScoringChart("pit_chart", scored.pit),
            ScoringChart("coverage_chart", scored.coverage),
        )
        for chart in charts:
            self.images[chart.plot].value = (await render_chart(chart)).png
        targets = len(scored.scores) // max(len(models), 1)
        self.status.value = message(
            f"{len(models)} models scored on {format_number(targets)} forecast targets each",
            GREEN,
        )

    async def redraw_leaderboard(self) -> None:
        """Rank the scored models relative to the chosen baseline: the table and the chart."""
        scored, baseline = self.scored, self.baseline.value
        if scored is None or baseline is None:
            return
        skill = await asyncio.to_thread(scored.skill, baseline)
        self.leaderboard.set_rows(leaderboard_rows(skill))
        rendered = await render_chart(ScoringChart("leaderboard_chart", skill))
        self.images["leaderboard_chart"].value = rendered.png
        self.show_code()

    def show_code(self) -> None:
        """Write the code of what the view ranks and draws (its **copy code**), shown under
        the leaderboard once a batch is scored."""
        if self.scored is None or not self._runs or self.baseline.value is None:
            return
        chosen = list(self.leaderboard.selected)
        self.code.set_code(
            leaderboard_code(
                access_of(self._client),
                LeaderboardShown(
                    runs=list(self._runs.items()),
                    baseline=self.baseline.value,
                    level=SKILL_LEVEL,
                    compared=(chosen[0], chosen[1]) if len(chosen) >= 2 else None,
                    local=[name for name in self.scored.models if name not in self._runs],
                    history_periods=HISTORY_PERIODS,
                ),
            )
        )
        if self.code not in self.children:
            self.children = [*self.children, self.code]

    def _baseline_changed(self) -> None:
        if self.scored is not None and self.baseline.value is not None and not self._running:
            self._keeper.spawn(self.redraw_leaderboard(), on_error=self.show_error)

    def open_comparison(self) -> Started | None:
        """Draw the comparison chart of the two selected models (what selecting them does);
        None when fewer than two are selected."""
        chosen = list(self.leaderboard.selected)
        self.show_code()
        if self.scored is None or len(chosen) < 2:
            self.comparison.value, self.comparison_title.value = b"", ""
            return None
        return Started(
            self._keeper.spawn(
                self._draw_comparison(self.scored, chosen[0], chosen[1]), on_error=self.show_error
            )
        )

    async def _draw_comparison(self, scored: BatchScores, first: str, second: str) -> None:
        view = ChartView(
            frames=(scored.forecasts[first], scored.forecasts[second]),
            actuals=scored.actuals,
            names=(first, second),
            org_unit=None,
            split_period=None,
        )
        rendered = await render_chart(view)
        if list(self.leaderboard.selected) == [first, second]:
            self.comparison.value = rendered.png
            self.comparison_title.value = (
                f"<b>{html.escape(first)}</b> vs <b>{html.escape(second)}</b> "
                "<small>(the last split of every org unit)</small>"
            )


def batch_title(specification: Any) -> str:
    """A batch as **earlier batch** offers it: its dataset, how many models ran and its
    settings, and its id."""
    dataset = specification.dataset.name if specification.dataset is not None else None
    count = specification.backtest_count
    models = f" · {count} model{'' if count == 1 else 's'}" if count is not None else ""
    return (
        f"{dataset or 'a dataset'}{models} · {specification.n_periods} periods, "
        f"{specification.n_splits} splits, step {specification.stride} (#{specification.id})"
    )


def _job_row(job_id: str, model_name: str) -> JobLine:
    """A job row like the jobs section's, titled with the model's name alone (the job's id is in
    the cancel button's tooltip), so the rows of a batch stay one line high."""
    row = JobLine(job_id, model_name, "evaluation")
    header = row.children[0]
    title = widgets.HTML(f"<b>{html.escape(model_name)}</b>", layout=widgets.Layout(width="220px"))
    header.children = (title, *header.children[1:])
    return row
