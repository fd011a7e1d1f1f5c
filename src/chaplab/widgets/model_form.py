"""The "new configured model" form: pick a template, name the model, fill in the options
generated from the template's ``userOptions`` (see :mod:`chaplab.widgets.forms`).

The picker offers templates by name, as the tables write them, with the display name and
description under it. A template a model service runs (``uses_chapkit``) is offered with its
display name, author and the author's assessed status (gray to green), which say whose model it
is and how far to trust it, and says under it whether its service is registered now; its options
come from the service's config schema like any other template's. A message about the last
create goes as soon as the form is edited."""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import ipywidgets as widgets

from chaplab.schema import ConfigSchema, InvalidSchemaError
from chaplab.widgets._closing import close_all
from chaplab.widgets._markup import GREEN, RED, message
from chaplab.widgets._tasks import on_kernel_loop
from chaplab.widgets.forms import ConfigForm
from chaplab.widgets.tables import uncut_button

_STYLE = {"description_width": "160px"}


@dataclass(frozen=True)
class ModelRequest:
    """A configured model to create: the template's id, the supplied name, the option values."""

    template_id: int
    template_name: str
    name: str
    options: dict[str, Any]


class NewModelForm(widgets.VBox):  # type: ignore[misc]  # ipywidgets has no annotations
    """Template picker, name and generated options; the button is enabled only when valid."""

    def __init__(self) -> None:
        super().__init__()
        self.templates: dict[int, Any] = {}
        self.options: ConfigForm | None = None
        self.template = widgets.Dropdown(
            options=[],
            description="template",
            style=_STYLE,
            # as wide as the form allows: a model service's entry names its author and status
            layout=widgets.Layout(width="auto", min_width="480px", max_width="900px"),
        )
        self.about = widgets.HTML()
        self.name = widgets.Text(
            description="name",
            placeholder="e.g. weekly",
            style=_STYLE,
            tooltip="stored as {template}:{name}",
            layout=widgets.Layout(width="480px"),
        )
        self.options_box = widgets.VBox()
        self.button = uncut_button("Create configured model", "plus", disabled=True)
        self.message = widgets.HTML(layout=widgets.Layout(flex="1 1 0%", min_width="0"))
        self.template.observe(on_kernel_loop(lambda _: self._build_options()), names="value")
        self.name.observe(on_kernel_loop(lambda _: self._edited()), names="value")
        self.children = [
            self.template,
            self.about,
            self.name,
            self.options_box,
            widgets.HBox([self.button, self.message], layout=widgets.Layout(align_items="center")),
        ]

    def set_templates(self, templates: Sequence[Any]) -> None:
        """Offer ``templates``; the current choice stays when still offered, else the first."""
        self.templates = {template.id: template for template in templates}
        current = self.template.value
        self.template.options = [(_label(template), template.id) for template in templates]
        chosen = current if current in self.templates else next(iter(self.templates), None)
        if self.template.value != chosen:
            self.template.value = chosen  # the observer builds the options
        else:
            self._build_options()

    def check(self) -> bool:
        """Enable the button when a template is chosen, the name is given and the options pass."""
        ready = (
            self.template.value in self.templates
            and bool(self.name.value.strip())
            and self.options is not None
            and self.options.valid
        )
        self.button.disabled = not ready
        return ready

    def request(self) -> ModelRequest:
        """The model to create; raises ``ValueError`` (``ConfigValidationError`` for the
        options) naming what is missing or wrong. Nothing is sent before this passes."""
        template = self.templates.get(self.template.value)
        if template is None:
            raise ValueError("template: choose a model template")
        name = self.name.value.strip()
        if not name:
            raise ValueError("name: give the configured model a name")
        if self.options is None:
            raise ValueError(f"template {template.name!r}: its options cannot be shown")
        return ModelRequest(template.id, template.name, name, self.options.values())

    def show_message(self, text: str, *, error: bool = False) -> None:
        """Say what happened (in red for an error)."""
        self.message.value = message(text, RED if error else GREEN, alert=error)

    def _edited(self) -> None:
        """A change to the form: the message about the last create no longer applies."""
        self.message.value = ""
        self.check()

    def _build_options(self) -> None:
        template = self.templates.get(self.template.value)
        close_all(self.options_box.children)
        self.options = None
        self.message.value = ""
        self.about.value = _about(template)
        if template is None:
            self.options_box.children = []
        else:
            try:
                schema = ConfigSchema(properties=template.user_options)
            except InvalidSchemaError as error:
                self.options_box.children = []
                self.show_message(
                    f"template {template.name!r} has unusable options: {error}", error=True
                )
            else:
                self.options = ConfigForm(schema)
                self.options.observe(on_kernel_loop(lambda _: self.check()), names="valid")
                for field in self.options.fields.values():
                    field.input.observe(on_kernel_loop(lambda _: self._edited()), names="value")
                self.options_box.children = [self.options]
        self.check()


ASSESSED_COLOURS = {
    "gray": "#777777",
    "red": RED,
    "orange": "#c25e00",
    "yellow": "#b39200",
    "green": GREEN,
}
"""The colour of each status a model's author can give it (chap-core's ``AssessedStatus``)."""
ASSESSED_MEANINGS = {
    "gray": "not meant for use (deprecated or kept for old setups)",
    "red": "an experimental prototype, not validated",
    "orange": "promising on limited data; needs careful configuration and evaluation",
    "yellow": "ready for more rigorous testing on diverse data",
    "green": "validated and ready for use",
}
"""What each status says, in chapkit's and chap-core's words (``AssessedStatus``)."""

HEALTH = {
    "live": "its model service is registered now",
    "revision_mismatch": "its model service now runs another revision than the one stored",
    None: "its model service is not registered now: jobs of it fail until it registers again",
}
"""What a model service's template says about its service (``health_status``)."""


def _from_a_service(template: Any) -> bool:
    return bool(getattr(template, "uses_chapkit", False))


def _label(template: Any) -> str:
    """The template's entry in the picker: its name; for a model service's, with its display
    name, author and assessed status, which say whose model it is and how far to trust it."""
    if not _from_a_service(template):
        return str(template.name)
    status = template.author_assessed_status
    return (
        f"{template.name} ({template.display_name or template.name}, by "
        f"{template.author or 'an unknown author'}; "
        f"{f'assessed {status}' if status else 'not assessed'})"
    )


def _about(template: Any) -> str:
    """The template's display name and description, in small print under the picker; for a
    model service's, also its author, assessed status and whether its service is registered."""
    if template is None:
        return ""
    if not _from_a_service(template):
        parts = [part for part in (template.display_name, template.description) if part]
        text = html.escape(": ".join(parts))
        return f'<small style="color:#555">{text}</small>' if text else ""
    status = template.author_assessed_status or "gray"
    colour = ASSESSED_COLOURS.get(status, ASSESSED_COLOURS["gray"])
    parts = [
        f"<b>{html.escape(template.display_name or template.name)}</b> by "
        f"{html.escape(template.author or 'an unknown author')}",
        f'<span style="color:{colour}">●</span> assessed {html.escape(status)} by its '
        f"author: {html.escape(ASSESSED_MEANINGS.get(status, 'a status chap-core does not know'))}",
        HEALTH.get(template.health_status, HEALTH[None]),
    ]
    low, high = template.min_prediction_periods, template.max_prediction_periods
    if high is not None:
        parts.append(f"forecasts {max(low or 1, 1)} to {high} periods at a time")
    if template.description:
        parts.append(html.escape(template.description))
    return f'<small style="color:#555">{" · ".join(parts)}</small>'
