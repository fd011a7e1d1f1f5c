"""The charts' time axis: a few ticks at whole weeks, months or years, computed with numpy,
labelled in the one period format of the data's frequency (``2024-07``, ``2024-W05``).

matplotlib's date locators build ``dateutil`` rules on every call (about a millisecond), and
every panel asks its locator several times per draw; this one answers in microseconds.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import datetime

import numpy as np
import pandas as pd
from matplotlib import dates, rcParams
from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.font_manager import FontProperties
from matplotlib.textpath import TextPath
from matplotlib.ticker import Formatter, Locator

from chaplab.frames import period_label

MAX_TICKS = 6
LABEL_GAP = 0.06
"""Inches between two neighbouring time labels at least (more than a space of their type)."""
LABEL_HALF_WIDTH = 0.25
"""Inches from a tick to the end of its label: ticks closer to the axis' ends are left out, so
that no label reaches into the next panel."""
YEARS = tuple(("Y", s) for s in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000))
STEPS = (("W", 1), ("W", 2), *(("M", s) for s in (1, 2, 3, 6)), *YEARS)
MONTHLY_STEPS = (*(("M", s) for s in (1, 2, 3, 6)), *YEARS)
WEEKLY_STEPS = tuple(("W", s) for s in (1, 2, 4, 8, 13, 26, 52, 104, 260, 520, 1040, 2600))
WEEKLY = "W-SUN"
FREQUENCY_STEPS = {"M": MONTHLY_STEPS, WEEKLY: WEEKLY_STEPS}
UNIT_DAYS = {"W": 7.0, "M": 365.25 / 12, "Y": 365.25}
MONDAY = np.datetime64("1970-01-05")  # week ticks fall on Mondays, when ISO weeks start
# matplotlib.dates has no annotations: its converters as this module calls them
_date2num: Callable[[np.ndarray], np.ndarray] = dates.date2num
_num2date: Callable[[float], datetime] = dates.num2date


def to_x(periods: pd.Index | pd.Series) -> np.ndarray:
    """Periods -> the datetime64 of their start, the x coordinate of every chart."""
    starts: np.ndarray = pd.PeriodIndex(periods).to_timestamp(how="start").to_numpy()
    return starts


class TimeLocator(Locator):
    """At most ``MAX_TICKS`` ticks in view, none so close to an end that its label would stick
    out, at the finest step whose labels fit between their neighbours on the axis (the widest
    label of the frequency in the axis' tick type, and ``LABEL_GAP``): every 1 or 2 weeks
    (Mondays), 1, 2, 3 or 6 months (from January) or 1, 2, 5, 10, ... years. So a panel of two
    years, 2.5 inches wide, has a label every six months. For a frequency (``"M"`` or
    ``"W-SUN"``) ticks fall on that frequency's periods only: whole months and years for
    monthly data; for weekly data the ISO weeks counted from each year's first (``W01``,
    ``W14``, ``W27``, ``W40`` every 13 weeks; ``W01`` or ``W27`` of every year, or of every
    other, whichever leaves more labels in view)."""

    def __init__(self, frequency: str | None = None) -> None:
        self.frequency = frequency
        self.steps = FREQUENCY_STEPS.get(frequency or "", STEPS)

    # matplotlib's stubs declare Sequence[float], though its own locators return arrays too
    def __call__(self) -> np.ndarray:  # type: ignore[override]
        assert self.axis is not None, "a locator is called once set on an axis"
        return self.tick_values(*self.axis.get_view_interval())

    def tick_values(self, vmin: float, vmax: float) -> np.ndarray:  # type: ignore[override]
        low, high = sorted((float(vmin), float(vmax)))
        inches = self._inches()
        margin = 0.0 if inches is None else LABEL_HALF_WIDTH / inches * (high - low)
        room = None if inches is None else self._label_width() + LABEL_GAP
        chosen = np.empty(0)
        for unit, step in self.steps:
            if self.frequency == WEEKLY:
                # a yearly step on W01, or on W27 when that leaves more labels in view
                in_view = [
                    _in_view(_date2num(_iso_week_starts(low, high, step, week)), low, high, margin)
                    for week in ((1, 27) if step >= 52 else (1,))
                ]
                chosen = max(in_view, key=len)
            else:
                first, last = (_count(value, unit) for value in (low, high))
                counts = np.arange(first - first % step, last + step, step)
                chosen = _in_view(_date2num(_starts(counts, unit)), low, high, margin)
            apart = step * UNIT_DAYS[unit] / max(high - low, 1e-9) * (inches or 0.0)
            if len(chosen) <= MAX_TICKS and (room is None or apart >= room):
                break
        return chosen

    def _inches(self) -> float | None:
        """The width of the axis in inches, None for a locator of no axis."""
        axes = getattr(self.axis, "axes", None)
        if axes is None:
            return None
        return float(axes.get_position().width * axes.figure.get_figwidth())

    def _label_width(self) -> float:
        """Inches of the widest time label of the frequency in the axis' tick label size."""
        axis = self.axis
        assert isinstance(axis, Axis), "only an Axes' axis has a width (see _inches)"
        size = axis.get_tick_params().get("labelsize", rcParams["xtick.labelsize"])
        return _label_inches(self.frequency or "M", FontProperties(size=size).get_size_in_points())


