"""Finished evaluations and their charts.

The list shows every evaluation with its aggregate metrics. Pressing one shows it: its entries for
the chosen quantiles (and the actual cases) are loaded into frames and its fan chart drawn
(pressing another replaces it); the org-unit selector and the split-period slider redraw only
the image (the slider debounced). Comparing is a choice of its own: **compare with** offers the
evaluations that share places and split periods with the one shown (a sentence says so when none
does) and draws both, with a table of their metrics under the chart; **show one evaluation**
goes back to the one shown.

With "all org units" chosen, the chart draws the ``MAX_PANELS`` places with the most cases in
the periods it shows (``top=``; with "all splits", as many as fit ``MAX_PANELS`` panels); its
title says "the 12 of 558 org units with the most cases", and the line above it how to draw
another ("pick an org unit to draw any of the other 546 places"). Choosing one place draws
that place.

Only widgets are read and written on the event loop: the frames are built by the async client
in a worker thread, and the chart, with the pandas work it needs, is drawn in the chart process
from a :class:`ChartView` of the loaded frames and the chosen controls.
"""

from __future__ import annotations

import asyncio
import html
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from chaplab.client import RecordKey
from chaplab.frames import period_label
from chaplab.vocabulary import ALL_SPLITS as EVERY_SPLIT
from chaplab.vocabulary import DEFAULT_QUANTILES
from chaplab.widgets._markup import GREY, message
from chaplab.widgets._render import Rendered, image_widget, render_chart
from chaplab.widgets._tasks import Debouncer, TaskKeeper, on_kernel_loop
from chaplab.widgets.connection import describe_error
from chaplab.widgets.tables import (
    Column,
    OnDelete,
    SortableTable,
    fit_choices,
    format_cell,
    uncut_button,
)

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

QUANTILE_CHOICES = (0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95)
ALL_ORG_UNITS = "all org units"
LAST_SPLIT = "last split"
ALL_SPLITS = "all splits"
SHOWN_ALONE = "nothing (one evaluation)"
"""The **compare with** choice that shows the selected evaluation alone."""
_COMPARE_WITH_LABEL = "100px"  # "compare with" whole
_CHOICE_WIDTH = "420px"


def chart_split(choice: str) -> str | None:
    """The chart's ``split_period`` for a stop of the split slider: None (the last split),
    every split in panels of their own, or one split period."""
    return {LAST_SPLIT: None, ALL_SPLITS: EVERY_SPLIT}.get(choice, choice)


SPLIT_DEBOUNCE_SECONDS = 0.2
MAX_PANELS = 12
HISTORY_PERIODS = 24
_METRICS_SHOWN = ("crps", "coverage_10_90")  # in the list; a comparison's table has them all
_ACRONYMS = {"crps": "CRPS", "mae": "MAE", "rmse": "RMSE", "wis": "WIS", "mse": "MSE"}


def metric_title(metric: str) -> str:
    """A metric's key as a person reads it: ``crps`` is CRPS, ``coverage_10_90`` is
    "10–90 % coverage", ``winkler_score_25_75`` is "Winkler score 25–75 %"; other keys with
    their underscores read as spaces."""
    words = metric.split("_")
    if len(words) > 2 and words[-2].isdigit() and words[-1].isdigit():
        interval = f"{words[-2]}\u2013{words[-1]} %"
        name = " ".join(words[:-2])
        if name == "coverage":
            return f"{interval} coverage"
        return f"{name[:1].upper()}{name[1:]} {interval}"
    return _ACRONYMS.get(metric, metric.replace("_", " "))


EVALUATION_COLUMNS = (  # long texts wrap, so the table fits an 844 px output (1024 px window)
    Column("name", "name", "120px"),
    Column("id", "id"),
    Column("model", "model", "95px"),
    Column("dataset", "dataset", "95px"),
    Column("created", "created", "80px"),
    Column("n_periods", "periods"),  # forecast periods, number of splits, step between splits
    Column("n_splits", "splits"),
    Column("stride", "step"),
    *(Column(metric, metric_title(metric), "80px") for metric in _METRICS_SHOWN),
)


