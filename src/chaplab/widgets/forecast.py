"""Forecast forward: the selected configured model forecasts the periods after the selected
dataset's last one, from that dataset's observations and polygons, and the view shows what the
analyst acts on.

The request is ``make_prediction_for_model`` (``POST /v1/analytics/make-prediction``), which
chaplab's service and chap-core 2.5.1 both serve. The job is followed in the job board like an
evaluation's; when it succeeds the forecast is loaded and shown in four tabs:

- **chart**: the fan chart after the last year of cases, with the "forecast starts" mark;
- **table**: per place and period the median, the 80 % interval, the threshold and the
  outbreak probability, 20 rows a page (``PAGE_SIZE``: 558 places are 28 pages of a month);
- **map**: the median forecast or the outbreak probability per place, one map per period (a
  dataset without polygons gets a sentence saying so, never invented shapes);
- **P(outbreak)**: tiles of the outbreak probability, P(cases > threshold), per place and period.

Thresholds come from the server (``compute_thresholds``, ``POST /v1/analytics/thresholds``) for
the forecast's periods, by the strategy the analyst picks (``list_threshold_strategies``); the
probabilities from the forecast's quantiles (:func:`chaplab.scoring.exceedance_probability`),
in a worker thread. Widgets change only on the event loop; charts are drawn in the chart
process.
"""

from __future__ import annotations

import asyncio
import html
import json
from collections.abc import Coroutine, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from chaplab.widgets._markup import message
from chaplab.widgets._render import image_widget, render_chart
from chaplab.widgets._tasks import TaskKeeper, on_kernel_loop
from chaplab.widgets.connection import describe_error
from chaplab.widgets.results import MAX_PANELS, top_note
from chaplab.widgets.snippets import CodeView, ForecastShown, access_of, forecast_code
from chaplab.widgets.tables import Pager

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

TARGET = "disease_cases"
HISTORY = 12
"""Periods of cases the fan chart shows before the forecast: a year, so the season shows."""
POLYGON_TYPES = ("Polygon", "MultiPolygon")
MEDIAN_MAP = "median forecast"
PROBABILITY_MAP = "outbreak probability"
TABS = ("chart", "table", "map", "P(outbreak)")
"""The tabs' titles: short enough for a tab (144 px) to show whole."""
CELL = ' style="padding:1px 10px;text-align:right"'
NO_MAP = (
    "No map: this dataset's org units have no polygons (a server may store points or no "
    "geometry), and none are made up. Upload the dataset with a GeoJSON of the org units' "
    "boundaries to see a map; the table and the tiles show the same forecast."
)


@dataclass(frozen=True)
class History:
    """A dataset as a forecast needs it: its id, the wide table of observations sent with the
    request, the org units' polygons, and the target's values as actual cases for the chart."""

    dataset_id: int
    table: pd.DataFrame
    geojson: dict[str, Any] | None
    actuals: pd.DataFrame


def history_of(dataset: Any) -> History:
    """The :class:`History` of a dataset read with its observations (``get_dataset``)."""
    import pandas as pd

    from chaplab.frames import parse_periods

    long = pd.DataFrame(
        [
            (item.period, item.org_unit, item.feature_name, item.value)
            for item in dataset.observations or []
        ],
        columns=["time_period", "location", "feature", "value"],
    )
    table = long.pivot_table(
        index=["time_period", "location"], columns="feature", values="value", dropna=False
    ).reset_index()
    table.columns.name = None
    target = long[long["feature"] == TARGET]
    actuals = pd.DataFrame(
        {
            "org_unit": target["location"].to_numpy(),
            "period": parse_periods(target["time_period"]),
            "value": target["value"].astype(float).to_numpy(),
        }
    )
    geojson = getattr(dataset, "geojson", None)
    if isinstance(geojson, str):  # chap-core 2.5.1 sends the polygons as JSON text
        geojson = json.loads(geojson)
    return History(dataset.id, table, geojson, actuals)


def has_polygons(geojson: Mapping[str, Any] | None) -> bool:
    """Whether any feature of the GeoJSON has a Polygon or MultiPolygon geometry."""
    features = (geojson or {}).get("features") or []
    return any(
        isinstance(feature, Mapping)
        and isinstance(feature.get("geometry"), Mapping)
        and feature["geometry"].get("type") in POLYGON_TYPES
        for feature in features
    )


