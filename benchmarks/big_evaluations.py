"""Evaluations of 100,000 and 1,000,000 entries in one service, shared by figures 1 and 2.

Real backtests run as jobs of the service: ``naive_model`` on synthetic monthly datasets of 200
and 2,000 org units (10 years, stored through the service's storage layer), 20 splits x 5
periods, with the service's 100 samples per cell. Asked for 5 quantiles they answer
200 x 20 x 5 x 5 = 100,000 and 2,000 x 20 x 5 x 5 = 1,000,000 entries. They live in the shared
service, which the runner stops at the end.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from benchmarks.service import BenchService, shared_service

QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)
N_SPLITS, N_PERIODS = 20, 5
SIZES = {100_000: 200, 1_000_000: 2_000}
"""Entries -> org units."""


@dataclass(frozen=True)
class Evaluations:
    service: BenchService
    ids: dict[int, int]
    """Entries -> evaluation id."""

    def params(self, entries: int) -> list[tuple[str, str | int | float]]:
        """Query of ``GET /v1/analytics/evaluation-entry`` for the evaluation of ``entries``."""
        return [("backtestId", self.ids[entries]), *(("quantiles", q) for q in QUANTILES)]

    @property
    def entry_url(self) -> str:
        return f"{self.service.url}/v1/analytics/evaluation-entry"


@functools.cache
def evaluations() -> Evaluations:
    service = shared_service()
    ids = {}
    for entries, org_units in SIZES.items():
        dataset_id = service.add_dataset(f"bench {org_units} org units", org_units)
        ids[entries], _ = service.evaluate(
            f"bench {entries} entries", "naive_model", dataset_id, N_PERIODS, N_SPLITS
        )
    return Evaluations(service, ids)
