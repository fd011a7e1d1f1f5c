"""Which panels a chart draws: the org units and splits shown, each panel's title and window.

One split at a time by default (the last one): overlaid splits hide each other. ``split_period=
"all"`` draws each split in a panel of its own (small multiples). A panel's time window is the
forecast window of its split with ``history`` periods of actual cases before it, so the forecast
gets most of the width; an org unit's value limits cover what its panels draw.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from chaplab.errors import ArgumentError
from chaplab.frames import (
    ORG_UNIT,
    PERIOD,
    SPLIT_PERIOD,
    VALUE,
    frame_labels,
    parse_periods,
    period_label,
    resolve_org_units,
)
from chaplab.plotting._time import to_x, window_limits
from chaplab.vocabulary import ALL_SPLITS

MIN_HISTORY = 3
"""Periods of history shown before a forecast window at least, by default."""
MAX_COLUMNS = 2
"""A grid of panels has at most this many columns (as the maps): two panels and the legend
beside them fit a chart's ``MAX_WIDTH``; three made a figure of 11.8 inches, whose text an output
844 px wide (JupyterLab in a 1024 px window) shrank to 8 px."""

Window = tuple[pd.Period, pd.Period]

SPLIT_MARK = "split period"
FORECAST_START_MARK = "forecast starts"
"""What the line where a panel's forecasts start is called, in the legend and in the title
(``forecast starts 2024-W05``): a backtest's split period, a forward forecast's first period."""


@dataclass(frozen=True)
class Panel:
    """One panel: an org unit (its id), the split shown (None in a prediction frame), its title
    and the periods it spans (history included)."""

    org_unit: str
    split: pd.Period | None
    title: str
    window: Window

    @property
    def limits(self) -> tuple[np.datetime64, np.datetime64]:
        """The x limits: half a period beyond the start of the window's first and last period
        (a period is drawn at its start), so no point sits on the panel's edge."""
        return window_limits(*self.window)


@dataclass(frozen=True)
class Plan:
    """The panels of a chart (cut to ``max_panels``), their grid's columns (None: by count),
    notes for the title (which split is shown, what was cut) and the periods' frequency."""

    panels: list[Panel]
    columns: int | None
    notes: list[str]
    frequency: str
    windows: dict[pd.Period | None, Window]
    """Every split's window, shown or not."""


def plan_panels(
    frames: Sequence[pd.DataFrame],
    actuals: pd.DataFrame | None,
    org_units: str | Iterable[str] | None,
    split_period: object | None,
    history: int | None,
    max_panels: int,
    where: str = "the frame",
    top: int | None = None,
) -> Plan:
    """The panels for forecast ``frames`` (one, or two compared: their shared rows); ``top``
    keeps the org units with the most cases (:func:`most_cases`)."""
    if max_panels < 1:
        raise ArgumentError(f"max_panels must be at least 1, got {max_panels}")
    if history is not None and (isinstance(history, bool) or not isinstance(history, int)):
        raise ArgumentError(f"history must be a whole number of periods, got {history!r}")
    if history is not None and history < 0:
        raise ArgumentError(f"history must be 0 or more periods, got {history}")
    labels = frame_labels(*frames, actuals)
    available = frame_labels(frames[0])
    chosen = _org_units(org_units, available, labels, where)
    among = len(chosen)
    splits, split_note = _splits(frames[0], split_period)
    windows = forecast_windows(frames[0], history)
    if top is not None:
        drawn = [windows[split] for split in splits]
        chosen = most_cases(chosen, _of_splits(frames[0], splits), _in_windows(actuals, drawn), top)
    every = [(org_unit, split) for org_unit in chosen for split in splits]
    shown = every[:max_panels]
    many = len(splits) > 1
    panels = [
        Panel(
            org_unit,
            split,
            f"{labels[org_unit]}, split {period_label(split)}" if many else labels[org_unit],
            windows[split],
        )
        for org_unit, split in shown
    ]
    notes = [split_note] if split_note else []
    if top is not None and len(chosen) < among:
        notes.append(f"the {len(chosen)} of {among} org units with the most cases")
    if len(shown) < len(every):
        unit = "panels" if many else "org units"
        notes.append(f"first {len(shown)} of {len(every)} {unit} shown")
    columns = _split_columns(len(splits)) if many else None
    return Plan(panels, columns, notes, frames[0][PERIOD].array.freqstr, windows)