def evaluation_row(evaluation: Any) -> dict[str, Any]:
    """The table row of an evaluation: its name, model (marked when the server files the run as
    a reference), dataset, when it was made, its backtest settings (evaluations with the same
    ones are comparable) and its headline metrics."""
    dataset = evaluation.dataset.name if evaluation.dataset is not None else None
    reference = getattr(evaluation, "reference", False)
    return {
        "id": evaluation.id,
        "name": evaluation.name or f"evaluation {evaluation.id}",
        "model": f"{evaluation.model_id} (reference)" if reference else evaluation.model_id,
        "dataset": dataset or evaluation.dataset_id,
        "created": evaluation.created,
        "n_periods": evaluation.n_periods,
        "n_splits": evaluation.n_splits,
        "stride": evaluation.stride,
        **{metric: evaluation.aggregate_metrics.get(metric) for metric in _METRICS_SHOWN},
    }


def comparable(first: Any, second: Any) -> bool:
    """Whether two evaluations can be drawn together: other evaluations that share at least
    one org unit and one split period (the comparison chart draws what both forecast)."""
    return (
        first.id != second.id
        and bool(set(first.org_units) & set(second.org_units))
        and bool(set(first.split_periods) & set(second.split_periods))
    )


def evaluation_title(evaluation: Any) -> str:
    """An evaluation as a choice reads: its name and id (two may share a name)."""
    return f"{evaluation.name or 'evaluation'} (#{evaluation.id})"


@dataclass(frozen=True)
class ChartView:
    """What the chart shows, read from the controls on the loop; :func:`render_chart` draws it
    in the chart process (a :class:`chaplab.widgets._render.Chart`)."""

    frames: tuple[pd.DataFrame, ...]
    actuals: pd.DataFrame | None
    names: tuple[str, ...]
    org_unit: str | None
    split_period: str | None
    top: int | None = None

    def draw(self) -> Figure:
        """The fan chart of one evaluation, or the comparison of two, on a figure of its own."""
        from chaplab.plotting import compare_chart, fan_chart

        first = self.frames[0]
        actuals = _recent(self.actuals, first)
        if len(self.frames) == 1:
            return fan_chart(
                first,
                actuals,
                org_units=self.org_unit,
                split_period=self.split_period,
                top=self.top,
                max_panels=MAX_PANELS,
                title=self.names[0],
            )
        return compare_chart(
            first,
            self.frames[1],
            actuals,
            labels=self.names[:2],
            org_units=self.org_unit,
            split_period=self.split_period,
            top=self.top,
            max_panels=MAX_PANELS,
        )


