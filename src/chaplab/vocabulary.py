"""The words the wire and every layer share: periods, backtest splits, horizons, quantile levels,
job statuses and types, dataset types and their target column, the names configured models
are stored under, how a GeoJSON feature names its org unit, and the features of org units
without boundaries.

Written once, standard library only, and used by the client, frames, widgets and the service.

Periods. Monthly periods arrive as ``202101`` or ``2021-01``, weekly ones as ``2021W05`` or
``2021-W05`` (ISO 8601 weeks, Monday to Sunday: a year has 52 or 53 weeks, week 1 holds the
year's first Thursday), or as the week's dates ``2021-02-01/2021-02-07``, the text pandas writes
for a weekly Period and chap-core writes in its dataset CSV and frames; any other range of dates
is refused. The wire's canonical forms are ``202101`` and ``2021W05``; people read ``2021-01``
and ``2021-W05`` (:func:`readable_period`).

Arithmetic works on an integer *ordinal* per period type (months since year 0, weeks since the
proleptic Gregorian epoch), so that next/previous periods and ranges are exact across year ends.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date, timedelta
from enum import StrEnum
from numbers import Integral
from typing import Any

from chaplab.errors import ArgumentError, ArgumentTypeError

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
    """What a job does, as a job's ``type`` names it on the wire: chap-core 2.5.1's names, by
    which the DHIS2 Modeling App filters its job list.

    The embedded service's registry of job types: each has one payload type and one kind of
    work in the service, and one table its result row is stored in."""

    CREATE_BACKTEST = "create_backtest"
    """Evaluate a configured model on a stored dataset (``create-backtest``, a batch's models);
    stores an evaluation."""
    CREATE_BACKTEST_FROM_DATA = "create_backtest_from_data"
    """Evaluate a configured model on data sent with the request
    (``create-backtest-with-data/``); stores an evaluation."""
    RUN_BASELINE = "run_baseline"
    """Evaluate a baseline the service queued on a backtest specification; stores an
    evaluation."""
    CREATE_PREDICTION = "create_prediction"
    """Forecast after data sent inline (``make-prediction``, a prediction setup's run); stores
    the data and a prediction."""
    CREATE_DATASET = "create_dataset"
    """Store a validated dataset (``make-dataset``)."""


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


# -- configured models -----------------------------------------------------------------------

DEFAULT_CONFIGURATION = "default"
"""The name of a template's configuration that is stored under the template's own name."""


def configured_model_name(template: str, name: str) -> str:
    """The name a configured model ``name`` of the template ``template`` is stored and run
    under, on chap-core 2.5.1 as on chaplab's service: ``template:name``, or the template's own
    name for :data:`DEFAULT_CONFIGURATION`."""
    return template if name == DEFAULT_CONFIGURATION else f"{template}:{name}"


# -- GeoJSON org units -----------------------------------------------------------------------


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


def unlocated_features(
    names: Mapping[str, str], parents: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """A FeatureCollection of one feature per org unit, in the order of ``names`` (id -> name):
    its id (as ``id`` and ``properties.id``), name and parent's name (``parentName``, when
    ``parents`` gives one) and a null geometry, an "unlocated" feature of RFC 7946: the org
    units of a table without boundaries, none made up. chaplab's service and chap-core 2.5.1
    both accept such features."""
    features = [
        {
            "type": "Feature",
            "id": org_unit,
            "properties": {
                "id": org_unit,
                "name": name,
                **({"parentName": parents[org_unit]} if parents else {}),
            },
            "geometry": None,
        }
        for org_unit, name in names.items()
    ]
    return {"type": "FeatureCollection", "features": features}


# -- periods ---------------------------------------------------------------------------------

MONTH = "month"
WEEK = "week"
PERIOD_TYPES = (MONTH, WEEK)
FIRST_YEAR, LAST_YEAR = date.min.year, date.max.year
"""Periods lie in years 1 to 9999, the calendar's (and four digits') range."""

_MONTH_PATTERN = re.compile(r"^(\d{4})-?(\d{2})$")
_WEEK_PATTERN = re.compile(r"^(\d{4})-?W(\d{1,2})$", re.IGNORECASE)
_DATE_RANGE_PATTERN = re.compile(r"^(\d{4}-\d{2}-\d{2})/(\d{4}-\d{2}-\d{2})$")
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


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
    range_match = _DATE_RANGE_PATTERN.match(text)
    if range_match:
        return WEEK, _week_of_range(value, range_match.group(1), range_match.group(2))
    raise ValueError(
        f"period {value!r} is not a period: expected monthly '202101'/'2021-01' "
        "or weekly '2021W05'/'2021-W05'/'2021-02-01/2021-02-07'"
    )


def _week_of_range(value: str, first: str, last: str) -> int:
    """The week ordinal of a range of dates that is an ISO week (a Monday to the Sunday after
    it); ValueError naming ``value`` for any other range."""
    days = []
    for text in (first, last):
        try:
            days.append(date.fromisoformat(text))
        except ValueError:
            raise ValueError(f"period {value!r} is no range of dates: {text} is no date") from None
    start, end = days
    if start.isoweekday() == 1 and (end - start).days == 6:
        return start.toordinal() // 7
    monday = start - timedelta(days=start.isoweekday() - 1)
    week = readable_period(format_period(WEEK, monday.toordinal() // 7))
    span = (
        "ends before it starts"
        if end < start
        else f"runs {(end - start).days + 1} days from a {_WEEKDAYS[start.isoweekday() - 1]}"
    )
    raise ValueError(
        f"period {value!r} {span}, so it is no ISO week: a weekly period runs from a Monday to "
        f"the Sunday after it, such as '{monday}/{monday + timedelta(days=6)}' ({week})"
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


def period_start(value: str) -> date:
    """The first day of a period: a month's 1st, an ISO week's Monday."""
    period_type, ordinal = parse_period(value)
    if period_type == MONTH:
        year, month_index = divmod(ordinal, 12)
        return date(year, month_index + 1, 1)
    return date.fromordinal(ordinal * 7 + 1)


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


# -- backtest plans ---------------------------------------------------------------------------

MAX_HORIZON = 520
"""The most periods one forecast reaches ahead, and the longest step between splits: ten years
of weeks."""
MAX_SPLITS = 1000
"""The most splits of one backtest."""


@dataclass(frozen=True)
class PlanSetting:
    """One setting of a :class:`BacktestPlan`: its name as an argument (``n_splits``) and on the
    wire (``nSplits``), its label and description as forms show them, its default and range."""

    name: str
    wire_name: str
    label: str
    description: str
    default: int
    maximum: int
    minimum: int = 1

    def allowed(self) -> str:
        """The range in words: ``from 1 to 1000``."""
        return f"from {self.minimum} to {self.maximum}"

    def check(self, value: object) -> int:
        """``value`` as an int when it is a whole number in range (a numpy integer counts);
        ArgumentTypeError for another type, :class:`PlanError` for a number out of range."""
        if isinstance(value, bool) or not isinstance(value, Integral):
            raise ArgumentTypeError(
                f"{self.name} must be an int, got {type(value).__name__} {value!r}"
            )
        number = int(value)
        if not self.minimum <= number <= self.maximum:
            raise PlanError(self, f"must be a whole number {self.allowed()}, got {number}")
        return number


class PlanError(ArgumentError):
    """A backtest plan refused: ``setting`` is the setting to change and ``reason`` says why,
    worded to follow the setting's name or label (``n_splits is 118, too many for the data:
    ...``)."""

    def __init__(self, setting: PlanSetting, reason: str) -> None:
        self.setting = setting
        self.reason = reason
        super().__init__(f"{setting.name} {reason}")


N_PERIODS = PlanSetting(
    "n_periods", "nPeriods", "Forecast periods", "periods ahead", 3, MAX_HORIZON
)
N_SPLITS = PlanSetting("n_splits", "nSplits", "Number of splits", "split points", 7, MAX_SPLITS)
STRIDE = PlanSetting(
    "stride", "stride", "Step between splits", "periods between splits", 1, MAX_HORIZON
)
N_RETRAIN = PlanSetting(
    "n_retrain",
    "nRetrain",
    "Number of training runs",
    "trainings, evenly spaced over the splits; at most the number of splits",
    1,
    MAX_SPLITS,
)
PLAN_SETTINGS = (N_PERIODS, N_SPLITS, STRIDE, N_RETRAIN)
"""The settings of a backtest plan, in the order forms show them; the defaults are chap-core
2.5.1's."""