def most_cases(
    org_units: Sequence[str], frame: pd.DataFrame, actuals: pd.DataFrame | None, top: int
) -> list[str]:
    """The ``top`` of ``org_units`` with the most actual cases in all (missing counts skipped),
    or, without actual cases, the highest forecast median summed over the frame; most first, a
    tie in the given order. Hundreds of org units become a chart of the few that matter."""
    if isinstance(top, bool) or not isinstance(top, int) or top < 1:
        raise ArgumentError(f"top must be a whole number of org units, at least 1, got {top!r}")
    if actuals is not None and not actuals.empty:
        totals = actuals.groupby(ORG_UNIT, observed=True)[VALUE].sum()
    else:
        levels = frame["quantile"].to_numpy(np.float64)
        middle = levels[np.argmin(np.abs(levels - 0.5))]
        totals = frame[frame["quantile"] == middle].groupby(ORG_UNIT, observed=True)[VALUE].sum()
    totals.index = totals.index.astype(str)
    ranked = sorted(range(len(org_units)), key=lambda i: (-float(totals.get(org_units[i], 0.0)), i))
    return [org_units[i] for i in ranked[:top]]


def _of_splits(frame: pd.DataFrame, splits: Sequence[pd.Period | None]) -> pd.DataFrame:
    """The rows of the splits drawn (a prediction frame, split None, whole)."""
    if SPLIT_PERIOD not in frame.columns or None in splits:
        return frame
    return frame[frame[SPLIT_PERIOD].isin(splits)]


def _in_windows(actuals: pd.DataFrame | None, windows: Sequence[Window]) -> pd.DataFrame | None:
    """The actual cases of the periods the panels span: what "most cases" is counted over."""
    if actuals is None or actuals.empty:
        return actuals
    periods = actuals[PERIOD]
    inside = np.zeros(len(actuals), dtype=bool)
    for first, last in windows:
        inside |= ((periods >= first) & (periods <= last)).to_numpy(dtype=bool)
    return actuals[inside]


def _split_columns(splits: int) -> int:
    """Columns for an org unit's splits: one split alone, else rows of ``MAX_COLUMNS``."""
    return min(splits, MAX_COLUMNS)


def _org_units(
    wanted: str | Iterable[str] | None,
    available: dict[str, str],
    labels: dict[str, str],
    where: str,
) -> list[str]:
    """The ids of the org units to draw: those ``wanted`` (names or ids), or all of them, by
    name when the frame has names."""
    present = {org_unit: labels[org_unit] for org_unit in available}
    if wanted is not None:
        return resolve_org_units(wanted, present, where=where)
    if all(label == org_unit for org_unit, label in present.items()):
        return list(present)
    return sorted(present, key=lambda org_unit: present[org_unit].casefold())


def _splits(frame: pd.DataFrame, split_period: object | None) -> tuple[list[pd.Period | None], str]:
    """The splits to draw and a note for the title saying where the forecasts start, in the
    words of the legend's line there: which split, in words (``split 2023-02, the last of 3
    splits``; how to see the others is the docstring's: ``split_period="all"``), or where a
    prediction's forecast starts (``forecast starts 2024-W05``). Panels of every split name
    their own split."""
    every = isinstance(split_period, str) and split_period.strip().lower() == ALL_SPLITS
    if SPLIT_PERIOD not in frame.columns:
        if split_period is not None and not every:
            raise ArgumentError(
                "split_period was given but the frame has no 'split_period' column "
                "(a prediction has no splits)"
            )
        return [None], f"{FORECAST_START_MARK} {period_label(frame[PERIOD].min())}"
    present = sorted(pd.unique(frame[SPLIT_PERIOD]))
    if every:
        return list(present), ""
    wanted = present[-1] if split_period is None else parse_periods([split_period])[0]
    if wanted not in present:
        available = ", ".join(period_label(split) for split in present)
        raise ArgumentError(
            f"split period {split_period!r} is not in the frame; it has {available} "
            f"(or split_period='{ALL_SPLITS}')"
        )
    return [wanted], split_note(wanted, present)