class ResultsView(widgets.VBox):  # type: ignore[misc]  # ipywidgets has no annotations
    """The evaluation list, the chart controls, the chart and the metrics of a comparison.

    ``on_delete`` receives an evaluation's row once a person has confirmed deleting it."""

    def __init__(self, client: Any, keeper: TaskKeeper, on_delete: OnDelete | None = None) -> None:
        super().__init__()
        self._client = client
        self._keeper = keeper
        self.evaluations: dict[int, Any] = {}
        self.total = 0  # how many evaluations the server holds: more than listed when it pages
        # loaded entries and cases by the evaluation's record_key (id and creation time): an
        # id the server gives again after a delete names another evaluation
        self.frames: dict[RecordKey, pd.DataFrame] = {}
        self.actuals_by_key: dict[RecordKey, pd.DataFrame] = {}
        self._loaded_quantiles: tuple[float, ...] = ()
        self._load_task: asyncio.Task[Any] | None = None
        self.shown_panels: list[str] = []
        self.table = SortableTable(
            EVALUATION_COLUMNS,
            max_selected=1,
            caption="Evaluations (press a name to show its fan chart)",
            empty_text="No finished evaluations yet.",
            on_delete=on_delete,
            noun="evaluation",
        )
        self.quantiles = widgets.SelectMultiple(
            options=QUANTILE_CHOICES,
            value=DEFAULT_QUANTILES,
            rows=len(QUANTILE_CHOICES),
            description="quantiles",
            layout=widgets.Layout(width="200px"),
        )
        self.org_unit = widgets.Dropdown(
            options=[ALL_ORG_UNITS], description="org unit", layout=widgets.Layout(width="420px")
        )
        self.org_unit_search = widgets.Text(
            placeholder="type to narrow the org units (name or id)",
            description="find",
            layout=widgets.Layout(width="420px"),
        )
        self.org_unit_note = widgets.HTML()  # "no org unit matches ..." when the search finds none
        self._org_unit_picks: list[tuple[str, str]] = []
        self.split = widgets.SelectionSlider(
            options=[LAST_SPLIT],
            description="split",
            continuous_update=True,
            layout=widgets.Layout(width="420px"),
        )
        self.older = uncut_button(
            "older evaluations", "history", "list the next older evaluations too", hidden=True
        )
        self.listed_note = widgets.HTML()  # "the newest 200 of 5,000 evaluations" when cut
        self.image = image_widget()
        self.chart_note = widgets.HTML()
        self.metrics = widgets.HTML()
        self.message = widgets.HTML()
        self._generation = 0
        self._draw_task: asyncio.Task[Any] | None = None
        self._rendering: asyncio.Task[Rendered] | None = None
        self._split_redraw = Debouncer(
            SPLIT_DEBOUNCE_SECONDS, self.redraw, keeper, on_error=self.show_error
        )
        self.compare_with = widgets.Dropdown(
            options=[(SHOWN_ALONE, SHOWN_ALONE)],
            value=SHOWN_ALONE,
            description="compare with",
            style={"description_width": _COMPARE_WITH_LABEL},
            disabled=True,
            layout=widgets.Layout(width=_CHOICE_WIDTH, max_width="100%"),
        )
        self.alone_button = uncut_button(
            "show one evaluation",
            "times",
            "stop comparing: show the selected evaluation alone",
            hidden=True,
        )
        self.compare_note = widgets.HTML(layout=widgets.Layout(flex="1 1 0%", min_width="0"))
        self.alone_button.on_click(on_kernel_loop(lambda _: self.show_alone()))
        self.table.observe(on_kernel_loop(lambda _: self._shown_changed()), names="selected")
        self.compare_with.observe(on_kernel_loop(self._comparison_changed), names="value")
        self.quantiles.observe(on_kernel_loop(lambda _: self.load()), names="value")
        self._offering_choices = False
        self._offering_comparisons = False
        self.org_unit.observe(on_kernel_loop(self._org_unit_changed), names="value")
        self.org_unit_search.observe(
            on_kernel_loop(lambda _: self._offer_org_units()), names="value"
        )
        self.split.observe(on_kernel_loop(self._split_changed), names="value")
        controls = widgets.HBox(
            [
                self.quantiles,
                widgets.VBox([self.org_unit_search, self.org_unit_note, self.org_unit, self.split]),
            ]
        )
        comparison = widgets.HBox(
            [self.compare_with, self.alone_button, self.compare_note],
            layout=widgets.Layout(align_items="center", flex_flow="row wrap", grid_gap="4px 12px"),
        )
        self.children = [
            self.table,
            widgets.HBox(
                [self.listed_note, self.older],
                layout=widgets.Layout(align_items="center", grid_gap="0 12px"),
            ),
            comparison,
            controls,
            self.message,
            self.chart_note,
            self.image,
            self.metrics,
        ]

    @property
    def selected(self) -> list[Any]:
        """The evaluations drawn: the one selected in the table, then the one it is compared
        with (when **compare with** names one)."""
        shown = [self.evaluations[key] for key in self.table.selected if key in self.evaluations]
        other = self.evaluations.get(self.compare_with.value)
        if shown and other is not None:
            shown.append(other)
        return shown

    def compare(self, evaluation_id: int) -> None:
        """Draw the shown evaluation with ``evaluation_id`` (what choosing it under **compare
        with** does); ``ValueError`` when it is not one of the evaluations offered there."""
        offered = [value for _, value in self.compare_with.options if value != SHOWN_ALONE]
        if evaluation_id not in offered:
            raise ValueError(
                f"evaluation {evaluation_id} cannot be compared with the one shown: "
                f"compare with one of {offered or 'none (no other shares its places and periods)'}"
            )
        self.compare_with.value = evaluation_id

    def show_alone(self) -> None:
        """Stop comparing: draw the selected evaluation alone (what **show one evaluation**
        does)."""
        self.compare_with.value = SHOWN_ALONE

    @property
    def frame(self) -> pd.DataFrame | None:
        """The entries of the selected evaluation as a tidy frame."""
        selected = self.selected
        return self.frames.get(selected[0].record_key) if selected else None

    @property
    def actuals(self) -> pd.DataFrame | None:
        """The actual cases of the selected evaluation."""
        selected = self.selected
        return self.actuals_by_key.get(selected[0].record_key) if selected else None

    def set_evaluations(self, evaluations: Sequence[Any], total: int | None = None) -> None:
        """Show ``evaluations`` in the list (selections of ones still present stay), the
        newest of ``total`` (every one when not given); a selected id that now names another
        evaluation (stored again under it) is loaded."""
        self.evaluations = {evaluation.id: evaluation for evaluation in evaluations}
        self.total = len(self.evaluations) if total is None else max(total, len(evaluations))
        cut = self.total > len(self.evaluations)
        self.listed_note.value = (
            message(f"the newest {len(self.evaluations):,} of {self.total:,} evaluations", GREY)
            if cut
            else ""
        )
        self.older.layout.display = "" if cut else "none"
        self.table.set_rows([evaluation_row(evaluation) for evaluation in evaluations])
        self._offer_comparisons()
        if any(item.record_key not in self.frames for item in self.selected):
            self.load()

    def _shown_changed(self) -> None:
        """Another evaluation was pressed: show it alone, offering what it compares with."""
        self._offer_comparisons(keep=False)
        self.load()

    def _comparison_changed(self, _: Any) -> None:
        alone = self.compare_with.value == SHOWN_ALONE
        self.alone_button.layout.display = "none" if alone else ""
        if not self._offering_comparisons:
            self.load()

    def _offer_comparisons(self, keep: bool = True) -> None:
        """Offer under **compare with** the evaluations comparable with the one selected (the
        choice stays when ``keep`` and it is still offered), or say why none is offered."""
        shown = [self.evaluations[key] for key in self.table.selected if key in self.evaluations]
        others = [
            item for item in self.evaluations.values() if shown and comparable(shown[0], item)
        ]
        choices = [
            (SHOWN_ALONE, SHOWN_ALONE),
            *((evaluation_title(item), item.id) for item in others),
        ]
        chosen = self.compare_with.value if keep else SHOWN_ALONE
        self._offering_comparisons = True
        try:
            self.compare_with.options = choices
            fit_choices(self.compare_with, _COMPARE_WITH_LABEL, _CHOICE_WIDTH)
            offered = {item.id for item in others}
            self.compare_with.value = chosen if chosen in offered else SHOWN_ALONE
        finally:
            self._offering_comparisons = False
        self.compare_with.disabled = not others
        if shown and not others:
            self.compare_note.value = message(
                f"No other evaluation shares places and split periods with "
                f"{evaluation_title(shown[0])}, so there is nothing to compare it with "
                "(evaluations of one dataset with the same forecast periods, splits and step do).",
                "#555",
            )
        else:
            self.compare_note.value = ""

    def load(self) -> asyncio.Task[Any]:
        """Load the selected evaluations' frames and draw (a newer load replaces this one)."""
        if self._load_task is not None and not self._load_task.done():
            self._load_task.cancel()
        self._load_task = self._keeper.spawn(self._load(), on_error=self.show_error)
        return self._load_task

    async def settled(self) -> None:
        """Wait until loading and pending redraws are over (for tests and scripts)."""
        if self._load_task is not None:
            await asyncio.wait({self._load_task})
        await self._split_redraw.settled()
        if self._draw_task is not None:
            await asyncio.wait({self._draw_task})

    def draw(self) -> asyncio.Task[Any]:
        """Redraw the chart from the loaded frames in a task (no request is sent)."""
        self._draw_task = self._keeper.spawn(self.redraw(), on_error=self.show_error)
        return self._draw_task

    async def redraw(self) -> None:
        """Draw the chart of the selected evaluations (in the chart process); a newer redraw
        supersedes this one, and its chart is skipped when it has not been sent yet."""
        self._generation += 1
        generation = self._generation
        if self._rendering is not None:
            self._rendering.cancel()
        self.message.value = ""
        selected = self.selected
        if not selected or any(item.record_key not in self.frames for item in selected):
            self.image.value, self.shown_panels, self.metrics.value = b"", [], ""
            self.chart_note.value = ""
            return
        view = self._view(selected)
        self._rendering = asyncio.ensure_future(render_chart(view))
        rendered = await self._rendering
        if generation == self._generation:
            self.image.value, self.shown_panels = rendered.png, rendered.panels
            self.chart_note.value = top_note(view.top, len(self._places(selected)))
            self.metrics.value = _metrics_table(selected) if len(selected) == 2 else ""

    def show_error(self, error: BaseException) -> None:
        """Show a loading or drawing problem above the chart."""
        self.message.value = message(describe_error(error), alert=True)

    async def _load(self) -> None:
        quantiles = tuple(sorted(self.quantiles.value))
        if quantiles != self._loaded_quantiles:
            self.frames.clear()
            self._loaded_quantiles = quantiles
        for evaluation in self.selected:
            key = evaluation.record_key
            if key not in self.frames:
                frame = await self._client.evaluation_frame(
                    evaluation.id, quantiles=list(quantiles)
                )
                self.actuals_by_key[key] = await self._client.actual_cases(evaluation.id)
                self.frames[key] = frame
        self._update_choices()
        await self.redraw()

    def _update_choices(self) -> None:
        """Offer the org units and split periods of the selected evaluations."""
        selected = self.selected
        org_units = sorted({unit for item in selected for unit in item.org_units})
        splits = sorted({split for item in selected for split in item.split_periods})
        keep_unit = self.org_unit.value if self.org_unit.value in org_units else ALL_ORG_UNITS
        # one split at a time (the last one) unless a split or "all splits" was chosen
        keep_split = self.split.value if self.split.value in splits else LAST_SPLIT
        if self.split.value == ALL_SPLITS and splits:
            keep_split = ALL_SPLITS
        self._offering_choices = True
        try:
            labels = self._org_unit_labels()
            picks = sorted(((labels.get(u, u), u) for u in org_units), key=lambda p: p[0].lower())
            self._org_unit_picks = picks
            self._offer_org_units(keep_unit)
            self.split.options = split_stops(splits)
            self.split.value = keep_split
        finally:
            self._offering_choices = False

    def _offer_org_units(self, keep: str | None = None) -> None:
        """Offer the org units whose name or id holds the search text (all when it is empty;
        hundreds of places become a few), the chosen one always among them."""
        keep = self.org_unit.value if keep is None else keep
        text = self.org_unit_search.value.strip().casefold()
        found = [
            (label, unit)
            for label, unit in self._org_unit_picks
            if not text or text in label.casefold() or text in unit.casefold()
        ]
        shown = [pick for pick in self._org_unit_picks if pick in found or pick[1] == keep]
        self.org_unit_note.value = (
            message(f"no org unit matches {self.org_unit_search.value.strip()!r}", "#555")
            if text and not found
            else ""
        )
        offering, self._offering_choices = self._offering_choices, True
        try:
            self.org_unit.options = [(ALL_ORG_UNITS, ALL_ORG_UNITS), *shown]
            self.org_unit.value = keep
        finally:
            self._offering_choices = offering

    def _org_unit_labels(self) -> dict[str, str]:
        """Place names of the loaded frames by org-unit id (the picker shows names, keeps ids)."""
        labels: dict[str, str] = {}
        for frame in self.frames.values():
            if "org_unit_name" in frame:
                pairs = frame[["org_unit", "org_unit_name"]].astype(str).drop_duplicates()
                labels.update(zip(pairs["org_unit"], pairs["org_unit_name"], strict=True))
        return labels

    def _org_unit_changed(self, _: Any) -> None:
        if not self._offering_choices:
            self.draw()

    def _split_changed(self, _: Any) -> None:
        if not self._offering_choices:
            self._split_redraw.trigger()

    def _view(self, selected: list[Any]) -> ChartView:
        """The chart of the current view, from the controls and the loaded frames."""
        org_unit, top = self.places_drawn(selected)
        return ChartView(
            frames=tuple(self.frames[item.record_key] for item in selected),
            actuals=self.actuals_by_key.get(selected[0].record_key),
            names=tuple(item.name or str(item.id) for item in selected),
            org_unit=org_unit,
            split_period=chart_split(self.split.value),
            top=top,
        )

    def places_drawn(self, selected: list[Any]) -> tuple[str | None, int | None]:
        """The chart's ``org_units`` (None: all of them) and, for all of them, its ``top``:
        how many places with the most cases it draws (None: every one)."""
        if self.org_unit.value != ALL_ORG_UNITS:
            return self.org_unit.value, None
        return None, self._chart_top(selected) if selected else None

    def _chart_top(self, selected: list[Any]) -> int | None:
        """How many places "all org units" draws, those with the most cases: ``MAX_PANELS``,
        or with "all splits" as many as leave room for each place's splits; None when every
        place fits."""
        splits = len(selected[0].split_periods) if self.split.value == ALL_SPLITS else 1
        top = max(1, MAX_PANELS // max(1, splits))
        return top if top < len(self._places(selected)) else None

    @staticmethod
    def _places(selected: list[Any]) -> set[str]:
        """The org units the chart chooses from: the first evaluation's (of two, those both
        have)."""
        places = set(selected[0].org_units)
        for item in selected[1:]:
            places &= set(item.org_units)
        return places


def top_note(top: int | None, places: int) -> str:
    """ "pick an org unit to draw any of the other 546 places" above a chart that leaves places
    out (its title already says "the 12 of 558 org units with the most cases"); else nothing."""
    if top is None or top >= places:
        return ""
    other = places - top
    return message(
        f"pick an org unit to draw any of the other {other} place{'' if other == 1 else 's'}",
        "#555",
    )


def split_stops(splits: list[str]) -> list[tuple[str, str]]:
    """The split slider's stops in time order: "all splits" first, each split period, and at
    the right end, where the knob starts, the last one ("last (2024-09)"), as a person reads a
    time line."""
    if not splits:
        return [(LAST_SPLIT, LAST_SPLIT)]
    *earlier, last = splits
    return [
        (ALL_SPLITS, ALL_SPLITS),
        *((_split_label(split), split) for split in earlier),
        (f"last ({_split_label(last)})", LAST_SPLIT),
    ]


def _split_label(split: str) -> str:
    """A split period as the charts write it (``2024-07``); the server's own text if it is no
    period."""
    try:
        return period_label(split)
    except ValueError:
        return split


def _recent(actuals: pd.DataFrame | None, frame: pd.DataFrame) -> pd.DataFrame | None:
    """The actual cases from ``HISTORY_PERIODS`` before the first split (of a forward
    forecast: its first period) on: the chart shows the forecasts with recent history, not
    years of it (``panel.actuals`` keeps everything)."""
    if actuals is None or actuals.empty or frame.empty:
        return actuals
    start = frame["split_period" if "split_period" in frame else "period"].min() - HISTORY_PERIODS
    return actuals[actuals["period"] >= start]


def _metrics_table(evaluations: list[Any]) -> str:
    """Both evaluations' aggregate metrics, one column each, as an HTML table (a metric an
    evaluation lacks is a dash)."""
    names = [item.name or str(item.id) for item in evaluations]
    metrics = dict.fromkeys(key for item in evaluations for key in item.aggregate_metrics)
    header = "".join(f'<th scope="col">{html.escape(name)}</th>' for name in names)
    body = ""
    for metric in metrics:
        values = (item.aggregate_metrics.get(metric) for item in evaluations)
        cells = "".join(f"<td>{format_cell(value)}</td>" for value in values)
        body += f'<tr><th scope="row">{html.escape(metric_title(metric))}</th>{cells}</tr>'
    style = (  # room between the columns, numbers aligned on the right
        "<style>.chaplab-metrics th, .chaplab-metrics td { padding: 2px 12px; text-align: right }"
        " .chaplab-metrics th[scope=row] { text-align: left }</style>"
    )
    return (
        f'{style}<table class="chaplab-metrics" style="border-collapse:collapse">'
        "<caption>aggregate metrics</caption>"
        f"<thead><tr><th></th>{header}</tr></thead><tbody>{body}</tbody></table>"
    )
