"""National totals under the org unit name ``adm0``, as the service reports them."""

from __future__ import annotations

import pandas as pd

from chaplab.errors import ArgumentError
from chaplab.frames._horizons import with_horizon
from chaplab.frames._names import ORG_UNIT_NAME
from chaplab.frames._tidy import HORIZON, ORG_UNIT, VALUE, key_columns, sort_tidy

NATIONAL = "adm0"


def national_total(frame: pd.DataFrame, name: str = NATIONAL) -> pd.DataFrame:
    """Sum ``value`` over all org units per remaining key (period, split, quantile) as org unit
    ``name``; rows already named ``name`` are left out of the sum so nothing counts twice. A
    forecast frame's total has its ``horizon`` column too.

    Exact for actual cases. For quantile frames the sum of quantiles is the quantile of the sum
    only when org units move together, so its bands are at least as wide as the service's own
    ``adm0`` entries (quantiles of summed samples): ask the service for ``adm0`` for forecasts.
    """
    if ORG_UNIT not in frame.columns or VALUE not in frame.columns:
        raise ArgumentError("national_total() needs 'org_unit' and 'value' columns")
    parts = frame[frame[ORG_UNIT] != name]
    if parts.empty:
        raise ArgumentError(f"national_total(): the frame has no org units other than {name!r}")
    by = [column for column in key_columns(frame) if column != ORG_UNIT]
    total = parts.groupby(by, observed=True, sort=False)[VALUE].sum().reset_index()
    total.insert(0, ORG_UNIT, pd.Categorical([name] * len(total), categories=[name]))
    total = sort_tidy(total)
    return with_horizon(total) if HORIZON in frame.columns else total


def with_national_total(frame: pd.DataFrame, name: str = NATIONAL) -> pd.DataFrame:
    """The frame plus its :func:`national_total` rows, as one org unit among the others; in a
    frame with an ``org_unit_name`` column the total is named ``name`` too."""
    total = national_total(frame, name)
    rest = frame[frame[ORG_UNIT] != name]
    labelled = [ORG_UNIT] + ([ORG_UNIT_NAME] if ORG_UNIT_NAME in frame.columns else [])
    if ORG_UNIT_NAME in labelled:
        total.insert(1, ORG_UNIT_NAME, pd.Categorical([name] * len(total), categories=[name]))
    parts = [rest, total]
    for column in labelled:
        categories = rest[column].astype("category").cat.categories.union([name])
        parts = [
            part.assign(**{column: part[column].astype("category").cat.set_categories(categories)})
            for part in parts
        ]
    return sort_tidy(pd.concat(parts, ignore_index=True))
