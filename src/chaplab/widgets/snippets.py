""" "Copy code": the client calls that reproduce what the panel shows, so a person can continue
in code. The key is never written out; the code asks for it.

**copy code** puts the code on the clipboard, in the browser (:class:`CopyButton`, a few lines
of browser code run by anywidget: ipywidgets has no clipboard); **show code** shows it too."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import anywidget
import ipywidgets as widgets
import traitlets

from chaplab._connect import API_KEY_VARIABLE, reaches
from chaplab.widgets._tasks import on_kernel_loop
from chaplab.widgets.tables import UNCUT


@dataclass(frozen=True)
class ViewState:
    """What the panel shows: the service, the selected evaluations and the chart's settings."""

    base_url: str
    proxy_prefix: str = ""
    key_in_use: bool = False
    by_connect: bool = False  # chaplab.connect() reaches this service (CHAP_URL or embedded)
    evaluations: Sequence[tuple[int, str]] = ()
    quantiles: Sequence[float] = ()
    org_unit: str | None = None
    split_period: str | None = None
    top: int | None = None  # "all org units": the places with the most cases the chart draws
    history_periods: int | None = None  # actual cases shown before the first split (None: all)
    launch: Any = None  # the launcher's EvaluationLaunch, when its inputs are valid


def view_code(state: ViewState) -> str:
    """Python code that rebuilds ``state`` with ``ChapClient`` and ``chaplab.plotting``."""
    lines = [*_imports(state), "", _client_line(state)]
    if not state.evaluations:
        lines += [
            "datasets = client.list_datasets()",
            "models = client.list_configured_models()",
            "evaluations = client.list_evaluations()",
        ]
        if state.launch is not None:
            request = state.launch
            lines.append(
                f"evaluation = client.run_evaluation({quoted(request.name)}, "
                f"{quoted(request.model_name)}, "
                f"{request.dataset_id}, n_periods={request.plan.n_periods}, "
                f"n_splits={request.plan.n_splits}, stride={request.plan.stride})"
            )
        return "\n".join(lines) + "\n"
    quantiles = ", ".join(repr(float(q)) for q in state.quantiles)
    chart_options = _keywords(
        org_units=state.org_unit, split_period=state.split_period, top=state.top
    )
    (first_id, first_name), *others = state.evaluations
    lines += [
        f"frame = client.evaluation_frame({first_id}, quantiles=[{quantiles}])",
        f"actuals = client.actual_cases({first_id})",
        *_history_lines(state.history_periods),
    ]
    if not others:
        lines.append(_fan_chart_line(first_name, chart_options))
    else:
        second_id, second_name = others[0]
        lines += [
            f"frame_b = client.evaluation_frame({second_id}, quantiles=[{quantiles}])",
            f"figure = compare_chart(frame, frame_b, recent, "
            f"labels=({quoted(first_name)}, {quoted(second_name)}){chart_options})",
            f"metrics = metrics_frame([client.get_evaluation({first_id}), "
            f"client.get_evaluation({second_id})])",
        ]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class ForecastShown:
    """The forecast the forecast view shows: the prediction, the dataset whose cases the chart
    shows before it, and how the chart is drawn."""

    prediction_id: int
    dataset_id: int
    name: str
    history_periods: int
    top: int | None = None
    max_panels: int | None = None
    target: str = "disease_cases"


def forecast_code(state: ViewState, forecast: ForecastShown) -> str:
    """Python code that reads the forecast of ``forecast`` and draws its chart as the forecast
    view does (``state`` says how to reach the service)."""
    access = _imports(ViewState(**{**state.__dict__, "evaluations": ()}))
    options = _keywords(
        history=forecast.history_periods, max_panels=forecast.max_panels, top=forecast.top
    )
    lines = [
        "import pandas as pd",
        "",
        *access,
        "from chaplab.frames import parse_periods",
        "from chaplab.plotting import fan_chart",
        "",
        _client_line(state),
        f"frame = client.prediction_frame({forecast.prediction_id})",
        f"observations = client.dataset_frame({forecast.dataset_id})",
        "actuals = pd.DataFrame(",
        "    {",
        '        "org_unit": observations["location"],',
        '        "period": parse_periods(observations["time_period"]),',
        f'        "value": observations[{quoted(forecast.target)}],',
        "    }",
        ")",
        f"# the chart shows the {forecast.history_periods} periods before the forecast",
        f'recent = actuals[actuals["period"] >= frame["period"].min() - '
        f"{forecast.history_periods}]",
        _fan_chart_line(forecast.name, options),
    ]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class LeaderboardShown:
    """What the compare-models view shows: the ranked evaluations (model name, evaluation id),
    the baseline and interval level of the ranking, the two models opened in the comparison
    chart, and the names of the kernel's own frames ranked beside them (``add_forecasts``)."""

    runs: Sequence[tuple[str, int]]
    baseline: str
    level: float
    compared: tuple[str, str] | None = None
    local: Sequence[str] = ()
    history_periods: int | None = None


