"""``ChapPanel``: the widget panel a person sees first in JupyterLab.

From top to bottom: the connection bar; the datasets and configured models (sortable,
selectable); the "new configured model" form; the evaluation launcher; the jobs followed in the
background; the finished evaluations with their charts; "compare models" (a batch of models
and the baselines, ranked); and "copy code".

Every request runs in an asyncio task on the kernel's running event loop, so the kernel stays
free while jobs are followed; the slow import (jsonschema) and building frames happen in worker
threads and charts are drawn in a process of their own, none of which touches a widget. Tasks
are kept referenced and their failures are shown in the panel; :meth:`ChapPanel.close` cancels
them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from chaplab._connect import reaches
from chaplab.client import (
    AsyncChapClient,
    ChapClient,
    ChapError,
    ChapHTTPError,
    Job,
    Listing,
    NotFoundError,
)
from chaplab.vocabulary import FAILURE, PREDICTION_DATASET
from chaplab.widgets._closing import close_all
from chaplab.widgets._markup import message
from chaplab.widgets._preload import Preloader
from chaplab.widgets._shown import ViewCounter
from chaplab.widgets._tasks import Coalescer, Started, TaskKeeper, on_kernel_loop
from chaplab.widgets.compare_models import CompareModelsView
from chaplab.widgets.connection import ConnectionBar, as_async_client, describe_error
from chaplab.widgets.forecast import ForecastView, History, load_history
from chaplab.widgets.jobs import JobBoard
from chaplab.widgets.launcher import EvaluationLaunch, EvaluationLauncher, service_gone
from chaplab.widgets.model_form import NewModelForm
from chaplab.widgets.plan_inputs import dataset_periods
from chaplab.widgets.results import HISTORY_PERIODS, ResultsView, chart_split
from chaplab.widgets.snippets import CodeView, ViewState
from chaplab.widgets.tables import Column, Row, SortableTable, columns

if TYPE_CHECKING:
    import pandas as pd

NAME_COLUMN = Column("name", "name", "220px")
"""A dataset's or configured model's name button: a long name wraps onto two lines, so the
tables fit a 1024 px window beside the dates ("influenza hospital admissions (example hub)"
widened the datasets table past the notebook's edge)."""
DATASET_COLUMNS = (
    NAME_COLUMN,
    *columns("id", "type", "periods"),
    Column("span", "from – to"),
    *columns("org_units", "created"),
)
MODEL_COLUMNS = (
    NAME_COLUMN,
    *columns("id", "template"),
    Column("options", "options", "360px"),
    Column("service", "model service"),
)
SERVICE_STATES = {"live": "registered", "revision_mismatch": "another revision"}
"""How the models table says a model service's ``health_status``."""


def dataset_row(dataset: Any) -> dict[str, Any]:
    """The table row of a dataset: name, type, number of periods, first and last period (as
    the charts write them), number of org units, when it was made."""
    return {
        "id": dataset.id,
        "name": dataset.name or f"dataset {dataset.id}",
        "type": dataset.type,
        "periods": (dataset_periods(dataset) or (None,))[0],
        "span": dataset.span,
        "org_units": len(dataset.org_units),
        "created": dataset.created,
    }


def model_row(model: Any, template_names: dict[int, str]) -> dict[str, Any]:
    """The table row of a configured model: name, template, option values, and for a model a
    model service runs, whether that service is registered now."""
    options = ", ".join(f"{key}={value!r}" for key, value in model.user_option_values.items())
    service = None
    if model.uses_chapkit:
        service = SERVICE_STATES.get(model.health_status or "", "not registered")
    return {
        "id": model.id,
        "name": model.name,
        "template": template_of(model, template_names),
        "options": options or "defaults",
        "service": service,
    }


def stored_by_people(datasets: list[Any], predictions: list[Any]) -> list[Any]:
    """``datasets`` without the copies forecasts stored for themselves: a forecast sends the
    selected dataset's rows, and the service (ours and chap-core 2.5.1 alike) stores them as a
    new dataset of type ``prediction`` that the prediction names. Listed, each Forecast forward
    would add a dataset the person never made."""
    forecast_data = {prediction.dataset_id for prediction in predictions}
    return [
        dataset
        for dataset in datasets
        if not (dataset.type == PREDICTION_DATASET and dataset.id in forecast_data)
    ]


def template_of(model: Any, template_names: dict[int, str]) -> Any:
    """The name of a configured model's template. Where the server's model list leaves out the
    template id (chap-core 2.5.1), the model's name tells it: a template's default model is
    named after it, and a configuration ``<template>:<name>``."""
    if model.model_template_id is not None:
        return template_names.get(model.model_template_id, model.model_template_id)
    prefix = model.name.split(":", 1)[0]
    return prefix if prefix in template_names.values() else None


NEWEST_EVALUATIONS = 100
"""How many evaluations the panel reads at first, the newest; **older evaluations** reads as
many more each time (a service holding thousands answers the page, not every one)."""


class ChapPanel(widgets.VBox):  # type: ignore[misc]  # ipywidgets has no annotations
    """The modeling service in one panel: data, models, evaluations, jobs and charts.

    ``client`` is an ``AsyncChapClient`` (preferred) or a ``ChapClient`` (an async client with
    its settings is made); without one, ``chaplab.connect(async_=True, check=False)`` is used
    (``$CHAP_URL``, or the embedded service; a service that does not answer is said in the
    panel, not raised). The first load starts at
    once when an event loop is running (as in Jupyter); ``await panel.ready()`` waits for it.
    """

    def __init__(self, client: AsyncChapClient | ChapClient | None = None) -> None:
        super().__init__()
        given = client
        if client is None:
            from chaplab import connect

            client = connect(async_=True, check=False)  # the bar says what the service answers
        self.client = as_async_client(client)
        self._owns_client = self.client is not given  # made here: closed with the panel
        self.connection = ConnectionBar(self.client.base_url, self.client.has_api_key)
        self._keeper = TaskKeeper(on_error=self.connection.show_error)
        self._preloader = Preloader(self._keeper)
        self._lists_reload = Coalescer(self._reload_lists, self._keeper)
        self.datasets = SortableTable(
            DATASET_COLUMNS,
            caption="Datasets",
            noun="dataset",
            on_delete=lambda row: self.delete(self.datasets, self.client.delete_dataset, row),
        )
        self.models = SortableTable(
            MODEL_COLUMNS,
            caption="Configured models",
            noun="configured model",
            on_delete=lambda row: self.delete(
                self.models, self.client.delete_configured_model, row
            ),
        )
        self.model_form = NewModelForm()
        self.launcher = EvaluationLauncher()
        self.jobs = JobBoard(  # a job's end may change every list: reload them
            self.client,
            self._keeper,
            on_success=self._job_succeeded,
            on_end=self._lists_reload.trigger,
        )
        self.results = ResultsView(
            self.client,
            self._keeper,
            on_delete=lambda row: self.delete(
                self.results.table, self.client.delete_evaluation, row
            ),
        )
        self.compare = CompareModelsView(  # its jobs store evaluations: list them
            self.client,
            self._keeper,
            on_stored=lambda stored: self._keeper.spawn(self._list_stored(stored)),
        )
        self.forecasts = ForecastView(self.client, self._keeper)
        self.code = CodeView()
        self.dataset_list: list[Any] = []
        self.model_list: list[Any] = []
        self.template_list: list[Any] = []
        self._unlisted: dict[int, Any] = {}  # launched here, finished, but not in the server's list
        self._evaluations_read = NEWEST_EVALUATIONS  # the newest so many are listed
        self._first_load: asyncio.Task[Any] | None = None
        self._launching: set[str] = set()
        self._loaded = False
        self._backtest_parameters_loaded = False
        self.views = ViewCounter()  # the panel shown again (a cell displaying it): reload
        self.views.observe(on_kernel_loop(self._shown_again), names="views")
        self._wire()
        new_model = widgets.Accordion([self.model_form], titles=("New configured model",))
        new_model.selected_index = None
        self.children = [
            self.views,
            self.connection,
            # one above the other, always: side by side they would jump to stacked whenever
            # a table grew (a long options text), and together they are wider than an output
            widgets.VBox([self.datasets, self.models], layout=widgets.Layout(grid_gap="8px")),
            new_model,
            self.launcher,
            self.jobs,
            self.results,
            self.code,  # the evaluations' code, under them (the forecast has its own)
            self.compare,
            self.forecasts,
        ]
        self._show_code()
        for table in (self.datasets, self.models, self.results.table):
            table.show_loading()
        if _loop_running():  # else (a plain script) ready() or refresh() starts the first load
            self._first_load = self.refresh().task

    # -- public API -------------------------------------------------------------------

    @property
    def frame(self) -> pd.DataFrame | None:
        """The entries of the (first) selected evaluation as a tidy frame."""
        return self.results.frame

    @property
    def actuals(self) -> pd.DataFrame | None:
        """The actual cases of the (first) selected evaluation."""
        return self.results.actuals

    @property
    def evaluations(self) -> list[Any]:
        """The finished evaluations listed."""
        return list(self.results.evaluations.values())

    def older_evaluations(self) -> Started:
        """List as many older evaluations more (what **older evaluations** does); ``await``
        it for the list."""
        return Started(self._keeper.spawn(self._read_older_evaluations()))

    def refresh(self) -> Started:
        """Reload everything from the service; ``await panel.refresh()`` waits for it."""
        return Started(self._keeper.spawn(self._load_all()))

    async def ready(self) -> None:
        """Wait for the first load (starting it if no loop was running at construction).

        Problems are shown in the panel (and in its repr), not raised."""
        if self._first_load is None:
            self._first_load = self.refresh().task
        await asyncio.wait({self._first_load})

    async def wait_idle(self) -> None:
        """Wait until every job, load and redraw started from the panel has finished."""
        await self._keeper.wait()

    def launch(self) -> Started | None:
        """Start the evaluation described by the launcher (what its button does); None when
        its inputs are not valid. The name is taken at once, so a double click cannot send
        the same name twice."""
        try:
            request = self.launcher.request()
        except ValueError as error:
            self.launcher.show_problem(str(error))
            return None
        self._launching.add(request.name)
        self._update_taken_names()

        def failed(error: BaseException) -> None:
            self._launching.discard(request.name)
            self._update_taken_names()
            if isinstance(error, ChapHTTPError) and 400 <= error.status_code < 500:
                self.launcher.refuse(request, describe_error(error))  # the service's answer
            else:  # not an answer about the request (unreachable, a server error): try again
                self.launcher.show_problem(describe_error(error))

        return Started(self._keeper.spawn(self._launch(request), on_error=failed))

    def forecast(self) -> Started | None:
        """Forecast the launcher's ``nPeriods`` after the selected dataset with the selected
        configured model (what **Forecast forward** does); None when either is not selected.
        The job shows under the jobs; the forecast is drawn when it has succeeded."""
        dataset, model = self.launcher.dataset, self.launcher.model
        if dataset is None or model is None:
            self.forecasts.message.value = message("select a dataset and a configured model")
            return None
        if (gone := service_gone(model)) is not None:
            self.forecasts.message.value = message(gone)
            return None
        try:
            n_periods = self.launcher.settings.number("nPeriods")
        except ValueError as error:
            self.forecasts.message.value = message(str(error))
            return None
        name = f"{model.name} forecast from {dataset.name or dataset.id}"
        run = self._forecast(name, dataset.id, model.name, n_periods)
        return Started(self._keeper.spawn(run, on_error=self.forecasts.show_error))

    def delete(
        self, table: SortableTable, delete: Callable[[Any], Awaitable[object]], row: Row
    ) -> Started:
        """Delete ``row``'s item with ``delete`` (the client's method) and reload the lists
        (what confirming a table's delete does); a refusal, such as a dataset that evaluations
        still use, is shown under the table."""

        async def run() -> None:
            await delete(row[table.key])
            if table is self.results.table:
                self._unlisted.pop(row[table.key], None)
            table.confirmation.dismiss()
            await self._load_all()

        def failed(error: BaseException) -> None:
            table.confirmation.show_problem(describe_error(error))

        return Started(self._keeper.spawn(run(), on_error=failed))

    def add_forecasts(self, name: str, frame: pd.DataFrame) -> Started | None:
        """Rank a local forecast frame (a ``chaplab.backtest``, an ensemble) as ``name`` in the
        "compare models" view, beside the batch's models (see
        :meth:`CompareModelsView.add_forecasts`)."""
        return self.compare.add_forecasts(name, frame)

    def create_model(self) -> Started:
        """Create the configured model described by the form (what its button does)."""
        return Started(self._keeper.spawn(self._create_model()))

    def close(self) -> None:
        """Cancel every background task and close the panel's widgets."""
        self._keeper.cancel_all()
        if self._owns_client and _loop_running():
            self._keeper.spawn(self.client.aclose())  # the client the panel made for itself
        close_all(self.children)
        super().close()

    def __repr__(self) -> str:
        parts = [self.client.base_url]
        if self._loaded:
            parts += [
                f"service {self.connection.version or 'version unknown'}",
                _count(len(self.dataset_list), "dataset"),
                _count(len(self.model_list), "configured model"),
                _count(self.results.total, "evaluation"),
            ]
        else:
            parts.append("not loaded" if self.connection.error_text else "loading")
        running = self.jobs.running + len(self._launching)
        text = f"ChapPanel({', '.join(parts)}; jobs: {running} running"
        failed = sum(row.status == FAILURE for row in self.jobs.rows)
        if failed:
            text += f", {failed} failed"
        lost = sum(not row.followed for row in self.jobs.rows)
        if lost:
            text += f", {lost} no longer followed"
        shown = [item.name or str(item.id) for item in self.results.selected]
        if shown:
            text += f"; showing {' vs '.join(shown)}"
        if self.connection.error_text:
            text += f"; problem: {self.connection.error_text}"
        return text + ")"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any] | None:
        """The widget view plus the whole plain-text repr (ipywidgets cuts it at 110
        characters), so executed notebooks and terminals say what the panel shows."""
        bundle: dict[str, Any] | None = super()._repr_mimebundle_(**kwargs)
        if bundle is not None:
            bundle["text/plain"] = repr(self)
        return bundle

    # -- loading ----------------------------------------------------------------------

    async def _load_all(self) -> None:
        self._preloader.start()
        try:  # what the panel reads at first, asked all at once
            info, templates, lists, _, _ = await asyncio.gather(
                self.client.system_info(),
                self.client.list_model_templates(),
                self._read_lists(),
                self._load_backtest_parameters(),
                self.compare.load_batches(),
            )
        except ChapError:  # said once, by the connection bar; the lists only point to it
            self._show_lists_unavailable()
            raise
        self.connection.show_connected(info.service_version)
        self.template_list = templates
        self._show_lists(*lists)
        self._preselect()
        self._update_taken_names()
        await self._preloader.ready()  # the form checks the templates' schemas with jsonschema
        self.model_form.set_templates(templates)
        self._loaded = True

    def _shown_again(self, change: dict[str, Any]) -> None:
        """A view of the panel was rendered after its first: read the lists again, so a panel
        displayed in a later cell shows the datasets and evaluations made meanwhile."""
        if change["new"] > 1 and self._loaded:
            self._lists_reload.trigger()

    async def _read_lists(self) -> tuple[list[Any], list[Any], Listing[Any]]:
        """The service's datasets a person stored (:func:`stored_by_people`), configured
        models and evaluations."""
        datasets, predictions, models, evaluations = await asyncio.gather(
            self.client.list_datasets(),
            self.client.list_predictions(),
            self.client.list_configured_models(),
            self._newest_evaluations(),
        )
        await self._recheck_unlisted({item.id for item in evaluations})
        return stored_by_people(datasets, predictions), models, evaluations

    async def _recheck_unlisted(self, listed: set[int]) -> None:
        """Keep of the evaluations launched here that the server's list left out only those
        it still holds as they were (the same ``record_key``): one deleted elsewhere, or whose
        id now names another evaluation, goes."""
        for key, kept in list(self._unlisted.items()):
            if key in listed:
                del self._unlisted[key]
                continue
            try:
                now = await self.client.get_evaluation(key)
            except NotFoundError:
                now = None
            if now is None or now.record_key != kept.record_key:
                del self._unlisted[key]

    def _show_lists(
        self, datasets: list[Any], models: list[Any], evaluations: Listing[Any]
    ) -> None:
        self.launcher.set_unavailable(False)
        self.compare.set_unavailable(False)
        self.dataset_list = datasets
        self.datasets.set_rows([dataset_row(dataset) for dataset in datasets])
        self._show_models(models)
        self._show_evaluations(evaluations)

    def _show_lists_unavailable(self) -> None:
        """The lists could not be read (a refused key, an unreachable service): they say so
        instead of "nothing to show yet", and the launcher does not ask to select from them."""
        reason = "could not be loaded: see the message at the top"
        self.dataset_list, self.model_list = [], []
        self.datasets.set_unavailable(reason)
        self.models.set_unavailable(reason)
        self.results.table.set_unavailable(reason)
        self.launcher.set_unavailable(True)
        self.compare.set_unavailable(True)
        self._choice_changed()

    async def _reload_lists(self) -> None:
        """The lists again, when a job of the panel has ended (it may have added a dataset,
        an evaluation or a prediction's dataset); the templates and the model form are left
        as they are, so nothing being typed there is lost."""
        self._show_lists(*(await self._read_lists()))
        self._update_taken_names()
        self._choice_changed()

    async def _load_backtest_parameters(self) -> None:
        """The labels, defaults and bounds of the backtest settings, from the service (once);
        a server without the route keeps the forms' own labels and lower bounds of 1."""
        if self._backtest_parameters_loaded:
            return
        try:
            parameters = await self.client.list_backtest_parameters()
        except ChapError:
            return
        self._backtest_parameters_loaded = True
        self.launcher.settings.set_parameters(parameters)
        self.compare.settings.set_parameters(parameters)

    def _show_models(self, models: list[Any]) -> None:
        self.model_list = models
        names = {template.id: template.name for template in self.template_list}
        self.models.set_rows([model_row(model, names) for model in models])
        self.compare.set_choices(self.dataset_list, models, self.template_list)
        if not self._loaded:  # the first load: start on the dataset the table selected
            self._dataset_selected()

    async def _newest_evaluations(self) -> Listing[Any]:
        """The newest evaluations the panel lists (a page, where the server pages its list)."""
        newest = self._evaluations_read
        return await self.client.list_evaluations(limit=newest, offset=-newest)

    async def _read_older_evaluations(self) -> None:
        """**older evaluations**: list as many more of the older ones."""
        self._evaluations_read += NEWEST_EVALUATIONS
        self._show_evaluations(await self._newest_evaluations())
        self._update_taken_names()

    def _show_evaluations(self, evaluations: Listing[Any]) -> None:
        """Show the server's evaluations and those launched here that it does not list
        (chap-core 2.5.1 leaves evaluations of its baseline models, such as a
        ``seasonal_median`` configuration, out of its list; they are read by id)."""
        listed = {item.id for item in evaluations}
        unlisted = [item for key, item in self._unlisted.items() if key not in listed]
        self.results.set_evaluations([*evaluations, *unlisted], evaluations.total + len(unlisted))

    def _preselect(self) -> None:
        """Select an evaluation dataset and a configured model when none is selected."""
        if not self.datasets.selected and self.dataset_list:
            evaluation_sets = [item for item in self.dataset_list if item.type == "evaluation"]
            preferred = evaluation_sets or self.dataset_list
            self.datasets.select(preferred[0].id)
        if not self.models.selected and self.model_list:
            self.models.select(self.model_list[0].id)
        self._choice_changed()

    # -- actions ----------------------------------------------------------------------

    async def _create_model(self) -> None:
        try:
            request = self.model_form.request()
        except ValueError as error:  # ConfigValidationError included: nothing is sent
            self.model_form.show_message(str(error), error=True)
            return
        known = {item.id for item in self.model_list}
        try:
            model = await self.client.create_configured_model(
                request.name, request.template_id, request.options
            )
        except ChapHTTPError as error:
            self.model_form.show_message(describe_error(error), error=True)
            return
        self._show_models(await self.client.list_configured_models())
        self.models.select(model.id)
        self.models.show_row(model.id)
        if model.id in known:  # the service answers an identical create with the existing model
            self.model_form.show_message(
                f"{model.name} already exists with these options: selected it, created nothing"
            )
        else:
            self.model_form.show_message(f"created {model.name}")

    async def _launch(self, request: EvaluationLaunch) -> None:
        job = await self.client.create_evaluation(
            request.name,
            request.model_name,
            request.dataset_id,
            n_periods=request.plan.n_periods,
            n_splits=request.plan.n_splits,
            stride=request.plan.stride,
        )
        self.jobs.track(job.id, request.name)
        self._launching.discard(request.name)  # its row holds the name from now on
        self.launcher.launched(request)

    async def _list_stored(self, stored: Sequence[int]) -> None:
        """List the evaluations with ids ``stored`` (just made here) with the newest ones: read
        by id those the server's list leaves out."""
        evaluations = await self._newest_evaluations()
        listed = {item.id for item in evaluations}
        for evaluation_id in stored:
            if evaluation_id not in listed:
                self._unlisted[evaluation_id] = await self.client.get_evaluation(evaluation_id)
        self._show_evaluations(evaluations)
        self._update_taken_names()

    async def _forecast(self, name: str, dataset_id: int, model_name: str, n_periods: int) -> None:
        history = await load_history(self.client, dataset_id)
        job = await self.client.make_prediction_for_model(
            name, model_name, history.table, n_periods=n_periods, geojson=history.geojson
        )

        async def succeeded(done: Job) -> None:
            await self._forecast_succeeded(done, name, history)

        self.jobs.track(job.id, name, kind="forecast", on_success=succeeded)

    async def _forecast_succeeded(self, job: Job, name: str, history: History) -> None:
        prediction_id = await self.client.job_created_id(job)
        frame = await self.client.prediction_frame(prediction_id)
        await self.forecasts.show(name, prediction_id, frame, history)

    async def _job_succeeded(self, job: Job) -> None:
        result_id = await self.client.job_created_id(job)
        await self._list_stored([result_id])
        if result_id in self.results.evaluations:
            self.results.table.select(result_id)
            self.results.table.show_row(result_id)

    # -- wiring -----------------------------------------------------------------------

    def _wire(self) -> None:
        self.connection.refresh_button.on_click(on_kernel_loop(lambda _: self.refresh()))
        self.datasets.observe(on_kernel_loop(lambda _: self._choice_changed()), names="selected")
        self.datasets.observe(on_kernel_loop(lambda _: self._dataset_selected()), names="selected")
        self.models.observe(on_kernel_loop(lambda _: self._choice_changed()), names="selected")
        self.launcher.button.on_click(on_kernel_loop(lambda _: self.launch()))
        self.forecasts.button.on_click(on_kernel_loop(lambda _: self.forecast()))
        self.model_form.button.on_click(on_kernel_loop(lambda _: self.create_model()))
        self.results.older.on_click(on_kernel_loop(lambda _: self.older_evaluations()))
        view_changes = [
            (self.results.table, "selected"),
            (self.results.compare_with, "value"),
            (self.launcher, "valid"),
            *(
                (control, "value")
                for control in (
                    self.results.quantiles,
                    self.results.org_unit,
                    self.results.split,
                    self.launcher.name,
                    self.launcher.n_periods,
                    self.launcher.n_splits,
                    self.launcher.stride,
                )
            ),
        ]
        for control, trait in view_changes:
            control.observe(on_kernel_loop(lambda _: self._show_code()), names=trait)

    def _dataset_selected(self) -> None:
        """The comparison of models starts on the dataset selected in the datasets table."""
        dataset = _selected(self.datasets, self.dataset_list)
        self.compare.follow_dataset(None if dataset is None else dataset.id)

    def _choice_changed(self) -> None:
        dataset = _selected(self.datasets, self.dataset_list)
        model = _selected(self.models, self.model_list)
        self.launcher.set_choice(dataset, model)
        self.forecasts.set_ready(dataset is not None and model is not None)

    def _update_taken_names(self) -> None:
        names = {item.name for item in self.results.evaluations.values() if item.name}
        names |= {row.name for row in self.jobs.rows} | self._launching
        self.launcher.set_taken_names(names)

    def _show_code(self) -> None:
        results = self.results
        launch = self.launcher.request() if self.launcher.valid else None
        org_unit, top = results.places_drawn(results.selected)
        self.code.show(
            ViewState(
                base_url=self.client.base_url,
                proxy_prefix=self.client.proxy_prefix,
                key_in_use=self.connection.key_in_use,
                by_connect=reaches(self.client.base_url, self.client.proxy_prefix),
                evaluations=[(item.id, item.name or str(item.id)) for item in results.selected],
                quantiles=sorted(results.quantiles.value),
                org_unit=org_unit,
                split_period=chart_split(results.split.value),
                top=top,
                history_periods=HISTORY_PERIODS,
                launch=launch,
            )
        )


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _selected(table: SortableTable, items: list[Any]) -> Any:
    by_id = {item.id: item for item in items}
    return next((by_id[key] for key in table.selected if key in by_id), None)


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"