@dataclass(frozen=True)
class FanChart:
    """The forecast's fan chart after ``HISTORY`` periods of cases, drawn in the chart
    process."""

    frame: pd.DataFrame
    actuals: pd.DataFrame
    name: str

    @property
    def top(self) -> int | None:
        """``MAX_PANELS`` when the forecast has more places than that (the chart draws those
        with the most cases in its history periods), else None (every place is drawn)."""
        places = self.frame["org_unit"].nunique()
        return MAX_PANELS if places > MAX_PANELS else None

    def draw(self) -> Figure:
        """:func:`chaplab.plotting.fan_chart` on a figure of its own."""
        from chaplab.plotting import fan_chart

        start = self.frame["period"].min() - HISTORY
        recent = self.actuals[self.actuals["period"] >= start]
        return fan_chart(
            self.frame,
            recent,
            history=HISTORY,
            max_panels=MAX_PANELS,
            title=self.name,
            top=self.top,
        )


@dataclass(frozen=True)
class MapChart:
    """The map of one value per org unit and period, drawn in the chart process."""

    frame: pd.DataFrame
    geojson: dict[str, Any]
    value: str
    units: str | None
    title: str | None = None

    def draw(self) -> Figure:
        """:func:`chaplab.plotting.map_chart` on a figure of its own."""
        from chaplab.plotting import map_chart

        return map_chart(self.frame, self.geojson, self.value, units=self.units, title=self.title)


@dataclass(frozen=True)
class TilesChart:
    """Outbreak-probability tiles of the forecast named ``forecast``, drawn in the chart
    process."""

    probabilities: pd.DataFrame
    strategy: str
    forecast: str

    def draw(self) -> Figure:
        """:func:`chaplab.plotting.probability_tiles` on a figure of its own."""
        from chaplab.plotting import probability_tiles

        return probability_tiles(
            self.probabilities, strategy=self.strategy, title=outbreak_title(self.forecast)
        )


def outbreak_title(forecast: str) -> str:
    """The first line of an outbreak chart's title: whose forecast the probabilities are (a
    model that ignores the seasons reads as an outbreak in every low season)."""
    return f"Outbreak probability of the {forecast}: P(cases > threshold)"


def forecast_table(frame: pd.DataFrame, outbreaks: pd.DataFrame | None) -> str:
    """An HTML table of the forecast: per place and period the median and the 10-90 %
    interval, and with ``outbreaks`` (``org_unit``, ``period``, ``threshold``,
    ``probability``, and its bounds ``probability_lower``/``probability_upper``: ``< 10%``
    where only a bound is known) the threshold and the outbreak probability."""
    return table_html(*forecast_table_rows(frame, outbreaks))


