"""A leaderboard scores the chosen models and the baselines: chap-core 2.5.1 runs every
configuration of a baseline template as a baseline too, and those count only when chosen."""

from __future__ import annotations

from typing import Any

from chaplab.client._specifications import BacktestSpecificationDetail


def reference(model_id: int, name: str, status: str, backtest_id: int | None) -> dict[str, Any]:
    return {
        "configuredModel": {"id": model_id, "name": name},
        "status": status,
        "backtestId": backtest_id,
        "aggregateMetrics": {},
    }


DETAIL = BacktestSpecificationDetail.model_validate(
    {
        "id": 3,
        "baselines": [
            reference(4, "seasonal_median", "done", 40),
            reference(5, "global_median", "done", 41),
            reference(6, "persistence", "pending", None),
            reference(7, "seasonal_median:heldout", "done", 42),
            reference(8, "seasonal_median:my_choice", "done", 43),
            reference(9, "seasonal_median:broken", "failed", None),
        ],
    }
)


def test_the_baselines_without_the_configurations_nobody_chose() -> None:
    assert DETAIL.baseline_runs() == {"seasonal_median": 40, "global_median": 41}


def test_a_chosen_configuration_of_a_baseline_template_counts() -> None:
    assert DETAIL.baseline_runs(["seasonal_median:my_choice", "naive_model"]) == {
        "seasonal_median": 40,
        "global_median": 41,
        "seasonal_median:my_choice": 43,
    }
