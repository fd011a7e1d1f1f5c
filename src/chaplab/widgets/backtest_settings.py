"""The backtest settings (forecast periods, number of splits, step between splits): one input,
used by the launcher and by the comparison view.

What a person types is never changed: each setting is a text input, and text that is not a
whole number, or a number outside what the service accepts, is said under the inputs, naming
the value and the allowed range, while the form's button stays disabled. The labels, defaults
and bounds are the service's own (``list_backtest_parameters``: chap-core sends a lower bound,
our service both), so the widgets keep no copy of the service's rules; the dataset's length
bounds what fits in it ("this dataset allows at most 96 splits of 3 periods").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import ipywidgets as widgets
import traitlets

from chaplab.frames import parse_periods
from chaplab.vocabulary import evaluated_periods
from chaplab.widgets._markup import message

_STYLE = {"description_width": "130px"}


class CountInput(widgets.Text):  # type: ignore[misc]  # ipywidgets has no annotations
    """A text input for a whole number that keeps what was typed (a number input would put back
    its last value, or its bound, without a word). A number assigned from code is written as
    text (``input.value = 3``)."""

    value = traitlets.CUnicode(help="the text in the input").tag(sync=True)


@dataclass(frozen=True)
class Setting:
    """One backtest setting: its wire name, its label, and the bounds the service accepts."""

    name: str
    label: str
    default: int
    minimum: int = 1
    maximum: int | None = None

    def allowed(self) -> str:
        """The range in words: ``from 1 to 520``, or ``1 or more``."""
        if self.maximum is None:
            return f"{self.minimum} or more"
        return f"from {self.minimum} to {self.maximum}"


SETTINGS = (  # until the service has said its own labels, defaults and bounds
    Setting("nPeriods", "forecast periods", 3),
    Setting("nSplits", "number of splits", 3),
    Setting("stride", "step between splits", 1),
)


@dataclass(frozen=True)
class BacktestValues:
    """Valid settings, as the client's methods take them."""

    n_periods: int
    n_splits: int
    stride: int


def dataset_period_count(dataset: Any) -> int | None:
    """How many periods a dataset covers, from its first and last period (None if unknown)."""
    first, last = getattr(dataset, "first_period", None), getattr(dataset, "last_period", None)
    if not first or not last:
        return None
    try:
        start, end = parse_periods([first, last])
    except ValueError:
        return None
    periods: int = end.ordinal - start.ordinal + 1
    return periods


def most_splits(periods: int, n_periods: int, stride: int) -> int:
    """How many splits of ``n_periods`` periods, ``stride`` apart, leave at least one period of
    history in a dataset of ``periods`` periods (0 when not even one does)."""
    room = periods - 1 - n_periods
    return 0 if room < 0 else room // stride + 1


class BacktestSettings(widgets.VBox):  # type: ignore[misc]  # ipywidgets has no annotations
    """Inputs of the three settings, what they allow, and what is wrong with what was typed;
    ``valid`` says whether :meth:`values` would succeed."""

    valid = traitlets.Bool(True, help="whether every setting is a whole number it may be")

    def __init__(self) -> None:
        super().__init__()
        self.settings = {setting.name: setting for setting in SETTINGS}
        self.periods: int | None = None
        self.inputs = {
            setting.name: CountInput(
                value=str(setting.default),
                description=setting.label,
                style=_STYLE,
                layout=widgets.Layout(width="210px"),
            )
            for setting in SETTINGS
        }
        self.n_periods = self.inputs["nPeriods"]
        self.n_splits = self.inputs["nSplits"]
        self.stride = self.inputs["stride"]
        self.note = widgets.HTML()
        self.message = widgets.HTML()
        for control in self.inputs.values():
            control.observe(lambda _: self.check(), names="value")
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
            new = Setting(
                name=old.name,
                label=(getattr(parameter, "label", "") or old.label).lower(),
                default=_int_or(parameter.default, old.default),
                minimum=_int_or(parameter.minimum, old.minimum),
                maximum=_int_or(parameter.maximum, None),
            )
            self.settings[old.name] = new
            control = self.inputs[old.name]
            control.description = new.label
            control.tooltip = getattr(parameter, "description", "") or new.label
            if control.value.strip() == str(old.default):
                control.value = str(new.default)
        self.check()

    def set_dataset(self, dataset: Any) -> None:
        """Bound the settings by ``dataset``'s length (None or an unknown length: no bound)."""
        self.periods = dataset_period_count(dataset) if dataset is not None else None
        self.check()

    def values(self) -> BacktestValues:
        """The settings; ``ValueError`` saying what is wrong when one is not valid."""
        found = self.problems()
        if found:
            raise ValueError("; ".join(found))
        n_periods, n_splits, stride = (self._number(name) for name in self.inputs)
        assert n_periods is not None and n_splits is not None and stride is not None
        return BacktestValues(n_periods, n_splits, stride)

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
        if found or self.periods is None:
            return found
        n_periods, n_splits, stride = (self._number(name) for name in self.inputs)
        assert n_periods is not None and n_splits is not None and stride is not None
        if n_periods >= self.periods:
            return [
                f"{self.settings['nPeriods'].label}: {n_periods} leaves no history in this "
                f"dataset of {self.periods} periods; it allows at most {self.periods - 1}"
            ]
        if evaluated_periods(n_periods, n_splits, stride) >= self.periods:  # no history left
            most = most_splits(self.periods, n_periods, stride)
            return [f"{self.settings['nSplits'].label}: {n_splits} do not fit; {self._fits(most)}"]
        return []

    def check(self) -> list[str]:
        """Show what the settings allow and what is wrong; returns the problems."""
        found = self.problems()
        self.message.value = message("\n".join(found))
        self.note.value = message(self._limits(), "#555")
        self.valid = not found
        return found

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
            return f"{setting.label}: {shown}; type one {setting.allowed()}"
        if number < setting.minimum or (setting.maximum is not None and number > setting.maximum):
            return f"{setting.label}: {number} is not allowed; type a number {setting.allowed()}"
        return None

    def _fits(self, most: int) -> str:
        """``this dataset allows at most 96 splits of 3 periods`` for the typed settings."""
        n_periods, stride = self._number("nPeriods"), self._number("stride")
        step = "" if stride == 1 else f", {stride} periods apart"
        return (
            f"this dataset ({self.periods} periods) allows at most {most} "
            f"split{'' if most == 1 else 's'} of {n_periods} periods{step}"
        )

    def _limits(self) -> str:
        """What the dataset allows with the typed forecast periods and step (nothing when
        either is not valid or the dataset's length is unknown)."""
        n_periods, stride = self._number("nPeriods"), self._number("stride")
        if self.periods is None or n_periods is None or stride is None:
            return ""
        if self._problem("nPeriods") or self._problem("stride") or n_periods >= self.periods:
            return ""
        return self._fits(most_splits(self.periods, n_periods, stride))


def _int_or(value: Any, default: int | None) -> Any:
    """``value`` when it is a whole number (not a bool), else ``default``."""
    return value if isinstance(value, int) and not isinstance(value, bool) else default
