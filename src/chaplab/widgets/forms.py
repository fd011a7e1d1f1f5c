"""A configuration schema -> a form of input widgets, checked with ``validate_config``.

One input per property, chosen by its JSON Schema:

- ``integer`` -> an integer input starting at the default; ``number`` -> a float input. They
  take any number, so a value out of range is refused with the reason under the input (a
  bounded input would silently put 500 back to 12);
- ``string`` -> a text input (its ``pattern`` as the placeholder); ``boolean`` -> a checkbox;
- ``enum`` -> a dropdown; an array of an enum -> a multi-select; an array of strings,
  integers or numbers -> a tags input;
- anything else -> a text input that takes JSON.

Under each input: its description and what it allows (``from 1 to 12``, ``more than 0``,
``one of: poisson, negbin``), so the range is known before a value is refused.

An option without a default must be chosen: its dropdown starts on "choose…" and its text input
empty, and the form reports it until it is given. A number input always holds a number, so an
integer or number option without a default starts at its lower bound (or 0); an array starts
empty.
"""

from __future__ import annotations

import html
import json
import math
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import ipywidgets as widgets
import traitlets
from ipywidgets.widgets.widget_tagsinput import TagsInputBase

from chaplab.schema import ConfigProblem, ConfigSchema, ConfigValidationError, validate_config
from chaplab.widgets import _markup as markup
from chaplab.widgets._tasks import on_kernel_loop

UNSET: Any = object()
"""What an input reads when the person has not given a value."""

_CHOOSE = "choose…"
_LARGEST_INT = 2**53 - 1  # the largest integer a browser's number input holds exactly
_LARGEST_FLOAT = sys.float_info.max
_LABEL_STYLE = {"description_width": "160px"}
INPUT_WIDTH = "480px"
"""Width of an option's input, its 160px label included."""


@dataclass
class OptionField:
    """The input of one option, how to read its value, and where its problem is shown."""

    name: str
    prop: Mapping[str, Any]
    input: widgets.ValueWidget
    read: Callable[[Any], Any]
    problem: widgets.HTML
    box: widgets.VBox

    def value(self) -> Any:
        """The option's value, or :data:`UNSET`; raises ``ValueError`` for unreadable text."""
        return self.read(self.input.value)

    def show_problem(self, message: str | None) -> None:
        """Show ``message`` in red under the input (or clear it)."""
        self.problem.value = markup.message(message or "")


def option_field(name: str, prop: Mapping[str, Any]) -> OptionField:
    """The input for one property of a configuration schema."""
    control, read = _input_for(prop)
    control.description = name
    control.style = _LABEL_STYLE
    if not isinstance(control, (widgets.Checkbox, TagsInputBase)):
        control.layout.width = INPUT_WIDTH  # room for the longest choice, not the default 300px
    if "description" in prop:
        control.tooltip = prop["description"]
    help_parts = [prop["description"]] if "description" in prop else []
    allowed = allowed_values(prop)
    if allowed:
        help_parts.append(f"allowed: {allowed}")
    help_text = widgets.HTML(
        f'<small style="color:#555">{html.escape(" · ".join(help_parts))}</small>'
        if help_parts
        else ""
    )
    problem = widgets.HTML("")
    labelled: widgets.Widget = control
    if isinstance(control, TagsInputBase):  # its view draws no description label
        label = widgets.Label(name, layout=widgets.Layout(width=_LABEL_STYLE["description_width"]))
        labelled = widgets.HBox([label, control])
    box = widgets.VBox([labelled, help_text, problem])
    return OptionField(name=name, prop=prop, input=control, read=read, problem=problem, box=box)


