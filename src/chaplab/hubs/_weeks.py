"""A hub's reference date, horizon and target end date <-> chaplab's split period, period and
horizon: the one mapping both ways, on :mod:`chaplab.weeks`' rule.

A weekly hub names a forecast by its round's ``reference_date`` (a Saturday), its ``horizon``
in weeks and the ``target_end_date`` of the forecast week (the Saturday ending an
epidemiological week, ``reference_date + 7 * horizon``). chaplab names it by the ISO week that
labels each epidemiological week (:func:`chaplab.weeks.iso_week_of_date` of its Saturday):

- ``period``: the ISO week of the target end date;
- ``split_period``: the first week the hub's models had no data of, the ISO week of
  ``reference_date + 7 * first_forecast_horizon``. By default ``first_forecast_horizon`` is 0:
  the week ending on the reference date, which is still under way when the hub's forecasts are
  due (the hubverse's convention, and the example hub's: submissions close on the Wednesday
  before the reference date). A hub whose reference week is already reported when forecasts are
  due forecasts from horizon 1: pass ``first_forecast_horizon=1``;
- ``horizon``: chaplab's count from 1 at the split period, ``hub horizon -
  first_forecast_horizon + 1``.

A hub row whose horizon lies below ``first_forecast_horizon`` (chaplab horizon 0 or below) is a
*nowcast*: an estimate of a week the models had already seen part of. It has no place in a
chaplab forecast frame (a split forecasts only weeks after its history), so the readers keep
such rows in a frame of their own and never score them beside forecasts.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from chaplab import vocabulary
from chaplab.errors import ArgumentError
from chaplab.weeks import iso_week_of_date, saturday_of_iso_week

WEEK = datetime.timedelta(days=7)
SATURDAY = 5
"""``date.weekday()`` of a Saturday, the last day of an epidemiological week."""


@dataclass(frozen=True)
class ChaplabWeek:
    """Where a hub's forecast of one week stands in chaplab's frames."""

    split_period: str
    period: str
    horizon: int

    @property
    def is_nowcast(self) -> bool:
        """True for a week before the split period: a nowcast, kept apart from forecasts."""
        return self.horizon < vocabulary.FIRST_HORIZON


@dataclass(frozen=True)
class HubWeek:
    """Where a chaplab forecast of one week stands in a hub's model output."""

    reference_date: datetime.date
    horizon: int
    target_end_date: datetime.date


def week_end(day: datetime.date, what: str) -> datetime.date:
    """``day`` if it is a Saturday (the end of an epidemiological week); ArgumentError naming
    ``what`` otherwise."""
    if day.weekday() != SATURDAY:
        raise ArgumentError(
            f"{what} {day.isoformat()} is a {day.strftime('%A')}: a weekly hub's dates end "
            "epidemiological weeks, on Saturdays"
        )
    return day


def to_chaplab(
    reference_date: datetime.date, horizon: int, *, first_forecast_horizon: int = 0
) -> ChaplabWeek:
    """The split period, period and chaplab horizon of a hub's forecast of the week ``horizon``
    weeks after ``reference_date`` (see the module's docstring for the rule)."""
    reference = week_end(reference_date, "reference_date")
    split_period = iso_week_of_date(reference + first_forecast_horizon * WEEK)
    period = iso_week_of_date(reference + horizon * WEEK)
    return ChaplabWeek(
        split_period, period, horizon - first_forecast_horizon + vocabulary.FIRST_HORIZON
    )


def to_hub(split_period: str, period: str, *, first_forecast_horizon: int = 0) -> HubWeek:
    """The reference date, hub horizon and target end date of chaplab's forecast of
    ``period`` from ``split_period`` (ISO weeks, any spelling of :mod:`chaplab.vocabulary`):
    the inverse of :func:`to_chaplab`."""
    first = saturday_of_iso_week(split_period)
    target_end_date = saturday_of_iso_week(period)
    reference_date = first - first_forecast_horizon * WEEK
    horizon = (target_end_date - reference_date).days // 7
    return HubWeek(reference_date, horizon, target_end_date)
