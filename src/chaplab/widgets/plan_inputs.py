"""The inputs of a backtest plan (forecast periods, number of splits, step between splits), used
by the launcher and by the comparison view.

What a person types is never changed: each setting is a text input, and text that is not a
whole number, or settings that make no :class:`~chaplab.vocabulary.BacktestPlan` or a plan that
does not fit the dataset, are said under the inputs, naming the value and what is allowed, while
the form's button stays disabled. The labels, defaults and bounds are the service's own
(``list_backtest_parameters``: chap-core sends a lower bound, our service both), and whether the
splits fit is the plan's own rule (:meth:`~chaplab.vocabulary.BacktestPlan.misfit`), the one the
service accepts a backtest by, given the dataset's length and the periods the chosen models
train on before their first forecast (``ModelSpec.training_periods``, which our service sends:
"this dataset allows at most 110 splits of 3 periods after the 8 periods regression_model
trains on").
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

import ipywidgets as widgets
import traitlets

from chaplab.vocabulary import (
    N_PERIODS,
    N_SPLITS,
    STRIDE,
    BacktestPlan,
    PlanError,
    PlanSetting,
    parse_period,
)
from chaplab.widgets._markup import GREY, message
from chaplab.widgets._tasks import on_kernel_loop

_STYLE = {"description_width": "130px"}
INPUTS = (N_PERIODS, N_SPLITS, STRIDE)
"""The settings a form asks for (every other one keeps its default)."""


class CountInput(widgets.Text):  # type: ignore[misc]  # ipywidgets has no annotations
    """A text input for a whole number that keeps what was typed (a number input would put back
    its last value, or its bound, without a word). A number assigned from code is written as
    text (``input.value = 3``)."""

    value = traitlets.CUnicode(help="the text in the input").tag(sync=True)


def dataset_periods(dataset: Any) -> tuple[int, str] | None:
    """How many periods a dataset covers, from its first and last period, and their type
    (None if unknown)."""
    first, last = getattr(dataset, "first_period", None), getattr(dataset, "last_period", None)
    if not first or not last:
        return None
    try:
        (first_type, start), (last_type, end) = parse_period(first), parse_period(last)
    except ValueError:
        return None
    return (end - start + 1, first_type) if first_type == last_type else None


def training_periods(models: Iterable[Any], period_type: str) -> tuple[int, str]:
    """The most periods any of ``models`` trains on before its first forecast on data of
    ``period_type`` (their ``training_periods``; 1, the least any model needs, where a server
    does not say), and the model that needs them ("" when none says)."""
    most, who = 1, ""
    for model in models:
        periods = (getattr(model, "training_periods", None) or {}).get(period_type, 1)
        if periods > most:
            most, who = periods, getattr(model, "name", "")
    return most, who


class PlanInputs(widgets.VBox):  # type: ignore[misc]  # ipywidgets has no annotations
    """Inputs of a backtest plan, what the dataset and models allow, and what is wrong with what
    was typed; ``valid`` says whether :meth:`plan` would succeed."""

    valid = traitlets.Bool(True, help="whether the typed settings make a plan that fits")

    def __init__(self) -> None:
        super().__init__()
        self.settings: dict[str, PlanSetting] = {s.wire_name: s for s in INPUTS}
        self.periods: int | None = None
        self.training, self.trained_by = 1, ""
        self._period_type: str | None = None
        self._models: tuple[Any, ...] = ()
        self.inputs = {
            setting.wire_name: CountInput(
                value=str(setting.default),
                description=_label(setting),
                style=_STYLE,
                layout=widgets.Layout(width="210px"),
            )
            for setting in INPUTS
        }
        self.n_periods = self.inputs[N_PERIODS.wire_name]
        self.n_splits = self.inputs[N_SPLITS.wire_name]
        self.stride = self.inputs[STRIDE.wire_name]
        self.note = widgets.HTML()
        self.message = widgets.HTML()
        for control in self.inputs.values():
            control.observe(on_kernel_loop(lambda _: self.check()), names="value")
        self.children = [
            widgets.HBox(list(self.inputs.values()), layout=widgets.Layout(flex_flow="row wrap")),
            self.note,
            self.message,
        ]
        self.check()

    def set_parameters(self, parameters: Sequence[Any]) -> None:
        """Take the labels, defaults and bounds of ``parameters`` (the service's
        ``list_backtest_parameters``); an input still holding the old default gets the new."""
        for parameter in parameters:
            old = self.settings.get(parameter.name)
            if old is None:
                continue
            new = replace(
                old,
                label=getattr(parameter, "label", "") or old.label,
                default=_int_or(parameter.default, old.default),
                minimum=_int_or(parameter.minimum, old.minimum),
                maximum=_int_or(parameter.maximum, old.maximum),
            )
            self.settings[old.wire_name] = new
            control = self.inputs[old.wire_name]
            control.description = _label(new)
            control.tooltip = getattr(parameter, "description", "") or _label(new)
            if control.value.strip() == str(old.default):
                control.value = str(new.default)
        self.check()

    def set_choice(self, dataset: Any, models: Iterable[Any] = ()) -> None:
        """Bound the plan by ``dataset``'s length (None or an unknown length: no bound) and by
        the periods ``models`` train on before their first forecast."""
        found = dataset_periods(dataset) if dataset is not None else None
        self.periods, self._period_type = found if found is not None else (None, None)
        self._models = tuple(models)
        self.training, self.trained_by = (
            training_periods(self._models, self._period_type) if self._period_type else (1, "")
        )
        self.check()

    def plan(self) -> BacktestPlan:
        """The typed plan; ``ValueError`` saying what is wrong when it is not valid."""
        found = self.problems()
        if found:
            raise ValueError("; ".join(found))
        return self._plan()

    def number(self, name: str) -> int:
        """The setting ``name`` (``nPeriods``) alone; ``ValueError`` saying what is wrong with
        it (a forecast forward needs only the forecast periods)."""
        problem = self._problem(name)
        if problem is not None:
            raise ValueError(problem)
        number = self._number(name)
        assert number is not None
        return number

    def problems(self) -> list[str]:
        """What is wrong with the typed settings, each naming the value and what is allowed."""
        found = [problem for name in self.inputs if (problem := self._problem(name))]
        if found:
            return found
        try:
            plan = self._plan()
        except PlanError as error:
            return [self._said(error)]
        misfit = None if self.periods is None else plan.misfit(self.periods, self.training)
        return [] if misfit is None else [self._said(misfit)]

    def check(self) -> list[str]:
        """Show what the plan allows, or what is wrong (one of the two: a problem says what
        fits); returns the problems."""
        found = self.problems()
        self.message.value = message("\n".join(found))
        self.note.value = "" if found else message(self._limits(), GREY)
        self.valid = not found
        return found

    def _plan(self) -> BacktestPlan:
        numbers = {setting.name: self._number(setting.wire_name) for setting in INPUTS}
        return BacktestPlan.given(**numbers)

    def _said(self, error: PlanError) -> str:
        """``error`` as the form says it, after the label of its setting."""
        return f"{_label(self.settings.get(error.setting.wire_name, error.setting))} {error.reason}"

    def _number(self, name: str) -> int | None:
        text = self.inputs[name].value.strip()
        try:
            return int(text)
        except ValueError:
            return None

    def _problem(self, name: str) -> str | None:
        setting, text = self.settings[name], self.inputs[name].value.strip()
        number = self._number(name)
        if number is None:
            shown = f"{text!r} is not a whole number" if text else "a whole number is needed"
            return f"{_label(setting)}: {shown}; type one {setting.allowed()}"
        try:
            setting.check(number)
        except PlanError as error:
            return self._said(error)
        return None

    def most_splits(self) -> int | None:
        """The most splits of the typed forecast periods and step that the dataset holds after
        the periods the models train on: the service's limit too (None when the dataset's
        length is unknown or either setting is not valid)."""
        if self.periods is None or any(self._problem(s.wire_name) for s in (N_PERIODS, STRIDE)):
            return None
        plan = BacktestPlan.given(
            n_periods=self._number(N_PERIODS.wire_name), stride=self._number(STRIDE.wire_name)
        )
        return plan.most_splits(self.periods, self.training)

    def _limits(self) -> str:
        """What the dataset allows with the typed forecast periods and step, after the periods
        the models train on (nothing when that is not known, or not even one split fits)."""
        most = self.most_splits()
        if not most:
            return ""
        n_periods, stride = self.number(N_PERIODS.wire_name), self.number(STRIDE.wire_name)
        step = "" if stride == 1 else f", {stride} periods apart"
        after = (
            f" after the {self.training} periods {self.trained_by} trains on"
            if self.trained_by
            else ""
        )
        return (
            f"this dataset ({self.periods} periods) allows at most {most} "
            f"split{'' if most == 1 else 's'} of {n_periods} periods{step}{after}"
        )


def _label(setting: PlanSetting) -> str:
    return setting.label.lower()


def _int_or(value: Any, default: int) -> int:
    """``value`` when it is a whole number (not a bool), else ``default``."""
    return value if isinstance(value, int) and not isinstance(value, bool) else default