def leaderboard_code(state: ViewState, shown: LeaderboardShown) -> str:
    """Python code that scores the evaluations of ``shown`` and draws the leaderboard, the
    scoring diagnostics and the comparison chart as the compare-models view does (``state``
    says how to reach the service)."""
    access = _imports(ViewState(**{**state.__dict__, "evaluations": ()}))
    charts = ["coverage_chart", "leaderboard_chart", "pit_chart", "wis_components_chart"]
    if shown.compared is not None:
        charts.insert(0, "compare_chart")
    lines = [
        *access,
        "from chaplab import scoring",
        f"from chaplab.plotting import {', '.join(charts)}",
        "",
        _client_line(state),
        "runs = {  # model: its evaluation",
        *(f"    {quoted(name)}: {evaluation}," for name, evaluation in shown.runs),
        "}",
        "forecasts = {name: client.evaluation_frame(run) for name, run in runs.items()}",
    ]
    if shown.local:
        names = ", ".join(quoted(name) for name in shown.local)
        lines.append(
            f"# the view also ranks frames made in its kernel ({names}): add them to forecasts"
        )
    lines += [
        f"actuals = client.actual_cases({shown.runs[0][1]})",
        'scores = scoring.score(forecasts, actuals, unmatched="drop")',
        f"skill = scoring.relative_skill(scores, {quoted(shown.baseline)}, "
        f"level={shown.level}, seed=0)",
        "figure = leaderboard_chart(skill)",
        "components = wis_components_chart(scoring.summarise(scores))",
        'coverage = coverage_chart(scoring.coverage(forecasts, actuals, unmatched="drop"))',
        'pit = pit_chart(scoring.pit_histogram(forecasts, actuals, unmatched="drop"))',
    ]
    if shown.compared is not None:
        first, second = shown.compared
        lines += [
            f"frame = forecasts[{quoted(first)}]",
            *_history_lines(shown.history_periods),
            f"comparison = compare_chart(frame, forecasts[{quoted(second)}], recent, "
            f"labels=({quoted(first)}, {quoted(second)}))",
        ]
    return "\n".join(lines) + "\n"


def access_of(client: Any) -> ViewState:
    """How copied code reaches the service ``client`` speaks to, as that client does."""
    return ViewState(
        base_url=client.base_url,
        proxy_prefix=client.proxy_prefix,
        key_in_use=client.has_api_key,
        by_connect=reaches(client.base_url, client.proxy_prefix),
    )


def quoted(value: Any) -> str:
    """``value`` as Python source, as ``repr`` writes it but with strings in double quotes
    (as ruff format writes them), so the copied code reads in one quote style; a string
    holding both quote characters keeps ``repr``'s quoting."""
    if isinstance(value, str):
        text = repr(value)
        if text.startswith("'") and '"' not in value:  # then ``value`` holds no ' either
            return f'"{text[1:-1]}"'
        return text
    if isinstance(value, tuple):
        inner = ", ".join(quoted(item) for item in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, list):
        return f"[{', '.join(quoted(item) for item in value)}]"
    return repr(value)


def _keywords(**values: Any) -> str:
    """``, name=value`` for each of ``values`` that is not None (written with ``quoted``), to
    follow a call's positional arguments."""
    return "".join(
        f", {name}={quoted(value)}" for name, value in values.items() if value is not None
    )


def _fan_chart_line(title: str, keywords: str) -> str:
    """The line that draws ``frame`` over the ``recent`` actual cases as a view does."""
    return f"figure = fan_chart(frame, recent{keywords}, title={quoted(title)})"