@dataclass(frozen=True)
class BacktestPlan:
    """How a rolling-origin backtest cuts a series: ``n_splits`` splits, each forecasting
    ``n_periods`` periods, split periods ``stride`` apart, the last split's forecast ending at
    the series' last period, and the model trained at ``n_retrain`` evenly spaced splits.

    Every layer that takes these settings makes a plan of them (the client's arguments, the
    wire's requests, a job's payload, the widgets' inputs, local backtests), so they are
    checked here once: each is a whole number in its :data:`PLAN_SETTINGS` range (else
    :class:`PlanError`, or ArgumentTypeError for a value that is no integer), and ``n_retrain``
    is at most ``n_splits``, as in chap-core. Whether a plan fits a series, given the periods a
    model trains on before its first forecast, is :meth:`misfit`; the launcher's limit is
    :meth:`most_splits`, the same arithmetic."""

    n_periods: int = N_PERIODS.default
    n_splits: int = N_SPLITS.default
    stride: int = STRIDE.default
    n_retrain: int = N_RETRAIN.default

    def __post_init__(self) -> None:
        for setting in PLAN_SETTINGS:
            object.__setattr__(self, setting.name, setting.check(getattr(self, setting.name)))
        if self.n_retrain > self.n_splits:
            raise PlanError(
                N_RETRAIN,
                f"is {self.n_retrain}, more than the {self.n_splits} splits (a model is trained "
                "at most once per split)",
            )

    @classmethod
    def given(cls, **settings: int | None) -> BacktestPlan:
        """A plan of the settings given, the defaults for those that are None (a client sends
        only what its caller gave, and a server's defaults are these)."""
        return cls(**{name: value for name, value in settings.items() if value is not None})

    @property
    def evaluated_periods(self) -> int:
        """How many periods the forecasts span, from the first split period to the last
        forecast period."""
        return self.n_periods + (self.n_splits - 1) * self.stride

    def history_needed(self, training_periods: int = 1) -> int:
        """How many periods a series needs: ``training_periods`` before the first split (the
        periods a model trains on before it forecasts; at least one), then the evaluated ones."""
        return max(1, training_periods) + self.evaluated_periods

    def most_splits(self, history_periods: int, training_periods: int = 1) -> int:
        """The most splits of this plan's ``n_periods`` and ``stride`` that a series of
        ``history_periods`` periods holds for a model that trains on ``training_periods``
        (0 when not even one split fits; at most :data:`MAX_SPLITS`)."""
        room = history_periods - max(1, training_periods) - self.n_periods
        return 0 if room < 0 else min(MAX_SPLITS, room // self.stride + 1)

    def misfit(self, history_periods: int, training_periods: int = 1) -> PlanError | None:
        """Why the plan does not fit a series of ``history_periods`` periods for a model that
        trains on ``training_periods`` before the first split: a :class:`PlanError` naming the
        setting to change (``n_periods`` when one split's forecast alone does not fit,
        ``stride`` when the splits would fit closer together, else ``n_splits``) and what fits;
        None when the plan fits."""
        training = max(1, training_periods)
        most = self.most_splits(history_periods, training)
        if self.n_splits <= most:
            return None
        if most == 0:
            fits = history_periods - training
            return PlanError(
                N_PERIODS,
                f"is {self.n_periods}, too many for the data: {self.n_periods} forecast periods "
                f"need at least {training + self.n_periods} periods ({training} to train the "
                f"model on before them), the data has {history_periods}; "
                + (f"at most {fits} fit" if fits > 0 else "not even one fits"),
            )
        splits = (
            f"{self.n_splits} splits of {self.n_periods} periods"
            + ("" if self.stride == 1 else f", {self.stride} apart,")
            + f" need at least {self.history_needed(training)} periods ({training} to train the "
            f"model on before the first split, {self.evaluated_periods} to evaluate), the data "
            f"has {history_periods}"
        )
        if (
            self.stride > 1
            and replace(self, stride=1).most_splits(history_periods, training) >= self.n_splits
        ):
            longest = (history_periods - training - self.n_periods) // (self.n_splits - 1)
            return PlanError(
                STRIDE, f"is {self.stride}, too long for the data: {splits}; at most {longest} fits"
            )
        return PlanError(
            N_SPLITS, f"is {self.n_splits}, too many for the data: {splits}; at most {most} fit"
        )

    def check_fits(self, history_periods: int, training_periods: int = 1) -> None:
        """Raise :meth:`misfit`'s PlanError when the plan does not fit."""
        problem = self.misfit(history_periods, training_periods)
        if problem is not None:
            raise problem

    def split_windows(self, periods: Sequence[str], training_periods: int = 1) -> list[SplitWindow]:
        """The splits of this plan on ``periods`` (a series in time order), oldest first; a
        :class:`PlanError` when they do not fit with ``training_periods`` before the first."""
        self.check_fits(len(periods), training_periods)
        last_start = len(periods) - self.n_periods
        windows = []
        for k in range(self.n_splits):
            start = last_start - (self.n_splits - 1 - k) * self.stride
            windows.append(
                SplitWindow(
                    split_period=periods[start],
                    history_end=start,
                    forecast=range(start, start + self.n_periods),
                    forecast_periods=tuple(periods[start : start + self.n_periods]),
                )
            )
        return windows

    def retrain_splits(self) -> tuple[int, ...]:
        """The splits (from 0) a model is trained at: ``n_retrain`` evenly spaced ones, the
        first always, as chap-core 2.5.1 chooses them."""
        return tuple(sorted({(j * self.n_splits) // self.n_retrain for j in range(self.n_retrain)}))

    def training_of(self, split: int) -> int:
        """The split whose training forecasts ``split``: the latest one trained at or before it."""
        return max(k for k in self.retrain_splits() if k <= split)


CLIMATOLOGY_WEATHER = "climatology"
"""The future weather a backtest gives a model by default: each covariate's mean of that month
or week over the history (``chaplab.climatology.future_values``), no data from the window."""
OBSERVED_WEATHER = "observed"
"""The future weather of a look-ahead backtest: the window's own observed covariates."""


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
