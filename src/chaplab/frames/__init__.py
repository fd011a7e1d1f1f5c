"""Wire entries <-> tidy pandas frames, and period parsing.

An evaluation frame has one row per (org_unit, split_period, period, quantile) with columns
``org_unit`` (categorical), ``split_period`` and ``period`` (``Period[M]`` or ISO-weekly
``Period[W-SUN]``), ``quantile`` and ``value`` (float64), sorted chronologically. Prediction
frames are the same without ``split_period``; actual cases have ``org_unit``, ``period``, ``value``.
The org unit ``adm0`` (the service's sum over all org units) is an org unit like any other.
"""

from __future__ import annotations

from chaplab.frames._entries import actuals_to_frame, entries_to_frame
from chaplab.frames._observations import frame_to_observations
from chaplab.frames._periods import format_period, format_periods, parse_periods, period_kind
from chaplab.frames._tidy import ORG_UNIT, PERIOD, QUANTILE, SPLIT_PERIOD, VALUE
from chaplab.frames._totals import NATIONAL, national_total, with_national_total
from chaplab.frames._wide import quantile_column, tidy, wide

__all__ = [
    "NATIONAL",
    "ORG_UNIT",
    "PERIOD",
    "QUANTILE",
    "SPLIT_PERIOD",
    "VALUE",
    "actuals_to_frame",
    "entries_to_frame",
    "format_period",
    "format_periods",
    "frame_to_observations",
    "national_total",
    "parse_periods",
    "period_kind",
    "quantile_column",
    "tidy",
    "wide",
    "with_national_total",
]
