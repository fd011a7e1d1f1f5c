"""Tidy forecast and actual-case frames for the scoring tests, built through chaplab.frames."""

from __future__ import annotations

from collections.abc import Sequence
from statistics import NormalDist

import numpy as np
import pandas as pd

from chaplab.frames import entries_to_frame, format_period

LEVELS = (0.1, 0.25, 0.5, 0.75, 0.9)
WORKED_LEVELS = (0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95)
WORKED_VALUES = (50.0, 60.0, 80.0, 90.0, 95.0, 130.0, 150.0)
WORKED_OBSERVED = 100.0
START = pd.Period("2023-01", "M")


def wire(period: pd.Period) -> str:
    return format_period(period)


def forecast_frame(
    rows: Sequence[tuple[str, pd.Period, pd.Period, Sequence[float]]],
    levels: Sequence[float] = LEVELS,
) -> pd.DataFrame:
    """An evaluation frame from (org unit, split period, period, values at ``levels``) rows; a
    split period is the first period its split forecasts."""
    entries = [
        {
            "orgUnit": org_unit,
            "splitPeriod": wire(split),
            "period": wire(period),
            "quantile": level,
            "value": value,
        }
        for org_unit, split, period, values in rows
        for level, value in zip(levels, values, strict=True)
    ]
    return entries_to_frame(entries)


def actuals_frame(rows: Sequence[tuple[str, pd.Period, float]]) -> pd.DataFrame:
    periods = pd.PeriodIndex([period for _, period, _ in rows])
    return pd.DataFrame(
        {
            "org_unit": [org_unit for org_unit, _, _ in rows],
            "period": periods,
            "value": [value for _, _, value in rows],
        }
    )


def worked_case() -> tuple[pd.DataFrame, pd.DataFrame]:
    """The worked case of the definitions: one target, seven levels, y = 100."""
    frame = forecast_frame([("A", START + 1, START + 1, WORKED_VALUES)], WORKED_LEVELS)
    return frame, actuals_frame([("A", START + 1, WORKED_OBSERVED)])


def normal_forecasts(
    org_units: int = 6,
    splits: int = 4,
    horizon: int = 3,
    *,
    shift: float = 0.0,
    spread: float = 1.0,
    levels: Sequence[float] = LEVELS,
    missing: float = 0.0,
    seed: int = 0,
) -> pd.DataFrame:
    """Normal forecasts with mean 100 + ``shift`` and sd 10 x ``spread``; a ``missing`` share
    of targets left out at random."""
    rng = np.random.default_rng(seed)
    z = np.array([NormalDist().inv_cdf(level) for level in levels])
    rows = [
        (
            f"OU{unit}",
            START + split + 1,  # the split's first forecast period
            START + split + step,
            tuple(100 + shift + 10 * spread * z),
        )
        for unit in range(org_units)
        for split in range(splits)
        for step in range(1, horizon + 1)
        if rng.random() >= missing
    ]
    return forecast_frame(rows, levels)


def normal_actuals(org_units: int = 6, periods: int = 12, seed: int = 1) -> pd.DataFrame:
    """Actual cases drawn from the calibrated forecasts' distribution, N(100, 10)."""
    rng = np.random.default_rng(seed)
    return actuals_frame(
        [
            (f"OU{unit}", START + step, 100 + 10 * rng.standard_normal())
            for unit in range(org_units)
            for step in range(periods)
        ]
    )
