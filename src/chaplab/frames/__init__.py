"""Wire entries <-> tidy pandas frames, and period parsing.

An evaluation frame has one row per (org_unit, split_period, period, quantile) with columns
``org_unit`` (categorical), ``split_period`` and ``period`` (``Period[M]`` or ISO-weekly
``Period[W-SUN]``, whose weeks print as ``2023-W47``), ``horizon`` (int16, 1 = the split
period), ``quantile`` and ``value`` (float64), sorted chronologically. Prediction frames are
the same without ``split_period`` (their horizon 1 is their first period); actual cases have
``org_unit``, ``period``, ``value``. What a split period and a horizon are:
docs/wire-contract.md, "Split periods and horizons".
The org unit ``adm0`` (the service's sum over all org units) is an org unit like any other.
``with_org_unit_names`` adds an ``org_unit_name`` column (categorical) beside ``org_unit``, from
the dataset's GeoJSON; charts show it wherever a frame has it.
"""

from __future__ import annotations

from chaplab.frames._checks import require_frame_columns
from chaplab.frames._display import (
    PROBABILITY,
    PROBABILITY_LOWER,
    PROBABILITY_UPPER,
    format_number,
    format_numbers,
    format_probability,
    is_bound,
    period_label,
    period_labels,
    probability_labels,
    readable,
)
from chaplab.frames._entries import actuals_to_frame, entries_to_frame
from chaplab.frames._horizons import forecast_horizons, forecast_starts, with_horizon
from chaplab.frames._names import (
    ORG_UNIT_NAME,
    frame_labels,
    org_unit_labels,
    org_unit_names,
    resolve_org_units,
    with_org_unit_names,
)
from chaplab.frames._observations import frame_to_observations, observation_rows
from chaplab.frames._periods import (
    MONTHLY,
    format_period,
    format_periods,
    parse_periods,
    period_kind,
    periods_from_ordinals,
)
from chaplab.frames._tidy import HORIZON, ORG_UNIT, PERIOD, QUANTILE, SPLIT_PERIOD, VALUE
from chaplab.frames._totals import NATIONAL, national_total, with_national_total
from chaplab.frames._weeks import WEEKLY
from chaplab.frames._wide import quantile_column, tidy, wide

__all__ = [
    "HORIZON",
    "MONTHLY",
    "NATIONAL",
    "ORG_UNIT",
    "ORG_UNIT_NAME",
    "PERIOD",
    "PROBABILITY",
    "PROBABILITY_LOWER",
    "PROBABILITY_UPPER",
    "QUANTILE",
    "SPLIT_PERIOD",
    "VALUE",
    "WEEKLY",
    "actuals_to_frame",
    "entries_to_frame",
    "format_number",
    "format_numbers",
    "format_probability",
    "forecast_horizons",
    "forecast_starts",
    "format_period",
    "format_periods",
    "frame_labels",
    "frame_to_observations",
    "is_bound",
    "national_total",
    "observation_rows",
    "org_unit_labels",
    "org_unit_names",
    "parse_periods",
    "period_kind",
    "period_label",
    "period_labels",
    "periods_from_ordinals",
    "probability_labels",
    "quantile_column",
    "readable",
    "require_frame_columns",
    "resolve_org_units",
    "tidy",
    "wide",
    "with_horizon",
    "with_national_total",
    "with_org_unit_names",
]
