"""Every chart with a time axis, drawn over a grid of spans and layouts, and its time labels
measured as drawn: no two closer than a visible gap (in a panel or across panels), none out of
the figure, and as many as fit.

The grid: weekly and monthly windows of 8 periods, 1, 3 and 10 years, and a weekly half year
across 2020-W53, each in one wide panel, in three columns and in twelve panels; for the fan
chart of a backtest and of a forecast, the comparison chart and the probability tiles.
``CHAPLAB_CHART_PICTURES=<folder>`` saves each chart there as a PNG to look at.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import matplotlib.dates as mdates
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from chaplab.frames import SPLIT_PERIOD, period_label
from chaplab.plotting import compare_chart, fan_chart, probability_tiles
from chaplab.plotting._time import set_time_axis
from chaplab.widgets.forecast import FanChart
from readability import (
    label_share,
    labelled_axes,
    read_periods,
    shown_labels,
    time_label_problems,
)

from .cases import evaluation


@dataclass(frozen=True)
class Span:
    """A chart's time window: ``length`` periods from ``first``."""

    name: str
    first: pd.Period
    length: int

    @property
    def weekly(self) -> bool:
        return self.first.freqstr == "W-SUN"

    @property
    def horizon(self) -> int:
        return 4 if self.weekly else 3


def _week(text: str) -> pd.Period:
    """The ISO week ``2020-W40`` as a weekly Period."""
    return pd.Period(pd.Timestamp.fromisocalendar(int(text[:4]), int(text[6:]), 1), "W-SUN")


SPANS = [
    Span("weekly 8 periods", _week("2026-W49"), 8),  # across 2026-W53
    Span("weekly 1 year", _week("2023-W21"), 52),
    Span("weekly 3 years", _week("2021-W30"), 156),
    Span("weekly 10 years", _week("2014-W20"), 520),  # 2015-W53 and 2020-W53 inside
    Span("weekly half year across W53", _week("2020-W40"), 26),
    Span("monthly 8 periods", pd.Period("2023-10", "M"), 8),
    Span("monthly 1 year", pd.Period("2023-06", "M"), 12),
    Span("monthly 3 years", pd.Period("2021-08", "M"), 36),
    Span("monthly 10 years", pd.Period("2014-06", "M"), 120),
]
LAYOUTS = {"one wide panel": 1, "three columns": 5, "twelve panels": 12}
"""Org units per chart: one is drawn alone and wide, five in rows of three, twelve in four."""


def _places(count: int) -> list[str]:
    return [f"OU_{number:02d}" for number in range(count)]


