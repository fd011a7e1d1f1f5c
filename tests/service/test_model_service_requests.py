"""What a backtest or forecast sends a model service: the history table and the future periods
with their covariates (each org unit's climatology where the future values are not given)."""

from __future__ import annotations

import numpy as np

from chaplab.service.forecasting import Panel
from chaplab.service.model_services import future_covariates, history_table


def two_years() -> Panel:
    """Two org units, monthly 2023-01 to 2024-12; rainfall is the month number times 10 in
    2023 and times 30 in 2024 (so a month's mean over the history is 20 times the month)."""
    periods = [f"{year}{month:02d}" for year in (2023, 2024) for month in range(1, 13)]
    rainfall = np.array([[10.0 * m for m in range(1, 13)] + [30.0 * m for m in range(1, 13)]] * 2)
    rainfall[1] += 1.0  # the second org unit has a little more
    cases = np.arange(48, dtype=float).reshape(2, 24)
    return Panel("month", periods, ["A", "B"], {"disease_cases": cases, "rainfall": rainfall})


def test_future_covariates_without_given_values_are_each_org_units_climatology() -> None:
    future = future_covariates(two_years(), 2, ["rainfall"], None)
    assert future["columns"] == ["time_period", "location", "rainfall"]
    assert future["data"] == [
        ["2025-01", "A", 20.0],
        ["2025-02", "A", 40.0],
        ["2025-01", "B", 21.0],
        ["2025-02", "B", 41.0],
    ]


def test_the_history_table_holds_the_target_and_the_covariates_by_dashed_period() -> None:
    table = history_table(two_years(), ["disease_cases", "rainfall"])
    assert table["columns"] == ["time_period", "location", "disease_cases", "rainfall"]
    assert table["data"][0] == ["2023-01", "A", 0.0, 10.0]
    assert table["data"][-1] == ["2024-12", "B", 47.0, 361.0]
