"""What a backtest or forecast sends a model service: the history table and the future periods
with their covariates (each org unit's climatology where the future values are not given); and
how often it asks the service whether a job has ended (on a clock of the test's own)."""

from __future__ import annotations

import httpx
import numpy as np
import pytest

from chaplab.service import model_services
from chaplab.service.forecasting import Panel
from chaplab.service.model_services import (
    POLL_FRACTION,
    POLL_SECONDS,
    ModelService,
    future_covariates,
    history_table,
)


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


class FakeClock:
    """``time.monotonic`` and ``time.sleep`` of the model-service module, without waiting."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


@pytest.mark.parametrize("job_seconds", [0.05, 1.0, 10.0])
def test_a_job_is_noticed_done_at_most_a_fifth_of_its_time_late_and_not_hammered(
    monkeypatch: pytest.MonkeyPatch, job_seconds: float
) -> None:
    clock = FakeClock()
    monkeypatch.setattr(model_services, "time", clock)
    polls: list[float] = []

    def answer(request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            return httpx.Response(202, json={"job_id": "j", "artifact_id": "a"})
        if request.url.path == "/api/v1/jobs/j":
            polls.append(clock.now)
            done = clock.now >= job_seconds
            return httpx.Response(
                200, json={"id": "j", "status": "completed" if done else "running"}
            )
        return httpx.Response(404)  # no artifact trees, no output

    service = ModelService("svc", "http://svc", transport=httpx.MockTransport(answer))
    assert service.run_job("train", "/api/v1/ml/$train", {}, lambda line: None) == "a"
    service.wait_for_output()
    late = polls[-1] - job_seconds
    assert late <= max(POLL_FRACTION * polls[-1], POLL_SECONDS[0])
    waits = np.diff(polls)
    assert waits.min() >= POLL_SECONDS[0] - 1e-9 and waits.max() <= POLL_SECONDS[1] + 1e-9
    # a short job is asked about every 20 ms; a long one about twice a second (at a steady
    # 20 ms a 10 s job would be asked 500 times)
    assert len(polls) <= 25 + 2 * job_seconds