def _evaluation(span: Span, places: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """An evaluation of one split whose window (history and forecasts) is ``span``."""
    return evaluation(
        _places(places),
        n_splits=1,
        horizon=span.horizon,
        history=span.length - span.horizon,
        weekly=span.weekly,
        start=span.first,
    )


def _backtest(span: Span, places: int) -> Figure:
    frame, actuals = _evaluation(span, places)
    return fan_chart(frame, actuals, history=span.length - span.horizon)


def _forecast(span: Span, places: int) -> Figure:
    frame, actuals = _evaluation(span, places)
    forecast = frame.drop(columns=SPLIT_PERIOD)
    return fan_chart(forecast, actuals, history=span.length - span.horizon, title="forecast")


def _comparison(span: Span, places: int) -> Figure:
    frame, actuals = _evaluation(span, places)
    return compare_chart(
        frame, frame, actuals, labels=("naive", "ar"), history=span.length - span.horizon
    )


def _tiles_frame(span: Span, places: int) -> pd.DataFrame:
    periods = pd.period_range(span.first, periods=span.length)
    rng = np.random.default_rng(3)
    return pd.DataFrame(
        {
            "org_unit": np.repeat(_places(places), span.length),
            "period": np.tile(periods, places),
            "probability": rng.uniform(0, 1, places * span.length),
        }
    )


def _tiles(span: Span, places: int) -> Figure:
    """Tiles of ``places`` org units, or with five places three tile charts side by side in
    one figure of the caller's (say, three models' forecasts)."""
    if places != LAYOUTS["three columns"]:
        return probability_tiles(_tiles_frame(span, places))
    figure, axes = plt.subplots(1, 3, figsize=(15, 3.5), layout="constrained")
    for ax, model in zip(axes, ("naive", "ar", "ewars"), strict=True):
        probability_tiles(_tiles_frame(span, 3), title=model, ax=ax)
    return figure


CHARTS: dict[str, Callable[[Span, int], Figure]] = {
    "backtest fan chart": _backtest,
    "forecast fan chart": _forecast,
    "comparison chart": _comparison,
    "probability tiles": _tiles,
}
MIN_SHARE = 0.25
"""Time labels fill at least this share of their axis: a step twice as coarse as the one that
no longer fits (or 2.5 times, 5 to 10 years) leaves labels filling some 40 % of it; labels
filling a quarter or less mean a finer step was left unused."""


def _time_axes(figure: Figure) -> list[Axes]:
    """The axes of the figure that label a time axis (every labelled x axis but colour bars)."""
    return labelled_axes(figure)


def _shown_periods(ax: Axes, span: Span) -> int:
    """How many periods the x axis of ``ax`` shows (tiles: columns of periods)."""
    low, high = ax.get_xlim()
    if ax.images:
        return round(high - low)
    days = mdates.num2date(high) - mdates.num2date(low)
    if span.weekly:
        return round(days.days / 7)
    return round(days.days / 30.44)


def _tick_periods(ax: Axes, span: Span) -> list[str]:
    """The periods at the ticks ``ax`` labels, as ``period_label`` writes them (tiles: the
    periods of the columns)."""
    ticks = [tick.get_loc() for tick in ax.xaxis.get_major_ticks() if tick.label1.get_text()]
    if ax.images:
        return [period_label(span.first + round(tick)) for tick in ticks]
    days = [pd.Timestamp(mdates.num2date(tick)).tz_localize(None) for tick in ticks]
    return [period_label(pd.Period(day, span.first.freqstr)) for day in days]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("span", SPANS, ids=[span.name for span in SPANS])
@pytest.mark.parametrize("chart", CHARTS)
def test_time_labels_never_crowd_and_fill_their_axis(chart: str, span: Span, layout: str) -> None:
    figure = CHARTS[chart](span, LAYOUTS[layout])
    pictures = os.environ.get("CHAPLAB_CHART_PICTURES")
    if pictures:
        name = f"{chart} {span.name} {layout}".replace(" ", "_")
        figure.savefig(Path(pictures) / f"{name}.png")
    axes = _time_axes(figure)
    assert axes, "the chart labels its time axis"
    for ax in axes:
        # the window drawn is the one asked for (a fan chart draws half a period more)
        assert abs(_shown_periods(ax, span) - span.length) <= 1, ax.get_xlim()
        labels = shown_labels(ax)
        assert len(labels) >= 2, labels
        assert label_share(ax) >= MIN_SHARE, (labels, label_share(ax))
        assert read_periods(labels) == _tick_periods(ax, span), labels  # read as meant
    assert time_label_problems(figure, axes) == []


def _axis_of(first: str, last: str, frequency: str, inches: float, dpi: float = 100) -> Axes:
    """A bare axes ``inches`` wide with the charts' time axis from ``first`` to ``last`` and
    their tick labels (small type)."""
    figure = plt.figure(figsize=(inches + 1, 1.5), dpi=dpi)
    ax = figure.add_axes((0.5 / (inches + 1), 0.4, inches / (inches + 1), 0.5))
    ax.tick_params(labelsize="small")
    limits = np.array([first, last], dtype="datetime64[D]")
    set_time_axis(ax, (limits[0], limits[1]), frequency)
    figure.draw_without_rendering()
    return ax


def _tick_days(ax: Axes) -> list[pd.Timestamp]:
    return [pd.Timestamp(mdates.num2date(x)).tz_localize(None) for x in ax.get_xticks()]


def test_time_ticks_fall_on_whole_years_months_or_weeks() -> None:
    ten_years = _axis_of("2015-01-01", "2024-12-01", "M", 7.0)
    assert _tick_days(ten_years) == [pd.Timestamp(f"{year}-01-01") for year in range(2016, 2025)]
    quarters = _axis_of("2021-01-01", "2023-06-01", "M", 6.0)
    assert (
        shown_labels(quarters)
        == [f"{year}-{month:02d}" for year in (2021, 2022, 2023) for month in (1, 4, 7, 10)][1:-2]
    )
    weeks = _axis_of("2023-12-20", "2024-01-20", "W-SUN", 6.0)
    assert _tick_days(weeks) == [
        pd.Timestamp(day) for day in ("2023-12-25", "2024-01-01", "2024-01-08", "2024-01-15")
    ]
    # the year beneath the first week and a new year's first: read as 2023-W52, 2024-W01, ...
    assert shown_labels(weeks) == ["W52\n2023", "W01\n2024", "W02", "W03"]


def test_a_long_iso_year_s_week_53_is_a_tick_only_when_every_week_is() -> None:
    every_week = _axis_of("2020-12-14", "2021-01-12", "W-SUN", 6.0)
    assert "2020-W53" in read_periods(shown_labels(every_week))
    every_other = _axis_of("2020-12-14", "2021-01-12", "W-SUN", 1.0)
    assert read_periods(shown_labels(every_other)) == ["2021-W01"]  # not W53 a week before it
    at_its_end = _axis_of("2020-11-20", "2021-01-02", "W-SUN", 1.2)
    assert read_periods(shown_labels(at_its_end)) == ["2020-W49", "2020-W51", "2020-W53"]


def test_eight_week_ticks_leave_out_the_week_before_the_next_year_s_first() -> None:
    """W01, W09, ..., W41 and the next W01: W49, four weeks before it, is left out (its label
    ran into W01's: ``2023-W492024-W01``), unless the next W01 is out of view."""
    across = _axis_of("2023-04-01", "2024-03-20", "W-SUN", 3.0)
    assert read_periods(shown_labels(across)) == [
        "2023-W17", "2023-W25", "2023-W33", "2023-W41", "2024-W01", "2024-W09"
    ]  # fmt: skip
    before = _axis_of("2023-04-01", "2023-12-24", "W-SUN", 2.5)
    assert read_periods(shown_labels(before))[-1] == "2023-W49"


def test_time_labels_never_crowd_on_any_span_width_or_dpi() -> None:
    """Two hundred spans of 3 to 800 periods starting anywhere in 2000-2030, on axes 1 to 9
    inches wide, drawn at the dpi of a saved PNG (72), a notebook (100), the panel (90 x 2)."""
    rng = np.random.default_rng(40)
    for case in range(200):
        frequency = ("M", "W-SUN")[case % 2]
        days = 7 if frequency == "W-SUN" else 30.44
        first = np.datetime64("2000-01-01") + int(rng.integers(0, 30 * 365))
        last = first + int(days * rng.integers(3, 800 if frequency == "W-SUN" else 360))
        inches = float(rng.uniform(1.0, 9.0))
        dpi = float(rng.choice([72, 100, 180]))
        ax = _axis_of(str(first), str(last), frequency, inches, dpi)
        assert time_label_problems(ax.get_figure(root=True), [ax]) == [], (first, last, inches)
        assert shown_labels(ax), (first, last, inches)
        plt.close("all")


def test_the_forecast_view_s_fifteen_months_show_every_label_that_fits() -> None:
    """The forecast view's chart (twelve places, 12 months of history and 3 of forecast, in
    rows of two panels) labels every fourth month (three labels), not every sixth (two)."""
    frame, actuals = evaluation(_places(12), n_splits=1, horizon=3, history=30)
    figure = FanChart(frame.drop(columns=SPLIT_PERIOD), actuals, "naive").draw()
    axes = _time_axes(figure)
    assert len(axes) == 2
    for ax in axes:
        assert len(shown_labels(ax)) >= 3, shown_labels(ax)
    assert time_label_problems(figure, axes) == []


def _weekly(
    places: int, history: int, horizon: int, first_forecast: str
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """An evaluation of ``places`` with splits 4 weeks apart from ``history`` weeks after its
    first week to ``first_forecast``'s split and 9 more, ``horizon`` weeks ahead of each."""
    start = _week(first_forecast) - history
    return evaluation(_places(places), 12, horizon, history, weekly=True, start=start)


def test_a_weekly_comparison_labels_each_panel_and_names_its_split() -> None:
    """The weekly notebook's comparison: the third split's 4 weeks and 12 before them, three
    districts in 2.5-inch panels. Each panel labels four weeks (it labelled one, 2022-W09), and
    the title names the split where the forecasts start (it did not)."""
    frame, actuals = _weekly(3, history=30, horizon=4, first_forecast="2022-W11")
    split = sorted(frame[SPLIT_PERIOD].unique())[2]
    figure = compare_chart(frame, frame, actuals, labels=("a", "b"), split_period=split, history=12)
    assert "split 2022-W13, the 3rd of 12 splits" in figure.get_suptitle()
    for ax in _time_axes(figure):
        assert read_periods(shown_labels(ax)) == ["2022-W01", "2022-W05", "2022-W09", "2022-W13"]
    assert time_label_problems(figure) == []


def test_a_year_of_weekly_history_is_labelled_from_its_left_edge_every_quarter() -> None:
    """The weekly notebook's forecast of 8 weeks after 52 of history, four districts in 2.5-inch
    panels: five labels from the left edge (W01 over 2022, W14, W27, W40, W01 over 2023) where
    2022-W27 and 2023-W01 were all; the title says where the forecast starts."""
    frame, actuals = _weekly(4, history=60, horizon=8, first_forecast="2023-W01")
    forecast = frame[frame[SPLIT_PERIOD] == frame[SPLIT_PERIOD].min()].drop(columns=SPLIT_PERIOD)
    figure = fan_chart(forecast, actuals, history=52)
    assert figure.get_suptitle() == "forecast starts 2023-W01"
    for ax in _time_axes(figure):
        assert shown_labels(ax) == ["W01\n2022", "W14", "W27", "W40", "W01\n2023"]
    assert time_label_problems(figure) == []


def test_the_forecast_view_s_twenty_weeks_show_a_label_every_four_weeks() -> None:
    """The forecast view's chart of 8 weekly forecasts after 12 weeks of history, twelve places
    in rows of two 2.5-inch panels: a label every fourth week, five a panel (it showed one,
    2023-W01)."""
    frame, actuals = _weekly(12, history=30, horizon=8, first_forecast="2023-W01")
    forecast = frame[frame[SPLIT_PERIOD] == frame[SPLIT_PERIOD].min()].drop(columns=SPLIT_PERIOD)
    figure = FanChart(forecast, actuals, "naive").draw()
    axes = _time_axes(figure)
    assert len(axes) == 2
    for ax in axes:
        labels = read_periods(shown_labels(ax))
        assert labels == ["2022-W41", "2022-W45", "2022-W49", "2023-W01", "2023-W05"], labels
    assert time_label_problems(figure, axes) == []


def test_two_years_of_weeks_are_labelled_at_weeks_counted_from_each_year_s_first() -> None:
    """W01, W09, ..., W41 of each year in one wide panel, W01 and W27 in 2.5-inch panels; not
    weeks counted from some Monday in 1970 (such as W18 and W44)."""
    eights, halves = {"W01", "W09", "W17", "W25", "W33", "W41"}, {"W01", "W27"}
    for places, weeks, at_least in ((1, eights, 12), (6, halves, 4)):
        frame, actuals = evaluation(_places(places), 1, history=110, weekly=True)
        figure = fan_chart(frame, actuals, history=104)
        for ax in _time_axes(figure):
            labels = read_periods(shown_labels(ax))
            assert {label[-3:] for label in labels} <= weeks, labels
            assert len(labels) >= at_least, labels
