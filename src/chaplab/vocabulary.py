"""The words the wire and every layer share: periods, backtest splits, horizons, quantile levels,
job statuses and types, dataset types and their target column, and how a GeoJSON feature names
its org unit.

Written once, standard library only, and used by the client, frames, widgets and the service.

Periods. Monthly periods arrive as ``202101`` or ``2021-01``, weekly ones as ``2021W05`` or
``2021-W05`` (chap-core's spellings are the dashed ones; ISO 8601 weeks: a year has 52 or 53
weeks, week 1 holds the year's first Thursday). Every layer writes the canonical forms ``202101``
and ``2021W05``.

Arithmetic works on an integer *ordinal* per period type (months since year 0, weeks since the
proleptic Gregorian epoch), so that next/previous periods and ranges are exact across year ends.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from numbers import Integral
from typing import Any

# -- quantile levels -------------------------------------------------------------------------

DEFAULT_QUANTILES: tuple[float, ...] = (0.1, 0.25, 0.5, 0.75, 0.9)
"""The quantile levels asked for when a caller names none."""

# -- split views -----------------------------------------------------------------------------

ALL_SPLITS = "all"
"""The ``split_period`` that asks a chart for every split of an evaluation, each in a panel of
its own (a chart shows one split by default)."""

# -- job statuses ----------------------------------------------------------------------------

SUCCESS = "SUCCESS"
FAILURE = "FAILURE"
REVOKED = "REVOKED"
PENDING = "PENDING"
STARTED = "STARTED"
NON_TERMINAL_STATUSES: frozenset[str] = frozenset(
    {PENDING, "RUNNING", STARTED, "QUEUED", "PROCESSING"}
)
"""Statuses of a job that has not stopped yet (Celery's and ours); any other status is final."""


def normalize_status(status: str) -> str:
    """The status as compared: stripped and upper-cased."""
    return status.strip().upper()


def is_terminal_status(status: str) -> bool:
    """True when the job has stopped: any status outside the non-terminal set."""
    return normalize_status(status) not in NON_TERMINAL_STATUSES


# -- job types -------------------------------------------------------------------------------


class JobType(StrEnum):
    """What a job of the embedded service does, as a job's ``type`` names it on the wire.

    The service's registry of job types: each has one payload builder and one kind of work in
    the service, and one table its result row is stored in."""

    CREATE_BACKTEST = "create_backtest"
    """Evaluate a configured model on a stored dataset; stores an evaluation."""
    MAKE_PREDICTION = "make_prediction"
    """Forecast after data sent inline; stores the data and a prediction."""
    CREATE_DATASET = "create_dataset"
    """Store a validated dataset."""


# -- datasets --------------------------------------------------------------------------------

TARGET_COLUMN = "disease_cases"
"""The feature evaluations forecast and are scored against."""
EVALUATION_DATASET = "evaluation"
PREDICTION_DATASET = "prediction"
DATASET_TYPES = (EVALUATION_DATASET, PREDICTION_DATASET)
"""What a dataset is for: evaluating models on its history, or forecasting from it (future
covariates, which may come without cases)."""


def missing_target(columns: Iterable[str], dataset_type: str) -> str | None:
    """Why a dataset with ``columns`` cannot be stored as ``dataset_type``: its lack of the
    :data:`TARGET_COLUMN`, said with the columns it has; None when it has the target or is a
    prediction dataset. Checked when a dataset is stored, so a dataset without cases is refused
    at upload instead of failing at its first evaluation."""
    found = list(columns)
    if dataset_type == PREDICTION_DATASET or TARGET_COLUMN in found:
        return None
    listed = ", ".join(found) if found else "none"
    return (
        f"has no {TARGET_COLUMN!r} column, the cases an evaluation forecasts (columns found: "
        f"{listed}); store data without cases as type {PREDICTION_DATASET!r}"
    )


# -- GeoJSON org-unit ids -------------------------------------------------------------------


def feature_id(feature: Mapping[str, Any]) -> str | None:
    """The org-unit id of a GeoJSON feature, read as chap-core reads it (``Polygons._add_ids``
    in ``chap_core/geometry.py``): the feature's own ``id`` when it has one, otherwise its
    ``properties.id``; as text, or None when it has neither.

    A feature's ``id`` that is empty (``""``, ``0``) counts as none, as it does in chap-core."""
    own = feature.get("id")
    if own:
        return str(own)
    properties = feature.get("properties")
    identifier = properties.get("id") if isinstance(properties, Mapping) else None
    return None if identifier is None else str(identifier)


def feature_ids(geojson: Mapping[str, Any]) -> list[str | None]:
    """The org-unit id (:func:`feature_id`) of each feature of a GeoJSON FeatureCollection, in
    the features' order; None for a feature without one or that is not an object."""
    features = geojson.get("features")
    if not isinstance(features, list):
        return []
    return [feature_id(f) if isinstance(f, Mapping) else None for f in features]


# -- periods ---------------------------------------------------------------------------------

MONTH = "month"
WEEK = "week"
PERIOD_TYPES = (MONTH, WEEK)
FIRST_YEAR, LAST_YEAR = date.min.year, date.max.year
"""Periods lie in years 1 to 9999, the calendar's (and four digits') range."""

_MONTH_PATTERN = re.compile(r"^(\d{4})-?(\d{2})$")
_WEEK_PATTERN = re.compile(r"^(\d{4})-?W(\d{1,2})$", re.IGNORECASE)


def parse_period(value: str) -> tuple[str, int]:
    """Return ``(period_type, ordinal)`` of a period string; ValueError naming a bad value."""
    if not isinstance(value, str):
        raise ValueError(f"period {value!r} must be a string such as '202101' or '2021W05'")
    text = value.strip()
    week_match = _WEEK_PATTERN.match(text)
    if week_match:
        year, week = int(week_match.group(1)), int(week_match.group(2))
        try:
            monday = date.fromisocalendar(year, week, 1)
        except ValueError:
            raise ValueError(
                f"period {value!r} is not a valid ISO week: {year} has "
                f"{iso_weeks_in_year(year)} weeks"
            ) from None
        return WEEK, monday.toordinal() // 7
    month_match = _MONTH_PATTERN.match(text)
    if month_match:
        year, month = int(month_match.group(1)), int(month_match.group(2))
        if year < FIRST_YEAR:
            raise ValueError(f"period {value!r} is in year 0; years run from 0001 to 9999")
        if not 1 <= month <= 12:
            raise ValueError(f"period {value!r} has month {month}, expected 01 to 12")
        return MONTH, year * 12 + month - 1
    raise ValueError(
        f"period {value!r} is not a period: expected monthly '202101'/'2021-01' "
        "or weekly '2021W05'/'2021-W05'"
    )


def format_period(period_type: str, ordinal: int) -> str:
    """Canonical string of the period with this ordinal: ``202101`` or ``2021W05``; ValueError
    for a period outside the years 0001 to 9999."""
    if period_type == MONTH:
        year, month_index = divmod(ordinal, 12)
        if not FIRST_YEAR <= year <= LAST_YEAR:
            raise ValueError(f"a period in year {year} is outside the years 0001 to 9999")
        return f"{year:04d}{month_index + 1:02d}"
    if period_type == WEEK:
        try:
            year, week, _ = date.fromordinal(ordinal * 7 + 1).isocalendar()
        except (ValueError, OverflowError):
            raise ValueError("a period outside the years 0001 to 9999") from None
        return f"{year:04d}W{week:02d}"
    raise ValueError(f"period type {period_type!r} is not one of {', '.join(PERIOD_TYPES)}")


def period_sort_key(value: str) -> tuple[int, int]:
    """Chronological sort key of a period string; ValueError for a string that is no period.

    Months sort before weeks of the same calendar position only when mixed, which no valid
    series is; within one type the key is the ordinal.
    """
    period_type, ordinal = parse_period(value)
    return (PERIOD_TYPES.index(period_type), ordinal)


def sorted_periods(values: Iterable[str]) -> list[str]:
    """Period strings in chronological order, each spelled as given."""
    return sorted(values, key=period_sort_key)


def canonical_period(value: str) -> str:
    """The canonical spelling of a period string (``2021-01`` -> ``202101``)."""
    return format_period(*parse_period(value))


def readable_period(canonical: str) -> str:
    """A canonical period as people read it: ``202407`` -> ``2024-07``, ``2024W05`` ->
    ``2024-W05``."""
    return f"{canonical[:4]}-{canonical[4:]}"


def period_type_of(value: str) -> str:
    """``"month"`` or ``"week"``."""
    return parse_period(value)[0]


def shift_period(value: str, steps: int) -> str:
    """The period ``steps`` periods after ``value`` (before it when negative)."""
    period_type, ordinal = parse_period(value)
    return format_period(period_type, ordinal + steps)


def next_period(value: str) -> str:
    """The period right after ``value``."""
    return shift_period(value, 1)


def previous_period(value: str) -> str:
    """The period right before ``value``."""
    return shift_period(value, -1)


def periods_after(value: str, count: int) -> list[str]:
    """The ``count`` periods following ``value``, in order."""
    period_type, ordinal = parse_period(value)
    return [format_period(period_type, ordinal + step) for step in range(1, count + 1)]


def period_range(first: str, last: str) -> list[str]:
    """All periods from ``first`` to ``last`` inclusive; both must be of the same type."""
    first_type, first_ordinal = parse_period(first)
    last_type, last_ordinal = parse_period(last)
    if first_type != last_type:
        raise ValueError(
            f"periods {first!r} ({first_type}) and {last!r} ({last_type}) differ in type"
        )
    if last_ordinal < first_ordinal:
        raise ValueError(f"period range ends at {last!r}, before its start {first!r}")
    return [format_period(first_type, o) for o in range(first_ordinal, last_ordinal + 1)]


def season_position(value: str) -> int:
    """Position of a period within its year, from 0: month - 1, or ISO week - 1 (week 53 -> 51)."""
    period_type, ordinal = parse_period(value)
    if period_type == MONTH:
        return ordinal % 12
    week = date.fromordinal(ordinal * 7 + 1).isocalendar()[1]
    return min(week, 52) - 1


def season_length(period_type: str) -> int:
    """Periods per year used for seasonal structure: 12 months or 52 weeks."""
    if period_type == MONTH:
        return 12
    if period_type == WEEK:
        return 52
    raise ValueError(f"period type {period_type!r} is not one of {', '.join(PERIOD_TYPES)}")


def iso_weeks_in_year(year: int) -> int:
    """52 or 53: the ISO week of 28 December is always the year's last week."""
    return date(year, 12, 28).isocalendar()[1]


# -- backtest splits and horizons ------------------------------------------------------------


@dataclass(frozen=True)
class SplitWindow:
    """One split of a rolling-origin backtest over a series of periods.

    A split is named by its ``split_period``, its first forecast period, as chap-core names it.
    The model sees ``periods[:history_end]`` and forecasts ``periods[forecast.start:forecast.stop]``
    (``forecast`` starts at ``history_end``), which are ``forecast_periods``.
    """

    split_period: str
    history_end: int
    forecast: range
    forecast_periods: tuple[str, ...]

    @property
    def forecast_slice(self) -> slice:
        """``forecast`` as a slice, to cut the forecast window out of a series or an array."""
        return slice(self.forecast.start, self.forecast.stop)


def evaluated_periods(n_periods: int, n_splits: int, stride: int) -> int:
    """How many periods a backtest's forecasts span, from the first split period to the last
    forecast period; the series needs this many plus the history before the first split."""
    return n_periods + (n_splits - 1) * stride


def split_windows(
    periods: Sequence[str], n_periods: int, n_splits: int, stride: int
) -> list[SplitWindow]:
    """The ``n_splits`` splits of a backtest on ``periods`` (a series in time order), oldest first.

    Each split forecasts ``n_periods`` periods; consecutive splits start ``stride`` periods
    apart and the last split's forecast ends at the last period. Every split keeps at least one
    period of history. ValueError naming the argument for a count that is no positive integer,
    or when ``periods`` is too short for the splits.
    """
    for name, value in (("n_periods", n_periods), ("n_splits", n_splits), ("stride", stride)):
        if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    n_periods, n_splits, stride = int(n_periods), int(n_splits), int(stride)
    needed = 1 + evaluated_periods(n_periods, n_splits, stride)
    if len(periods) < needed:
        raise ValueError(
            f"periods: n_periods={n_periods}, n_splits={n_splits} and stride={stride} need at "
            f"least {needed} periods (one of history before the first split), got {len(periods)}"
        )
    last_start = len(periods) - n_periods
    windows = []
    for k in range(n_splits):
        start = last_start - (n_splits - 1 - k) * stride
        forecast = range(start, start + n_periods)
        windows.append(
            SplitWindow(
                split_period=periods[start],
                history_end=start,
                forecast=forecast,
                forecast_periods=tuple(periods[start : start + n_periods]),
            )
        )
    return windows


CLIMATOLOGY_WEATHER = "climatology"
"""The future weather a backtest gives a model by default: each covariate's mean of that month
or week over the history (``chaplab.climatology.future_values``), no data from the window."""
OBSERVED_WEATHER = "observed"
"""The future weather of a look-ahead backtest: the window's own observed covariates."""


def retrain_splits(n_splits: int, n_retrain: int) -> set[int]:
    """The splits (from 0) a backtest trains a model at: ``n_retrain`` evenly spaced ones, the
    first always, as chap-core 2.5.1 chooses them; every split is predicted by the latest
    training at or before it."""
    return {(j * n_splits) // n_retrain for j in range(max(1, min(n_retrain, n_splits)))}


FIRST_HORIZON = 1
"""The horizon of a forecast's first period (chap-core's ``horizon_distance`` counts so)."""


def forecast_horizon(first_forecast_period: str, period: str) -> int:
    """How far ahead ``period`` lies in a forecast whose first period is
    ``first_forecast_period`` (a split period, or a prediction's first period): 1 for that
    period itself, 2 for the next, and so on.

    ValueError when the two differ in period type or ``period`` comes before the first one.
    """
    first_type, first_ordinal = parse_period(first_forecast_period)
    period_type, ordinal = parse_period(period)
    if first_type != period_type:
        raise ValueError(
            f"period {period!r} ({period_type}) and first forecast period "
            f"{first_forecast_period!r} ({first_type}) differ in type"
        )
    if ordinal < first_ordinal:
        raise ValueError(
            f"period {period!r} comes before the first forecast period "
            f"{first_forecast_period!r}: it has no horizon"
        )
    return ordinal - first_ordinal + FIRST_HORIZON