@functools.lru_cache(maxsize=32)
def _label_inches(frequency: str, points: float) -> float:
    """Inches of the widest period label of ``frequency`` (December, week 52) in type of
    ``points`` (the font matplotlib draws tick labels with)."""
    widest = period_label(pd.Period("2024-12-23", freq=frequency))
    path = TextPath((0, 0), widest, prop=FontProperties(size=points))
    return float(path.get_extents().width) / 72


def _count(value: float, unit: str) -> int:
    """Whole weeks (since a Monday), months or years since 1970 at the date number ``value``."""
    day = np.datetime64(_num2date(value).replace(tzinfo=None), "D")
    if unit == "W":
        return int((day - MONDAY) // np.timedelta64(7, "D"))
    return int(day.astype(f"datetime64[{unit}]").astype(np.int64))


def _starts(counts: np.ndarray, unit: str) -> np.ndarray:
    """The first day of each of ``counts`` weeks, months or years (as :func:`_count` counts)."""
    starts: np.ndarray
    if unit == "W":
        starts = MONDAY + counts * np.timedelta64(7, "D")
    else:
        starts = counts.astype(f"datetime64[{unit}]").astype("datetime64[D]")
    return starts


def _in_view(ticks: np.ndarray, low: float, high: float, margin: float) -> np.ndarray:
    """The ticks at least ``margin`` inside the view from ``low`` to ``high``."""
    in_view: np.ndarray = ticks[(ticks >= low + margin) & (ticks <= high - margin)]
    return in_view


def _iso_week_starts(low: float, high: float, step: int, week: int = 1) -> np.ndarray:
    """The Mondays of the ISO weeks 1, 1 + ``step``, 1 + 2 ``step``, ... of every ISO year
    from the date number ``low`` to ``high``; for a step of a year or more (52, 104, ...) week
    ``week`` of every year, or of the years a whole number of steps from year 0."""
    first, last = (_num2date(value).year for value in (low, high))
    years = np.arange(first - 1, last + 2)
    years = years[years % max(step // 52, 1) == 0]
    week_ones = _first_iso_mondays(years)
    weeks_in_year = (_first_iso_mondays(years + 1) - week_ones).astype(np.int64) // 7
    offsets = np.arange(0, 53, step) if step < 52 else np.full(1, week - 1)
    mondays = week_ones[:, None] + (offsets * 7).astype("timedelta64[D]")[None, :]
    # week 53 of a long year only at a step of 1: at any other it would sit beside next W01
    last_week = weeks_in_year if step == 1 else np.minimum(weeks_in_year, 52)
    starts: np.ndarray = mondays[offsets[None, :] < last_week[:, None]]
    return starts


def _first_iso_mondays(years: np.ndarray) -> np.ndarray:
    """The Monday starting ISO week 1 of each of ``years``: the week of January 4."""
    january_4 = (years - 1970).astype("datetime64[Y]").astype("datetime64[D]") + 3
    mondays: np.ndarray = january_4 - ((january_4 - MONDAY).astype(np.int64) % 7).astype(
        "timedelta64[D]"
    )
    return mondays


class PeriodFormatter(Formatter):
    """Tick labels as the period of the data's frequency that starts there: ``2024-07``."""

    def __init__(self, frequency: str) -> None:
        self.frequency = frequency

    def __call__(self, x: float, pos: int | None = None) -> str:
        day = _num2date(x).replace(tzinfo=None)
        return period_label(pd.Period(day, freq=self.frequency))


def set_time_axis(ax: Axes, limits: tuple[np.datetime64, np.datetime64], frequency: str) -> None:
    """Time limits, a :class:`TimeLocator` and period labels of ``frequency`` (a pandas period
    frequency, ``"M"`` or ``"W-SUN"``) for ``ax``."""
    ax.set_xlim(*limits)  # type: ignore[arg-type]  # the stubs know no datetime64 limits
    ax.xaxis.set_major_locator(TimeLocator(frequency))
    ax.xaxis.set_major_formatter(PeriodFormatter(frequency))
