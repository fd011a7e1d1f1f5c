"""The adaptive poll schedule of ``wait_for_job``."""

from __future__ import annotations

import statistics

from chaplab.client import (
    PollSchedule,
)


def test_adaptive_schedule_notices_short_jobs_quickly() -> None:
    delays = []
    for tenth in range(10, 101):
        duration, elapsed, schedule = tenth / 10, 0.0, PollSchedule()
        while elapsed < duration:
            elapsed += schedule.next_interval(elapsed)
        delays.append(elapsed - duration)
    assert statistics.median(delays) < 0.35
