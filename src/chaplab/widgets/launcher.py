"""The "run an evaluation" form: name, the backtest plan (forecast periods, number of splits,
step between splits: :class:`~chaplab.widgets.plan_inputs.PlanInputs`), and the dataset and
configured model selected in the tables. The button is enabled only when the inputs are valid,
and the name is prefilled (and kept unique) so a new user can press it at once.

Whether the dataset has history enough for the backtest is said by the rule the service accepts
it by (:meth:`~chaplab.vocabulary.BacktestPlan.misfit`), given the dataset's length and the
periods the model trains on before its first forecast, which our service sends with the model
(chap-core does not: there one period of history is what the form knows of). Whatever the
service still refuses is shown once, beside the button, which stays disabled until one of the
refused settings changes.

A configured model whose model service is not registered now is refused before launch, saying
so, since the service would fail the evaluation.

The same goes for covariates: a model that declares covariates the dataset lacks is warned about
(in amber, under the button) but not held back, because chap-core 2.5.1's ``naive_model``
declares rainfall and mean temperature and runs without them; a service that refuses such a
request (ours answers 422 at creation) is shown refusing, as any refusal."""

from __future__ import annotations

import html
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

import ipywidgets as widgets
import traitlets

from chaplab.vocabulary import BacktestPlan
from chaplab.widgets._markup import AMBER, message
from chaplab.widgets._tasks import on_kernel_loop
from chaplab.widgets.plan_inputs import PlanInputs
from chaplab.widgets.tables import uncut_button

_STYLE = {"description_width": "90px"}


@dataclass(frozen=True)
class EvaluationLaunch:
    """What the launcher asks the service to run: a model on a dataset, with a plan."""

    name: str
    model_name: str
    dataset_id: int
    plan: BacktestPlan


def missing_covariates(model: Any, dataset: Any) -> list[str]:
    """The covariates ``model`` needs (its template's required ones and its additional ones)
    that ``dataset`` lacks; none when the dataset does not list its covariates."""
    have = set(getattr(dataset, "covariates", None) or ())
    if not have:
        return []
    needed = [
        item.get("name") if isinstance(item, dict) else getattr(item, "name", item)
        for item in getattr(model, "covariates", None) or ()
    ]
    needed += list(getattr(model, "additional_continuous_covariates", None) or ())
    return [name for name in dict.fromkeys(needed) if isinstance(name, str) and name not in have]


def service_gone(model: Any) -> str | None:
    """The sentence refusing ``model`` when the model service that runs it is not registered
    now (``ModelSpec.service_missing``): the service would fail any run of it."""
    if not getattr(model, "service_missing", False):
        return None
    return (
        f"{model.name} runs on a model service that is not registered now: start the service "
        "(it registers itself) and refresh, or choose another model"
    )


def unique_name(base: str, taken: Collection[str]) -> str:
    """``base``, or ``base-2``, ``base-3``, ... whichever is not ``taken`` yet."""
    if base not in taken:
        return base
    number = 2
    while f"{base}-{number}" in taken:
        number += 1
    return f"{base}-{number}"