def split_note(split: pd.Period, splits: Sequence[pd.Period]) -> str:
    """Which of ``splits`` (sorted) ``split`` is, in words: ``split 2023-02, the last of 3
    splits``, ``split 2022-W13, the 3rd of 12 splits``, or ``split 2023-02`` alone."""
    label = f"split {period_label(split)}"
    if len(splits) == 1:
        return label
    number = list(splits).index(split) + 1
    which = {1: "first", len(splits): "last"}.get(number, _ordinal(number))
    return f"{label}, the {which} of {len(splits)} splits"


def _ordinal(number: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ..., ``11th``, ``12th``, ``13th``, ``21st``."""
    suffix = "th" if 11 <= number % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10)
    return f"{number}{suffix or 'th'}"


def forecast_windows(frame: pd.DataFrame, history: int | None) -> dict[pd.Period | None, Window]:
    """Each split's window (None: the whole prediction): from ``history`` periods before its
    first forecast period (by default as many as the forecast has, at least ``MIN_HISTORY``) to
    its last forecast period."""
    if SPLIT_PERIOD in frame.columns:
        spans = frame.groupby(SPLIT_PERIOD, observed=True)[PERIOD].agg(["min", "max"])
        ranges = {split: (row["min"], row["max"]) for split, row in spans.iterrows()}
    else:
        ranges = {None: (frame[PERIOD].min(), frame[PERIOD].max())}
    windows: dict[pd.Period | None, Window] = {}
    for split, (first, last) in ranges.items():
        length = (last - first).n + 1
        before = max(length, MIN_HISTORY) if history is None else history
        windows[split] = (first - before, last)
    return windows


def value_limits(values: np.ndarray) -> tuple[float, float]:
    """y-limits that hold every value; from 0 when nothing is negative (counts)."""
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return 0.0, 1.0
    low, high = float(finite.min()), float(finite.max())
    bottom = 0.0 if low >= 0 else low - 0.05 * (high - low)
    top = high + 0.05 * (high - bottom) if high > bottom else bottom + 1.0
    return bottom, top


def org_unit_value_limits(
    frames: Sequence[pd.DataFrame],
    actuals: pd.DataFrame | None,
    windows: Iterable[Window],
    org_unit: str,
) -> tuple[float, float]:
    """The y-limits of one org unit over the rows of ``frames`` (the forecasts its panels draw)
    and its actual cases in the ``windows`` its panels span (and where their line crosses the
    windows' edges)."""
    values = [
        frame.loc[frame[ORG_UNIT] == org_unit, VALUE].to_numpy(np.float64) for frame in frames
    ]
    if actuals is not None and not actuals.empty:
        spans = list(windows)
        first, last = min(w[0] for w in spans), max(w[1] for w in spans)
        mine = actuals[actuals[ORG_UNIT] == org_unit].sort_values(PERIOD)
        inside = (mine[PERIOD] >= first) & (mine[PERIOD] <= last)
        values.append(mine.loc[inside, VALUE].to_numpy(np.float64))
        values.append(_edge_values(mine, first, last))
    return value_limits(np.concatenate(values))


def _edge_values(actuals: pd.DataFrame, first: pd.Period, last: pd.Period) -> np.ndarray:
    """Where the line of ``actuals`` (sorted by period) crosses the panels' left and right
    edges, half a period outside ``first`` and ``last``: a peak just outside the window still
    draws part of its line inside, and the value limits must hold that part too."""
    if actuals.empty:
        return np.empty(0)
    x = _nanoseconds(to_x(actuals[PERIOD]))
    edges = _nanoseconds(np.array(window_limits(first, last)))
    y = actuals[VALUE].to_numpy(np.float64)
    crossings: np.ndarray = np.interp(edges, x, y, left=np.nan, right=np.nan)
    return crossings


def _nanoseconds(times: np.ndarray) -> np.ndarray:
    """datetime64 values as whole nanoseconds, to interpolate between."""
    return times.astype("datetime64[ns]").astype(np.int64)