def allowed_values(prop: Mapping[str, Any]) -> str:
    """What a property allows, in words: ``from 1 to 12``, ``more than 0, at most 1``,
    ``one of: poisson, negbin``, ``matches ^[A-Z]+$``, ``up to 2 items, each at least 0``;
    empty when it allows any value of its type."""
    if "enum" in prop:
        return "one of: " + ", ".join(_label(option) for option in prop["enum"])
    kind = prop.get("type")
    if kind in ("integer", "number"):
        return _bounds_text(prop)
    if kind == "string" and "pattern" in prop:
        return f"matches {prop['pattern']}"
    if kind == "array":
        parts = []
        if "minItems" in prop:
            parts.append(f"at least {prop['minItems']} items")
        if "maxItems" in prop:
            parts.append(f"up to {prop['maxItems']} items")
        items = prop.get("items")
        each = allowed_values(items) if isinstance(items, Mapping) else ""
        if each:
            parts.append(f"each {each}")
        return ", ".join(parts)
    return ""


def _bounds_text(prop: Mapping[str, Any]) -> str:
    if "minimum" in prop and "maximum" in prop:
        return f"from {_number_text(prop['minimum'])} to {_number_text(prop['maximum'])}"
    words = (
        ("minimum", "at least"),
        ("exclusiveMinimum", "more than"),
        ("maximum", "at most"),
        ("exclusiveMaximum", "less than"),
    )
    return ", ".join(f"{word} {_number_text(prop[key])}" for key, word in words if key in prop)


def _number_text(value: Any) -> str:
    return json.dumps(value)


class ConfigForm(widgets.VBox):  # type: ignore[misc]  # ipywidgets has no annotations
    """The inputs of every option of ``schema``; ``valid`` says whether the values pass
    ``validate_config`` (options without a default required), re-checked on every change."""

    valid = traitlets.Bool(False, help="whether the current values pass the schema")

    def __init__(self, schema: ConfigSchema) -> None:
        super().__init__()
        self.schema = schema
        self.fields = {name: option_field(name, prop) for name, prop in schema.properties.items()}
        self._summary = widgets.HTML("")
        empty = [widgets.Label("This template has no options.")] if not self.fields else []
        self.children = [*empty, *(field.box for field in self.fields.values()), self._summary]
        for field in self.fields.values():
            field.input.observe(on_kernel_loop(lambda _: self.check()), names="value")
        self.check()

    def values(self) -> dict[str, Any]:
        """The given options (unset ones left out); raises :class:`ConfigValidationError`
        when a value cannot be read or the values break the schema."""
        values, problems = self._read()
        problems += _problems(values, self.schema)
        if problems:
            raise ConfigValidationError(problems)
        return values

    def check(self) -> list[ConfigProblem]:
        """Show every problem next to its input and update ``valid``; returns the problems."""
        values, problems = self._read()
        problems += _problems(values, self.schema)
        by_field: dict[str, list[str]] = {}
        general: list[str] = []
        for path, message in problems:
            name = path.split("/", 1)[0]
            if name in self.fields:
                by_field.setdefault(name, []).append(message)
            else:
                general.append(f"{path or 'options'}: {message}")
        for name, field in self.fields.items():
            field.show_problem("; ".join(by_field.get(name, [])) or None)
        self._summary.value = markup.message("; ".join(general))
        self.valid = not problems
        return problems

    def _read(self) -> tuple[dict[str, Any], list[ConfigProblem]]:
        values: dict[str, Any] = {}
        problems: list[ConfigProblem] = []
        for name, field in self.fields.items():
            try:
                value = field.value()
            except ValueError as error:
                problems.append(ConfigProblem(name, str(error)))
                continue
            if value is not UNSET:
                values[name] = value
        return values, problems


def _problems(values: dict[str, Any], schema: ConfigSchema) -> list[ConfigProblem]:
    try:
        validate_config(values, schema, require_options_without_default=True)
    except ConfigValidationError as error:
        return list(error.problems)
    return []


def _input_for(prop: Mapping[str, Any]) -> tuple[widgets.ValueWidget, Callable[[Any], Any]]:
    kind = prop.get("type")
    default = prop.get("default", UNSET)
    if "enum" in prop:
        return _choice(list(prop["enum"]), default)
    if kind == "boolean":
        if default is UNSET:
            return _choice([True, False], default)
        return widgets.Checkbox(value=bool(default), indent=False), _same
    if kind == "integer":
        return _integer(prop, default), _same
    if kind == "number":
        return _number(prop, default), _same
    if kind == "string":
        placeholder = f"matches {prop['pattern']}" if "pattern" in prop else ""
        text = widgets.Text(value="" if default is UNSET else default, placeholder=placeholder)
        return text, _same if default is not UNSET else _text_or_unset
    if kind == "array":
        return _array(prop, default)
    return _json_text(default)


