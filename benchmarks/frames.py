"""Figure 1, entries to frame, for evaluations of 100,000 and 1,000,000 entries (see
``big_evaluations``), each path timed from the request to the finished frame:

(a) ``client.evaluation_frame(...)``;
(b) the naive path: ``[EvaluationEntry.model_validate(e) for e in response.json()]``, then a
    frame from the models' dumps;
(c) the plain path: ``pd.DataFrame(httpx.get(...).json())``;
(d) the floor: the raw bytes transfer alone, plus ``orjson.loads`` and a column-wise frame.

Targets: (a) at least 5x faster than (b) and 1.5x faster than (c), within 1.5x of (d); at most 40
bytes per row; (a) grows close to linearly from 100k to 1M (at most 13x for 10x the rows).
Medians of 3 runs (1 run of the slow paths b and c at 1M).
"""

from __future__ import annotations

import httpx
import orjson
import pandas as pd

from benchmarks.big_evaluations import QUANTILES, Evaluations, evaluations
from benchmarks.results import Result, at_most, faster, within
from benchmarks.timing import median_time
from chaplab.client import EvaluationEntry

KEYS = ("orgUnit", "period", "quantile", "value", "splitPeriod")
BYTES_PER_ROW_LIMIT = 40.0
GROWTH_LIMIT = 13.0


def client_frame(setup: Evaluations, entries: int) -> pd.DataFrame:
    return setup.service.client.evaluation_frame(setup.ids[entries], quantiles=QUANTILES)


def naive_frame(http: httpx.Client, setup: Evaluations, entries: int) -> pd.DataFrame:
    response = http.get(setup.entry_url, params=setup.params(entries))
    models = [EvaluationEntry.model_validate(e) for e in response.json()]
    return pd.DataFrame([model.model_dump() for model in models])


def plain_frame(http: httpx.Client, setup: Evaluations, entries: int) -> pd.DataFrame:
    return pd.DataFrame(http.get(setup.entry_url, params=setup.params(entries)).json())


def transfer(http: httpx.Client, setup: Evaluations, entries: int) -> bytes:
    return http.get(setup.entry_url, params=setup.params(entries)).content


def columnwise_frame(body: bytes) -> pd.DataFrame:
    rows = orjson.loads(body)
    return pd.DataFrame({key: [row[key] for row in rows] for key in KEYS})


def floor_seconds(http: httpx.Client, setup: Evaluations, entries: int, repeats: int) -> float:
    """Median of (transfer + parse + column-wise frame), each part timed on the same bytes."""
    body = transfer(http, setup, entries)
    transfer_time = median_time(lambda: transfer(http, setup, entries), repeats)
    parse_time = median_time(lambda: columnwise_frame(body), repeats)
    return transfer_time + parse_time


def rows_for(http: httpx.Client, setup: Evaluations, entries: int) -> tuple[list[Result], float]:
    label = f"{entries // 1000:,}k" if entries < 1_000_000 else f"{entries // 1_000_000}M"
    slow_repeats = 3 if entries < 1_000_000 else 1
    frame = client_frame(setup, entries)
    if len(frame) != entries:
        raise AssertionError(f"the frame has {len(frame)} rows, expected {entries}")
    client_time = median_time(lambda: client_frame(setup, entries), 3)
    naive_time = median_time(lambda: naive_frame(http, setup, entries), slow_repeats)
    plain_time = median_time(lambda: plain_frame(http, setup, entries), slow_repeats)
    floor_time = floor_seconds(http, setup, entries, 3)
    bytes_per_row = frame.memory_usage(deep=True).sum() / len(frame)
    rows = [
        faster(f"1a client frame vs naive, {label}", client_time, naive_time, 5, "s", "naive (b)"),
        faster(
            f"1a client frame vs plain, {label}", client_time, plain_time, 1.5, "s", "plain (c)"
        ),
        within(
            f"1a client frame vs floor, {label}",
            client_time,
            floor_time,
            1.5,
            "s",
            "floor (d)",
            note="floor: transfer + orjson.loads + column-wise frame",
        ),
        at_most(f"1 frame memory, {label}", bytes_per_row, BYTES_PER_ROW_LIMIT, "B/row"),
    ]
    return rows, client_time


def run() -> list[Result]:
    setup = evaluations()
    with httpx.Client(timeout=600.0) as http:
        small_rows, small_time = rows_for(http, setup, 100_000)
        large_rows, large_time = rows_for(http, setup, 1_000_000)
    growth = within(
        "1 client frame growth, 100k -> 1M",
        large_time,
        small_time,
        GROWTH_LIMIT,
        "s",
        "100k",
        note="time ratio for 10x the rows",
    )
    return [*small_rows, *large_rows, growth]