def table_html(head: str, rows: list[str]) -> str:
    """The forecast table of a header row and body rows (as :func:`forecast_table_rows` writes
    them)."""
    body = "".join(f"<tr>{row}</tr>" for row in rows)
    return (
        '<table style="border-collapse:collapse"><caption>the forecast</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    )


def forecast_table_rows(
    frame: pd.DataFrame, outbreaks: pd.DataFrame | None
) -> tuple[str, list[str]]:
    """The header cells and each row's cells of :func:`forecast_table`, places by name; the
    case numbers of the whole table (medians, intervals, thresholds) share one precision."""

    from chaplab.frames import format_numbers, format_probability, frame_labels, period_label

    levels = frame.pivot_table(
        index=["org_unit", "period"], columns="quantile", values="value", observed=True
    )
    if outbreaks is not None:
        keyed = outbreaks.assign(org_unit=outbreaks["org_unit"].astype(str))
        shown = ["threshold", "probability", "probability_lower", "probability_upper"]
        shown = [column for column in shown if column in keyed.columns]
        levels = levels.join(keyed.set_index(["org_unit", "period"])[shown])
    labels = frame_labels(frame)
    header = ["place", "period", "median", "10\u201390 %"]
    if outbreaks is not None:
        header += ["threshold", "P(outbreak)"]
    levels = levels.assign(_place=[labels.get(str(u), str(u)).casefold() for u, _ in levels.index])
    levels = levels.sort_values("_place", kind="stable")
    counted = [0.5, 0.1, 0.9] + (["threshold"] if outbreaks is not None else [])
    texts = format_numbers(
        levels[name].iloc[row] if name in levels.columns else None
        for row in range(len(levels))
        for name in counted
    )
    rows = []
    for row, ((org_unit, period), record) in enumerate(levels.iterrows()):
        median, lower, upper, *threshold = texts[row * len(counted) : (row + 1) * len(counted)]
        cells = [
            labels.get(str(org_unit), str(org_unit)),
            period_label(period),
            median,
            f"{lower} \u2013 {upper}",
        ]
        if outbreaks is not None:
            probability = format_probability(  # "< 10%" where only a bound is known
                record.get("probability"),
                record.get("probability_lower"),
                record.get("probability_upper"),
            )
            cells += [*threshold, probability]
        rows.append("".join(f"<td{CELL}>{html.escape(cell)}</td>" for cell in cells))
    head = "".join(f'<th scope="col"{CELL}>{html.escape(name)}</th>' for name in header)
    return head, rows


class ForecastView(widgets.VBox):  # type: ignore[misc]  # ipywidgets has no annotations
    """The forecast button, what went wrong, and the latest forecast as chart, table, map and
    outbreak-probability tiles."""

    def __init__(self, client: Any, keeper: TaskKeeper) -> None:
        super().__init__()
        self._client = client
        self._keeper = keeper
        self.frame: pd.DataFrame | None = None
        self.actuals: pd.DataFrame | None = None
        self.history: History | None = None
        self.outbreaks: pd.DataFrame | None = None
        self.prediction_id: int | None = None
        self.name = ""
        self.shown_panels: list[str] = []
        self._strategy_names: dict[str, str] = {}
        self._map_generation = 0
        self._outbreak_generation = 0
        self.button = widgets.Button(
            description="Forecast forward",
            icon="forward",
            disabled=True,
            tooltip="the selected model forecasts nPeriods after the selected dataset",
        )
        self.message = widgets.HTML()
        self.image = image_widget()  # the fan chart
        self.chart_note = widgets.HTML()  # "12 of 558 places with most cases", when some are out
        self.table = widgets.HTML()
        self.table_pager = Pager(self._show_table_page)
        self._table_head = ""
        self._table_rows: list[str] = []
        self.map_value = widgets.ToggleButtons(
            options=[MEDIAN_MAP, PROBABILITY_MAP],
            description="map of",
            style={"button_width": "auto"},  # each label whole, not cut at a fixed width
        )
        self.map_message = widgets.HTML()
        self.map_image = image_widget()
        self.strategy = widgets.Dropdown(description="threshold", options=[])
        self.tiles_message = widgets.HTML()
        self.tiles_image = image_widget()
        self.tabs = widgets.Tab(
            children=[
                widgets.VBox([self.chart_note, self.image]),
                widgets.VBox([self.table, self.table_pager]),
                widgets.VBox([self.map_value, self.map_message, self.map_image]),
                widgets.VBox([self.strategy, self.tiles_message, self.tiles_image]),
            ],
            titles=TABS,
        )
        self.code = CodeView()  # the forecast's own: it reads and draws this forecast
        self.map_value.observe(
            on_kernel_loop(lambda _: self._keeper.spawn(self._map_tab())), names="value"
        )
        self._offering = False
        self.strategy.observe(on_kernel_loop(self._strategy_chosen), names="value")
        self.children = [
            widgets.HTML("<b>Forecast forward</b>"),
            widgets.HBox([self.button, self.message]),
        ]

    def set_ready(self, ready: bool) -> None:
        """Enable the button when a dataset and a configured model are selected."""
        self.button.disabled = not ready

    def show_error(self, error: BaseException) -> None:
        """Say (in red, beside the button) why the forecast could not be made or shown."""
        self.message.value = message(describe_error(error), alert=True)

    async def show(
        self, name: str, prediction_id: int, frame: pd.DataFrame, history: History
    ) -> None:
        """Show the forecast: the fan chart after the recent history of cases, the table, the
        map and, once thresholds are computed, the outbreak probabilities."""
        self.message.value = ""
        self.prediction_id, self.frame, self.history = prediction_id, frame, history
        self.name = name
        self.actuals, self.outbreaks = history.actuals, None
        chart = FanChart(frame, history.actuals, name)
        rendered = await render_chart(chart)
        self.image.value, self.shown_panels = rendered.png, rendered.panels
        self.chart_note.value = top_note(chart.top, frame["org_unit"].nunique())
        self.table_pager.page = 0  # a new forecast starts at its first rows
        self.show_table(await asyncio.to_thread(forecast_table_rows, frame, None))
        self.code.set_code(
            forecast_code(
                access_of(self._client),
                ForecastShown(
                    prediction_id,
                    history.dataset_id,
                    name,
                    HISTORY,
                    top=chart.top,
                    max_panels=MAX_PANELS,
                    target=TARGET,
                ),
            )
        )
        if self.tabs not in self.children:
            self.children = [*self.children, self.tabs, self.code]
        await self._map_tab()
        await self._outbreaks_tab(self._offer_strategies())
        await self._outbreaks_tab(self.update_outbreaks())

    async def draw_map(self) -> None:
        """Draw the map of the chosen value, or say why there is none."""
        self._map_generation += 1
        generation = self._map_generation
        history, frame = self.history, self.frame
        if history is None or frame is None:
            return
        self.map_message.value = ""
        geojson = history.geojson
        if geojson is None or not has_polygons(geojson):
            self.map_image.value = b""
            self.map_message.value = message(NO_MAP)
            return
        if self.map_value.value == PROBABILITY_MAP:
            if self.outbreaks is None:
                self.map_image.value = b""
                self.map_message.value = message("outbreak probabilities are not computed yet")
                return
            strategy = self._strategy_names.get(self.strategy.value, self.strategy.value)
            title = f"{outbreak_title(self.name)}\nthresholds by {strategy!r}"
            chart = MapChart(self.outbreaks, geojson, "probability", None, title)
        else:
            chart = MapChart(frame, geojson, "value", "cases")
        rendered = await render_chart(chart)
        if generation == self._map_generation:
            self.map_image.value = rendered.png

    async def update_outbreaks(self) -> None:
        """Thresholds of the chosen strategy for the forecast's periods, the probability of
        exceeding them, and everything that shows them (tiles, table, probability map)."""
        from chaplab.frames import format_period

        self._outbreak_generation += 1
        generation = self._outbreak_generation
        history, frame, strategy = self.history, self.frame, self.strategy.value
        if history is None or frame is None or strategy is None:
            return
        self.tiles_message.value = message(f"computing thresholds ({strategy}) ...", "#555")
        periods = [format_period(period) for period in sorted(frame["period"].unique())]
        thresholds = await self._client.compute_thresholds(
            history.dataset_id, periods, {"type": strategy}
        )
        outbreaks = await asyncio.to_thread(outbreak_frame, frame, thresholds)
        if generation != self._outbreak_generation:
            return
        self.outbreaks = outbreaks
        self.tiles_message.value = ""
        self.show_table(await asyncio.to_thread(forecast_table_rows, frame, outbreaks))
        chart = TilesChart(outbreaks, self._strategy_names[strategy], self.name)
        rendered = await render_chart(chart)
        if generation == self._outbreak_generation:
            self.tiles_image.value = rendered.png
        if self.map_value.value == PROBABILITY_MAP:
            await self.draw_map()

    def show_table(self, table: tuple[str, list[str]]) -> None:
        """Show a new forecast table on the page shown (its rows are the same places)."""
        self._table_head, self._table_rows = table
        self._show_table_page()

    def _show_table_page(self) -> None:
        pager = self.table_pager
        pager.set_total(len(self._table_rows))
        self.table.value = table_html(self._table_head, self._table_rows[pager.start : pager.stop])

    async def _offer_strategies(self) -> None:
        """Offer the server's threshold strategies (once), the first one chosen."""
        if self.strategy.options:
            return
        strategies = await self._client.list_threshold_strategies()
        if not strategies:
            raise LookupError("this server offers no threshold strategies: no outbreak tiles")
        self._strategy_names = {item.id: item.display_name for item in strategies}
        self._offering = True
        try:
            self.strategy.options = [(item.display_name, item.id) for item in strategies]
            self.strategy.value = strategies[0].id
        finally:
            self._offering = False

    def _strategy_chosen(self, _: Any) -> None:
        if not self._offering:
            self._keeper.spawn(self._outbreaks_tab(self.update_outbreaks()))

    async def _map_tab(self) -> None:
        """:meth:`draw_map`, a problem said in the map's tab."""
        await _said_in(self.draw_map(), self.map_message, self.map_image)

    async def _outbreaks_tab(self, work: Coroutine[Any, Any, None]) -> None:
        """``work`` for the outbreak tiles, a problem said in their tab."""
        await _said_in(work, self.tiles_message, self.tiles_image)


async def _said_in(
    work: Coroutine[Any, Any, None], text: widgets.HTML, image: widgets.Image
) -> None:
    """Await ``work``; when it fails, its problem replaces the tab's image, in red: a map or
    tiles that cannot be drawn leave the chart and the table shown."""
    try:
        await work
    except Exception as error:  # any problem of one tab is a sentence in that tab
        image.value = b""
        text.value = message(describe_error(error), alert=True)


def outbreak_frame(frame: pd.DataFrame, thresholds: Any) -> pd.DataFrame:
    """Per org unit and period of the forecast: the threshold (the first line of the server's
    ``thresholds``) and P(cases > threshold), from the forecast's quantiles."""
    import pandas as pd

    from chaplab.scoring import exceedance_probability

    lines = pd.DataFrame(
        [
            (entry.location, entry.period, entry.values[0] if entry.values else None)
            for entry in thresholds.entries
        ],
        columns=["org_unit", "period", "threshold"],
    ).astype({"threshold": float})
    return exceedance_probability(frame, lines)


async def load_history(client: Any, dataset_id: int) -> History:
    """The dataset's :class:`History`; the table is built in a worker thread."""
    dataset = await client.get_dataset(dataset_id)
    return await asyncio.to_thread(history_of, dataset)