def _history_lines(history_periods: int | None) -> list[str]:
    """``recent``: the actual cases the chart shows."""
    if history_periods is None:
        return ["recent = actuals"]
    return [
        f"# the actual cases from {history_periods} periods before the first split on (each of "
        "the chart's panels shows its split's forecast and as many periods before it)",
        f'recent = actuals[actuals["period"] >= frame["split_period"].min() - {history_periods}]',
    ]


def _imports(state: ViewState) -> list[str]:
    lines = ["import getpass", ""] if _asks_for_key(state) else []
    lines.append("import chaplab" if state.by_connect else "from chaplab.client import ChapClient")
    if len(state.evaluations) == 1:
        lines.append("from chaplab.plotting import fan_chart")
    elif len(state.evaluations) > 1:
        lines.append("from chaplab.plotting import compare_chart, metrics_frame")
    return lines


def _asks_for_key(state: ViewState) -> bool:
    """The code asks for the key, unless ``chaplab.connect()`` finds it in ``CHAP_API_KEY``."""
    key_in_environment = bool(os.environ.get(API_KEY_VARIABLE, "").strip())
    return state.key_in_use and not (state.by_connect and key_in_environment)


def _client_line(state: ViewState) -> str:
    if state.by_connect:
        key = 'api_key=getpass.getpass("API key: ")' if _asks_for_key(state) else ""
        return f"client = chaplab.connect({key})"
    arguments = [quoted(state.base_url)]
    if state.proxy_prefix:
        arguments.append(f"proxy_prefix={quoted(state.proxy_prefix)}")
    if state.key_in_use:
        arguments.append('api_key=getpass.getpass("API key: ")')
    return f"client = ChapClient({', '.join(arguments)})"


_COPY_ESM = """
function render({ model, el }) {
  const button = document.createElement("button");
  button.className = "jupyter-widgets jupyter-button widget-button";
  button.title = "copy the client calls behind this view to the clipboard";
  button.innerHTML = '<i class="fa fa-copy"></i> copy code';
  button.style.width = "auto";
  const note = document.createElement("span");
  note.style.marginLeft = "8px";
  note.setAttribute("role", "status");
  button.addEventListener("click", async () => {
    const code = model.get("code");
    try {
      await navigator.clipboard.writeText(code);
    } catch (error) {  // no clipboard API here (not a secure page): the copy command
      const area = document.createElement("textarea");
      area.value = code;
      document.body.append(area);
      area.select();
      const done = document.execCommand("copy");
      area.remove();
      if (!done) {
        note.textContent = "could not copy: press show code and copy it from there";
        return;
      }
    }
    note.textContent = "copied: paste it into a cell";
    model.set("copied", model.get("copied") + 1);
    model.save_changes();
  });
  el.append(button, note);
}
export default { render };
"""


class CopyButton(anywidget.AnyWidget):
    """A button that puts ``code`` on the browser's clipboard and says so; ``copied`` counts
    the copies the browser reported."""

    _esm = _COPY_ESM
    code = traitlets.Unicode("").tag(sync=True)
    copied = traitlets.Int(0).tag(sync=True)


class CodeView(widgets.VBox):  # type: ignore[misc]  # ipywidgets has no annotations
    """**copy code** (to the clipboard) and a **show code** toggle that reveals the code of the
    current view."""

    def __init__(self) -> None:
        super().__init__()
        self.copy_button = CopyButton()
        self.toggle = widgets.ToggleButton(
            description="show code",
            icon="code",
            tooltip="show the client calls behind this view",
            layout=widgets.Layout(**UNCUT),
        )
        self.text = widgets.Textarea(
            layout=widgets.Layout(display="none", width="100%", height="12em"),
            tooltip="select all and copy",
        )
        self.toggle.observe(on_kernel_loop(self._toggled), names="value")
        self.children = [
            widgets.HBox(
                [self.copy_button, self.toggle],
                layout=widgets.Layout(align_items="center", grid_gap="0 12px"),
            ),
            self.text,
        ]

    @property
    def code(self) -> str:
        """The code shown (also while hidden)."""
        code: str = self.text.value
        return code

    def show(self, state: ViewState) -> None:
        """Write the code of ``state`` (shown, and what **copy code** copies)."""
        self.set_code(view_code(state))

    def set_code(self, code: str) -> None:
        """Show ``code`` and have **copy code** copy it."""
        self.text.value = self.copy_button.code = code

    def _toggled(self, change: dict[str, Any]) -> None:
        self.text.layout.display = "" if change["new"] else "none"
