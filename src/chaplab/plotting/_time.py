"""The charts' time axis: a few ticks at whole weeks, months or years, computed with numpy.

matplotlib's date locators build ``dateutil`` rules on every call (about a millisecond), and
every panel asks its locator several times per draw; this one answers in microseconds.
"""

from __future__ import annotations

import numpy as np
from matplotlib import dates
from matplotlib.axes import Axes
from matplotlib.ticker import Locator

MAX_TICKS = 6
STEPS = (("W", 1), ("W", 2), *(("M", s) for s in (1, 2, 3, 6)))
STEPS += tuple(("Y", s) for s in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000))
UNIT_DAYS = {"W": 7.0, "M": 365.25 / 12, "Y": 365.25}
MONDAY = np.datetime64("1970-01-05")  # week ticks fall on Mondays, when ISO weeks start


class TimeLocator(Locator):
    """At most ``MAX_TICKS`` ticks in view, at the finest step that fits: every 1 or 2 weeks
    (Mondays), 1, 2, 3 or 6 months (from January) or 1, 2, 5, 10, ... years."""

    def __call__(self) -> np.ndarray:
        return self.tick_values(*self.axis.get_view_interval())

    def tick_values(self, vmin: float, vmax: float) -> np.ndarray:
        low, high = sorted((float(vmin), float(vmax)))
        unit, step = next(
            ((u, s) for u, s in STEPS if high - low <= MAX_TICKS * s * UNIT_DAYS[u]), STEPS[-1]
        )
        first, last = (_count(value, unit) for value in (low, high))
        counts = np.arange(first - first % step, last + step, step)
        ticks = dates.date2num(_starts(counts, unit))
        return ticks[(ticks >= low) & (ticks <= high)]


def _count(value: float, unit: str) -> int:
    """Whole weeks (since a Monday), months or years since 1970 at the date number ``value``."""
    day = np.datetime64(dates.num2date(value).replace(tzinfo=None), "D")
    if unit == "W":
        return int((day - MONDAY) // np.timedelta64(7, "D"))
    return int(day.astype(f"datetime64[{unit}]").astype(np.int64))


def _starts(counts: np.ndarray, unit: str) -> np.ndarray:
    """The first day of each of ``counts`` weeks, months or years (as :func:`_count` counts)."""
    if unit == "W":
        return MONDAY + counts * np.timedelta64(7, "D")
    return counts.astype(f"datetime64[{unit}]").astype("datetime64[D]")


def set_time_axis(ax: Axes, limits: tuple[np.datetime64, np.datetime64]) -> None:
    """Time limits, a :class:`TimeLocator` and concise date labels for ``ax`` and the axes that
    share its x axis."""
    locator = TimeLocator()
    ax.set_xlim(*limits)
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(dates.ConciseDateFormatter(locator))