class EvaluationLauncher(widgets.VBox):  # type: ignore[misc]  # ipywidgets has no annotations
    """Inputs of an evaluation; ``valid`` says whether :meth:`request` would succeed."""

    valid = traitlets.Bool(False, help="whether the inputs make a valid evaluation request")

    def __init__(self) -> None:
        super().__init__()
        self.dataset: Any = None
        self.model: Any = None
        self.taken_names: set[str] = set()
        self._suggested = ""
        self.name = widgets.Text(
            description="name",
            style=_STYLE,
            placeholder="evaluation name",
            layout=widgets.Layout(width="540px"),
        )
        self.settings = PlanInputs()
        self.n_periods = self.settings.n_periods
        self.n_splits = self.settings.n_splits
        self.stride = self.settings.stride
        self.choice = widgets.HTML()
        self.button = uncut_button("Run evaluation", "play", button_style="primary", disabled=True)
        self.problem = widgets.HTML(layout=widgets.Layout(flex="1 1 0%", min_width="0"))
        self.warning = widgets.HTML()
        self._refused: tuple[EvaluationLaunch, str] | None = None
        self.unavailable = False
        self.name.observe(on_kernel_loop(lambda _: self.check()), names="value")
        for control in self.settings.inputs.values():
            control.observe(on_kernel_loop(lambda _: self.check()), names="value")
        self.children = [
            widgets.HTML("<b>Run an evaluation</b>"),
            self.choice,
            self.name,
            self.settings,
            widgets.HBox([self.button, self.problem], layout=widgets.Layout(align_items="center")),
            self.warning,
        ]
        self.check()

    def set_choice(self, dataset: Any, model: Any) -> None:
        """Use ``dataset`` and ``model`` (either may be None); a name the person has not
        edited follows the choice."""
        self.dataset, self.model = dataset, model
        self.settings.set_choice(dataset, () if model is None else (model,))
        self.choice.value = (
            f"dataset: <b>{html.escape(_title(dataset))}</b> · "
            f"model: <b>{html.escape(_title(model))}</b>"
        )
        self._suggest_name()

    def set_taken_names(self, names: Collection[str]) -> None:
        """Names already used by evaluations or running jobs; a suggested name avoids them."""
        self.taken_names = set(names)
        self._suggest_name()

    def launched(self, request: EvaluationLaunch) -> None:
        """``request`` was launched: a name the person typed becomes the next free one
        (``short try-2``), not a red "already used" right after the launch."""
        self.taken_names.add(request.name)
        if self.name.value.strip() == request.name and request.name != self._suggested:
            self.name.value = unique_name(request.name, self.taken_names)
        self._suggest_name()

    def problems(self) -> list[str]:
        """Why the inputs cannot be run yet (empty when they can); the settings' own problems
        come last (they are said under the settings)."""
        return [*self._own_problems(), *self.settings.problems()]

    def set_unavailable(self, unavailable: bool) -> None:
        """Whether the service's datasets and models could not be loaded (the connection bar
        says why): then the button stays disabled without asking to select what is not there."""
        self.unavailable = unavailable
        self.check()

    def _own_problems(self) -> list[str]:
        if self.unavailable:
            return ["the service's datasets and configured models could not be loaded"]
        found: list[str] = []
        if self.dataset is None:
            found.append("select a dataset")
        if self.model is None:
            found.append("select a configured model")
        elif (gone := service_gone(self.model)) is not None:
            found.append(gone)
        name = self.name.value.strip()
        if not name:
            found.append("name: give the evaluation a name")
        elif name in self.taken_names:
            found.append(f"name: {name!r} is already used")
        if not found and self.settings.valid and self._refused is not None:
            refused, reason = self._refused
            if self._settings() == refused:
                found.append(reason)
        return found

    def covariates_warning(self) -> str:
        """A sentence when the selected model declares covariates the selected dataset lacks
        (empty otherwise): the run may fail or ignore them, whichever the service does."""
        if self.model is None or self.dataset is None:
            return ""
        missing = missing_covariates(self.model, self.dataset)
        if not missing:
            return ""
        return (
            f"{self.model.name} declares {_listed(missing)}, which dataset "
            f"{_title(self.dataset)} does not have: the service may refuse the evaluation or "
            f"run it without {'it' if len(missing) == 1 else 'them'}"
        )

    def refuse(self, request: EvaluationLaunch, reason: str) -> None:
        """The service refused ``request`` (``reason``, its answer): say so, and keep the
        button disabled while the inputs ask for the same."""
        self._refused = (request, reason)
        self.check()

    def check(self) -> list[str]:
        """Show the problems, enable the button only without any; returns the problems. One
        message at a time: the amber warning only while nothing is wrong."""
        found = self.problems()
        self.show_problem("" if self.unavailable else "; ".join(self._own_problems()))
        self.warning.value = "" if found else message(self.covariates_warning(), AMBER)
        self.valid = not found
        self.button.disabled = not self.valid
        return found

    def show_problem(self, text: str) -> None:
        """Say (in red, beside the button) why the evaluation cannot run; a warning under it
        goes (a refusal said in red under an amber "the service may refuse" read as two)."""
        self.problem.value = message(text)
        if text:
            self.warning.value = ""

    def request(self) -> EvaluationLaunch:
        """The evaluation to run; ``ValueError`` listing the problems when there are any."""
        found, settings = self.check(), self._settings()
        if found or settings is None:
            raise ValueError("cannot run the evaluation: " + "; ".join(found))
        return settings

    def _settings(self) -> EvaluationLaunch | None:
        """What the inputs ask for (None while a dataset or a model is not selected)."""
        if self.dataset is None or self.model is None or not self.settings.valid:
            return None
        return EvaluationLaunch(
            name=self.name.value.strip(),
            model_name=self.model.name,
            dataset_id=self.dataset.id,
            plan=self.settings.plan(),
        )

    def _suggest_name(self) -> None:
        if self.dataset is None or self.model is None:
            self.check()
            return
        if self.name.value.strip() in ("", self._suggested):
            base = f"{self.model.name} on {self.dataset.name or self.dataset.id}"
            self._suggested = unique_name(base, self.taken_names)
            self.name.value = self._suggested
        self.check()


def _title(item: Any) -> str:
    if item is None:
        return "none selected"
    name = getattr(item, "name", None)
    return f"{name} (#{item.id})" if name else f"#{item.id}"


def _listed(names: list[str]) -> str:
    """``rainfall``, ``rainfall and population``, ``a, b and c``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