def _same(value: Any) -> Any:
    return value


def _text_or_unset(value: str) -> Any:
    return value if value != "" else UNSET


def _choice(options: list[Any], default: Any) -> tuple[widgets.Dropdown, Callable[[Any], Any]]:
    labelled = [(_label(option), option) for option in options]
    if default is UNSET:
        labelled.insert(0, (_CHOOSE, UNSET))
    start = labelled[0][1] if default is UNSET else default
    dropdown = widgets.Dropdown(options=labelled, value=start)
    return dropdown, _same


def _label(option: Any) -> str:
    return option if isinstance(option, str) else json.dumps(option)


def _integer_bounds(prop: Mapping[str, Any]) -> tuple[int, int]:
    """The inclusive range of whole numbers a property allows (exclusive bounds moved inwards
    to the next whole number)."""
    low = math.ceil(prop.get("minimum", -_LARGEST_INT))
    high = math.floor(prop.get("maximum", _LARGEST_INT))
    if "exclusiveMinimum" in prop:
        low = max(low, math.floor(prop["exclusiveMinimum"]) + 1)
    if "exclusiveMaximum" in prop:
        high = min(high, math.ceil(prop["exclusiveMaximum"]) - 1)
    return low, high


def _number_bounds(prop: Mapping[str, Any]) -> tuple[float, float]:
    """The range of a float input; an exclusive bound is its own end, and validation reports a
    value equal to it (no fixed step moves a float bound inwards)."""
    low = max(prop.get("minimum", -_LARGEST_FLOAT), prop.get("exclusiveMinimum", -_LARGEST_FLOAT))
    high = min(prop.get("maximum", _LARGEST_FLOAT), prop.get("exclusiveMaximum", _LARGEST_FLOAT))
    return low, high


def _start(default: Any, low: float, high: float) -> Any:
    if default is not UNSET:
        return default
    return min(max(0, low), high)


def _integer(prop: Mapping[str, Any], default: Any) -> widgets.IntText:
    low, high = _integer_bounds(prop)
    return widgets.IntText(value=_start(default, low, high))


def _number(prop: Mapping[str, Any], default: Any) -> widgets.FloatText:
    low, high = _number_bounds(prop)
    return widgets.FloatText(value=_start(default, low, high), step=None)


def _array(
    prop: Mapping[str, Any], default: Any
) -> tuple[widgets.ValueWidget, Callable[[Any], Any]]:
    items = prop.get("items", {})
    start = [] if default is UNSET else list(default)
    unique = bool(prop.get("uniqueItems", False))
    if isinstance(items, Mapping) and "enum" in items:
        labelled = [(_label(option), option) for option in items["enum"]]
        return widgets.SelectMultiple(options=labelled, value=start), list
    kind = items.get("type") if isinstance(items, Mapping) else None
    if kind == "string":
        return widgets.TagsInput(value=start, allow_duplicates=not unique), list
    if kind == "integer":
        low, high = _integer_bounds(items)
        return widgets.IntsInput(value=start, min=low, max=high, allow_duplicates=not unique), list
    if kind == "number":
        least, most = _number_bounds(items)
        return widgets.FloatsInput(
            value=start, min=least, max=most, allow_duplicates=not unique
        ), list
    return _json_text(default)


def _json_text(default: Any) -> tuple[widgets.Text, Callable[[Any], Any]]:
    text = widgets.Text(
        value="" if default is UNSET else json.dumps(default), placeholder="a JSON value"
    )
    return text, _parse_json


def _parse_json(text: str) -> Any:
    if not text.strip():
        return UNSET
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"not valid JSON: {error.msg} at character {error.pos}") from None
