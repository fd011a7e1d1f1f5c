"""Epidemiological weeks onto chaplab's weeks: the one rule every reader of weekly data uses.

chaplab's weekly periods are ISO 8601 weeks (Monday to Sunday; ``2023W47`` on the wire,
``2023-W47`` for people), as chap-core's and DHIS2's weekly periods are. Much surveillance data
and every US forecast hub count *epidemiological weeks* instead, the CDC's MMWR weeks (Sunday to
Saturday, week 1 the first with at least four days in January; PAHO's and Peru's calendar too).

An epidemiological week overlaps two ISO weeks: its Sunday is the last day of one, its Monday to
Saturday six of the seven days of the next. It is labelled with that next one, the ISO week
holding its Saturday (its end date):

    epidemiological week 2023-47 (2023-11-19 .. 2023-11-25)  ->  ISO week 2023W47
    epidemiological week 2003-53 (2003-12-28 .. 2004-01-03)  ->  ISO week 2004W01
    epidemiological week 2004-01 (2004-01-04 .. 2004-01-10)  ->  ISO week 2004W02

The numbers agree in most years and differ by one in a year whose 1 January is a Thursday
(2004, 2009, 2015, 2026): the two calendars place week 1 differently there. The mapping is a
bijection (consecutive epidemiological weeks land on consecutive ISO weeks), so counts keep
their order and none are merged or lost. Epidemiological-week arithmetic is the ``epiweeks``
library's.
"""

from __future__ import annotations

import datetime

from epiweeks import Week

from chaplab import vocabulary


def iso_week_of_date(day: datetime.date) -> str:
    """The canonical ISO week (``2023W47``) a day lies in."""
    year, week, _ = day.isocalendar()
    return f"{year:04d}W{week:02d}"


def epiweek_end(year: int, week: int) -> datetime.date:
    """The Saturday an epidemiological (MMWR) week ends on; ValueError naming a week its year
    does not have."""
    try:
        return Week(year, week, system="cdc").enddate()
    except (ValueError, TypeError) as error:
        raise ValueError(f"epidemiological week {year}-{week!r} does not exist: {error}") from None


def iso_week_of_epiweek(year: int, week: int) -> str:
    """The canonical ISO week an epidemiological (MMWR) week is labelled with: the ISO week
    of its Saturday (``iso_week_of_epiweek(2003, 53) == "2004W01"``)."""
    return iso_week_of_date(epiweek_end(year, week))


def epiweek_of_iso_week(period: str) -> tuple[int, int]:
    """The epidemiological (MMWR) week, as ``(year, week)``, labelled with the ISO week
    ``period`` (any weekly spelling of :mod:`chaplab.vocabulary`): the one whose Saturday lies in
    it. The inverse of :func:`iso_week_of_epiweek`."""
    period_type, ordinal = vocabulary.parse_period(period)
    if period_type != vocabulary.WEEK:
        raise ValueError(f"period {period!r} is not a week such as '2023W47'")
    saturday = datetime.date.fromordinal(ordinal * 7 + 1) + datetime.timedelta(days=5)
    epiweek = Week.fromdate(saturday, system="cdc")
    return epiweek.year, epiweek.week


def saturday_of_iso_week(period: str) -> datetime.date:
    """The Saturday of an ISO week: the end date of the epidemiological week it labels (what a
    forecast hub calls a week's ``target_end_date``)."""
    year, week = epiweek_of_iso_week(period)
    return epiweek_end(year, week)
