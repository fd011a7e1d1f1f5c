"""The charts' time axes: ticks at whole weeks, months or years, as many as the space their
labels take leaves room for, labelled in the one period format of the data's frequency:
``2024-07``, and ``2024-W05`` written as ``W05`` with its year beneath where the year is new to
the axis (:func:`year_once`).

A locator measures the labels it would draw (each text as the tick labels' font renders it at
the figure's dpi: hinting makes a label at 100 dpi some 15 % wider than at 90) and takes the
finest step whose labels stand at least ``LABEL_GAP`` apart and reach at most ``OVERHANG`` past
the axis' ends. So a label never runs into its neighbour or into the next panel, whatever the
panel's width, the span or the year ends in it, and a wide panel gets more labels than a narrow
one. Fan and comparison charts have an axis of dates (:func:`set_time_axis`), probability tiles
one of period columns (:func:`set_period_columns`); both choose among the same periods.
Candidates are computed with numpy: matplotlib's date locators build ``dateutil`` rules on
every call (about a millisecond), and every panel asks its locator several times per draw (a
locator answers a repeated question from its last answer).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np
import pandas as pd
from matplotlib import dates
from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.backends.backend_agg import RendererAgg
from matplotlib.font_manager import FontProperties
from matplotlib.ticker import Formatter, Locator

from chaplab.errors import ArgumentError
from chaplab.frames import MONTHLY, WEEKLY, parse_periods, period_label, period_labels

Step = tuple[str, int]
"""A step between ticks: ``("W", 13)`` is every 13th ISO week of a year, ``("M", 3)`` every
third month from January, ``("Y", 2)`` every other year."""
YEARS: tuple[Step, ...] = tuple(("Y", s) for s in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000))
FREQUENCY_STEPS: dict[str, tuple[Step, ...]] = {
    MONTHLY: (*(("M", s) for s in (1, 2, 3, 4, 6)), *YEARS),
    WEEKLY: tuple(("W", s) for s in (1, 2, 4, 8, 13, 26, 52, 104, 260, 520, 1040, 2600)),
}
"""The steps a locator tries, finest first: monthly ticks on months counted from January,
weekly ticks on ISO weeks counted from each year's first (a step of a year or more on ``W01``
or ``W27``)."""
WEEKS_A_YEAR = 52
PERIOD_DAYS = {MONTHLY: 365.25 / 12, WEEKLY: 7.0}
LABEL_GAP = 0.75
"""Ems (the tick labels' font size) between two neighbouring time labels at least: a visible
gap, not a space."""
OVERHANG = 0.15
"""Inches a time label may reach past either end of its axis, as a label of a tick near the end
does: less than the room between a chart's panels, or between its last panel and the legend."""
MONDAY = np.datetime64("1970-01-05")  # ISO weeks start on Mondays
# matplotlib.dates has no annotations: its converters as this module calls them
_date2num: Callable[[np.ndarray], np.ndarray] = dates.date2num
_num2date: Callable[[float], datetime] = dates.num2date


def to_x(periods: pd.Index | pd.Series) -> np.ndarray:
    """Periods -> the datetime64 of their start, the x coordinate of every chart."""
    starts: np.ndarray = pd.PeriodIndex(periods).to_timestamp(how="start").to_numpy()
    return starts


def window_limits(first: pd.Period, last: pd.Period) -> tuple[np.datetime64, np.datetime64]:
    """The x limits of a window of periods from ``first`` to ``last``: half a period beyond the
    start of each (a period is drawn at its start), so no point sits on the axis' edge."""
    before, start, end, after = to_x(pd.PeriodIndex([first - 1, first, last, last + 1]))
    return start - (start - before) / 2, end + (after - end) / 2


@dataclass(frozen=True)
class _Room:
    """What a locator measures its labels against: the axis' width, the tick labels' font and
    the figure's dpi (a label's width differs with each), and the view."""

    inches: float
    font: FontProperties
    dpi: float
    low: float
    high: float

    @property
    def gap(self) -> float:
        """Inches between two labels at least."""
        return LABEL_GAP * self.font.get_size_in_points() / 72

    @property
    def scale(self) -> float:
        """Inches per unit of the axis."""
        return self.inches / max(self.high - self.low, 1e-9)

    def key(self) -> tuple[object, ...]:
        return (self.inches, hash(self.font), self.dpi, self.low, self.high)


class _FittingLocator(Locator):
    """Ticks at the finest step of the frequency whose labels, as the axis' formatter writes
    them and its tick labels' font measures them, fit the axis: each at least ``LABEL_GAP``
    from its neighbours and reaching no further than ``OVERHANG`` past the axis' ends (ticks
    whose label would are left out), so that labels of panels side by side stay apart."""

    period_units = 1.0
    """Units of the axis a period takes (about)."""

    def __init__(self, frequency: str) -> None:
        self.frequency = frequency
        self.steps = FREQUENCY_STEPS[frequency]
        self._last: tuple[tuple[object, ...], np.ndarray] | None = None

    # matplotlib's stubs declare Sequence[float], though its own locators return arrays too
    def __call__(self) -> np.ndarray:  # type: ignore[override]
        assert self.axis is not None, "a locator is called once set on an axis"
        return self.tick_values(*self.axis.get_view_interval())

    def tick_values(self, vmin: float, vmax: float) -> np.ndarray:  # type: ignore[override]
        room = self._room(*sorted((float(vmin), float(vmax))))
        formatter = self._axis().get_major_formatter()
        key = (*room.key(), id(formatter))
        if self._last is not None and self._last[0] == key:
            return self._last[1]  # matplotlib asks several times per draw
        # a step whose ticks stand closer than half the narrowest label (of a tick after
        # another of its year: a week without its year) is not measured
        narrowest = formatter.format_ticks([room.low, room.low])[-1]
        closest = label_inches(narrowest, room.font, room.dpi) / 2 + room.gap
        fitted = np.empty(0)
        for step in self.steps:
            apart = _periods_in(step) * self.period_units * room.scale
            if apart < closest and room.inches >= 2 * apart:
                continue
            fitting = [
                ticks
                for candidates in self.candidates(step, room.low, room.high)
                if (ticks := self._fitting(candidates, room)) is not None
            ]
            if fitting:
                fitted = max(fitting, key=len)
                break
        self._last = (key, fitted)
        return fitted

    def candidates(self, step: Step, low: float, high: float) -> list[np.ndarray]:
        """The ticks of ``step`` from ``low`` to ``high`` in the axis' units; several arrays
        where a step may fall on either of several periods (the one that fits most is taken)."""
        raise NotImplementedError

    def _axis(self) -> Axis:
        assert isinstance(self.axis, Axis), "a locator measures its labels on its axis"
        return self.axis

    def _room(self, low: float, high: float) -> _Room:
        axis = self._axis()
        figure = axis.axes.get_figure(root=True)
        assert figure is not None, "an axis of a figure's axes"
        inches = float(axis.axes.get_position().width * figure.get_figwidth())
        font = axis.get_major_ticks(1)[0].label1.get_fontproperties()
        return _Room(inches, font, float(figure.dpi), low, high)

    def _fitting(self, ticks: np.ndarray, room: _Room) -> np.ndarray | None:
        """The ``ticks`` whose labels reach at most ``OVERHANG`` past the axis' ends, if those
        are each ``LABEL_GAP`` or more apart; None if any two are closer. The labels are
        written as the ticks kept are (the first of a weekly axis names its year, so leaving
        out a tick near the start may widen the next label)."""
        x = (ticks - room.low) * room.scale
        if len(ticks) > 1 and np.min(np.diff(x)) < room.gap:
            return None  # closer than the gap before any label is measured
        formatter = self._axis().get_major_formatter()
        while True:
            labels = formatter.format_ticks(list(ticks))
            widths = np.array([label_inches(label, room.font, room.dpi) for label in labels])
            inside = (x + OVERHANG >= widths / 2) & (x + widths / 2 <= room.inches + OVERHANG)
            if inside.all():
                break
            ticks, x = ticks[inside], x[inside]
        if np.any(np.diff(x) < (widths[:-1] + widths[1:]) / 2 + room.gap):
            return None
        return ticks


def _periods_in(step: Step) -> int:
    """Periods of the step's frequency in a step (a year is 12 months, or 52 weeks)."""
    unit, size = step
    return 12 * size if unit == "Y" else size


class TimeLocator(_FittingLocator):
    """Ticks on an axis of dates (matplotlib date numbers, periods at their start): every 1, 2,
    3, 4 or 6 months (from January) or 1, 2, 5, 10, ... years for monthly data; for weekly data
    the ISO weeks counted from each year's first (every 1, 2, 4, 8, 13 or 26 weeks from
    ``W01``: ``W01``, ``W14``, ``W27``, ``W40``; a week less than a step before the next
    tick, the next year's ``W01``, is left out: ``W53`` unless every week is a tick, ``W49`` at
    8 weeks) or ``W01`` or ``W27`` of every year, of every other, ... (whichever fits more
    labels)."""

    def __init__(self, frequency: str) -> None:
        super().__init__(frequency)
        self.period_units = PERIOD_DAYS[frequency]

    def candidates(self, step: Step, low: float, high: float) -> list[np.ndarray]:
        return [_date2num(starts) for starts in period_ticks(self.frequency, step, low, high)]


class PeriodColumnLocator(_FittingLocator):
    """Ticks on an axis of columns, one per period (``columns``, consecutive periods of one
    frequency, column ``i`` centred on ``i``), at the periods a :class:`TimeLocator` would
    choose among them."""

    def __init__(self, columns: pd.PeriodIndex) -> None:
        super().__init__(columns.freqstr)
        self.starts = to_x(columns).astype("datetime64[D]")

    def candidates(self, step: Step, low: float, high: float) -> list[np.ndarray]:
        first, last = np.clip(np.round([low, high]), 0, len(self.starts) - 1).astype(int)
        start, end = _date2num(self.starts[[first, last]])
        found = []
        for starts in period_ticks(self.frequency, step, start, end):
            columns = np.searchsorted(self.starts, starts)
            shown = columns < len(self.starts)
            columns = columns[shown][self.starts[columns[shown]] == starts[shown]]
            found.append(columns[(columns >= low) & (columns <= high)].astype(np.float64))
        return found


def period_ticks(frequency: str, step: Step, low: float, high: float) -> list[np.ndarray]:
    """The first days (datetime64[D]) of the periods ``step`` falls on from the date number
    ``low`` to ``high``: one array, or for a weekly step of a year or more two (on ``W01`` and
    on ``W27``)."""
    unit, size = step
    if frequency == WEEKLY and size >= WEEKS_A_YEAR:
        return [_in_range(_iso_week_starts(low, high, size, week), low, high) for week in (1, 27)]
    if frequency == WEEKLY:
        mondays = _in_range(_iso_week_starts(low, high, size), low, high)
        # a week closer than a step to the next year's W01 (W49 at 8 weeks, W53) is left out
        apart = np.diff(mondays) >= np.timedelta64(7 * size, "D")
        return [mondays[np.append(apart, True)]]
    first, last = (_count(value, unit) for value in (low, high))
    counts = np.arange(first - first % size, last + size, size)
    starts = counts.astype(f"datetime64[{unit}]").astype("datetime64[D]")
    return [_in_range(starts, low, high)]


def _in_range(starts: np.ndarray, low: float, high: float) -> np.ndarray:
    numbers = _date2num(starts)
    in_range: np.ndarray = starts[(numbers >= low) & (numbers <= high)]
    return in_range


def _count(value: float, unit: str) -> int:
    """Whole months or years since 1970 at the date number ``value``."""
    day = np.datetime64(_num2date(value).replace(tzinfo=None), "D")
    return int(day.astype(f"datetime64[{unit}]").astype(np.int64))


def _iso_week_starts(low: float, high: float, step: int, week: int = 1) -> np.ndarray:
    """The Mondays of the ISO weeks 1, 1 + ``step``, 1 + 2 ``step``, ... of every ISO year
    from the date number ``low`` to ``high``; for a step of a year or more (52, 104, ...) week
    ``week`` of every year, or of the years a whole number of steps from year 0."""
    first, last = (_num2date(value).year for value in (low, high))
    years = np.arange(first - 1, last + 2)
    years = years[years % max(step // WEEKS_A_YEAR, 1) == 0]
    week_ones = _first_iso_mondays(years)
    weeks_in_year = (_first_iso_mondays(years + 1) - week_ones).astype(np.int64) // 7
    offsets = np.full(1, week - 1) if step >= WEEKS_A_YEAR else np.arange(0, 53, step)
    mondays = week_ones[:, None] + (offsets * 7).astype("timedelta64[D]")[None, :]
    starts: np.ndarray = mondays[offsets[None, :] < weeks_in_year[:, None]]
    return starts


def _first_iso_mondays(years: np.ndarray) -> np.ndarray:
    """The Monday starting ISO week 1 of each of ``years``: the week of January 4."""
    january_4 = (years - 1970).astype("datetime64[Y]").astype("datetime64[D]") + 3
    mondays: np.ndarray = january_4 - ((january_4 - MONDAY).astype(np.int64) % 7).astype(
        "timedelta64[D]"
    )
    return mondays


def label_inches(text: str, font: FontProperties, dpi: float) -> float:
    """Inches of ``text`` drawn in ``font`` at ``dpi``, as matplotlib's Agg renderer (the one
    of PNGs, notebooks and ipympl) lays it out: the width of its rendered extent (of its
    widest line)."""
    return max(_measured_inches(line, font.copy(), float(dpi)) for line in text.split("\n"))


@functools.lru_cache(maxsize=4096)
def _measured_inches(text: str, font: FontProperties, dpi: float) -> float:
    renderer = _renderer(dpi)
    width, _, _ = renderer.get_text_width_height_descent(text, font, ismath=False)  # type: ignore[no-untyped-call]
    return float(width) / dpi


@functools.lru_cache(maxsize=8)
def _renderer(dpi: float) -> RendererAgg:
    """A renderer to measure text with (one pixel: it draws nothing)."""
    return RendererAgg(1, 1, dpi)  # type: ignore[no-untyped-call]


def year_once(labels: Sequence[str], frequency: str) -> list[str]:
    """Tick labels of consecutive ticks, left to right, as an axis writes them. A week is
    written as its week (``W05``) with its year on a line beneath where a reader needs it: on
    the first tick and on the first of each new year (``W05`` over ``2024``, ``W09``, ``W13``,
    ..., ``W01`` over ``2025``), so that a label takes the width of ``W05`` rather than of
    ``2024-W05`` and a panel holds about twice as many. Months in full (``2024-07``: a month
    without its year, ``07``, would read as a day or a number)."""
    if frequency != WEEKLY:
        return list(labels)
    written, last_year = [], None
    for label in labels:
        year, _, week = label.partition("-")
        written.append(week if year == last_year else f"{week}\n{year}")
        last_year = year
    return written


class PeriodFormatter(Formatter):
    """Tick labels as the period of the data's frequency that starts there: ``2024-07``; a
    week without its year after a tick of its year (:func:`year_once`)."""

    def __init__(self, frequency: str) -> None:
        self.frequency = frequency

    def __call__(self, x: float, pos: int | None = None) -> str:
        return _date_label(float(x), self.frequency)

    def format_ticks(self, values: Sequence[float]) -> list[str]:
        return year_once([self(value) for value in values], self.frequency)


@functools.lru_cache(maxsize=4096)
def _date_label(x: float, frequency: str) -> str:
    day = _num2date(x).replace(tzinfo=None)
    return period_label(pd.Period(day, freq=frequency))


class PeriodColumnFormatter(Formatter):
    """Tick labels of an axis of period columns: the period of column ``round(x)``, a week
    without its year after a tick of its year (:func:`year_once`)."""

    def __init__(self, columns: pd.PeriodIndex) -> None:
        self.labels: Sequence[str] = list(period_labels(columns))
        self.frequency = columns.freqstr

    def __call__(self, x: float, pos: int | None = None) -> str:
        column = round(float(x))
        return self.labels[column] if 0 <= column < len(self.labels) else ""

    def format_ticks(self, values: Sequence[float]) -> list[str]:
        return year_once([self(value) for value in values], self.frequency)


def set_time_axis(ax: Axes, limits: tuple[np.datetime64, np.datetime64], frequency: str) -> None:
    """Time limits, a :class:`TimeLocator` and period labels of ``frequency`` (a pandas period
    frequency, ``"M"`` or ``"W-SUN"``) for ``ax``."""
    ax.set_xlim(*limits)  # type: ignore[arg-type]  # the stubs know no datetime64 limits
    ax.xaxis.set_major_locator(TimeLocator(frequency))
    ax.xaxis.set_major_formatter(PeriodFormatter(frequency))


def time_axis(ax: Axes, periods: Iterable[object]) -> np.ndarray:
    """``ax``'s x axis as every chart's time axis over ``periods`` (consecutive periods of one
    frequency, as Periods or any spelling ``parse_periods`` reads): from half a period before the
    first to half a period after the last, ticks and labels chosen as the charts' are. Returns
    the x of each period (its start) to draw against, in the order given."""
    index = pd.PeriodIndex(parse_periods(list(periods)))
    if index.empty:
        raise ArgumentError("periods must name at least one period to draw a time axis over")
    set_time_axis(ax, window_limits(index.min(), index.max()), index.freqstr)
    return to_x(index)


def set_period_columns(ax: Axes, columns: pd.PeriodIndex) -> None:
    """Period labels of ``columns`` (column ``i`` centred on x = ``i``) on ``ax``'s x axis, at
    ticks a :class:`PeriodColumnLocator` chooses."""
    ax.xaxis.set_major_locator(PeriodColumnLocator(columns))
    ax.xaxis.set_major_formatter(PeriodColumnFormatter(columns))
