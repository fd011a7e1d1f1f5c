"""Figure 2, serving entries: ``GET /v1/analytics/evaluation-entry`` for 1,000,000 entries (5
quantiles of the evaluation in ``big_evaluations``), timed over loopback from the request to the
last byte received, against ``orjson.dumps`` of the same rows (the parsed response: a list of
1,000,000 dicts). Target: at most 2x. Medians of 3.
"""

from __future__ import annotations

import httpx
import orjson

from benchmarks.big_evaluations import evaluations
from benchmarks.results import Result, within
from benchmarks.timing import median_time

ENTRIES = 1_000_000
LIMIT = 2.0


def run() -> list[Result]:
    setup = evaluations()
    with httpx.Client(timeout=600.0) as http:

        def fetch() -> bytes:
            return http.get(setup.entry_url, params=setup.params(ENTRIES)).content

        rows = orjson.loads(fetch())
        if len(rows) != ENTRIES:
            raise AssertionError(f"the service answered {len(rows)} entries, expected {ENTRIES}")
        serve_time = median_time(fetch, 3)
    dumps_time = median_time(lambda: orjson.dumps(rows), 3)
    return [
        within(
            "2 serve 1M entries vs orjson.dumps",
            serve_time,
            dumps_time,
            LIMIT,
            "s",
            "orjson.dumps of the rows",
            note="request to last byte over loopback",
        )
    ]
