"""Figure 3, evaluation speed.

(a) ``run_backtest`` directly on synthetic data of 100 org units x 10 years monthly, 12 splits x
3 periods, 200 samples (median of 5) for ``naive_model`` and ``regression_model``;
(b) how that time grows from 10 to 100 to 1,000 org units (median of 3): each tenfold step may
take at most 13x (linear growth with 30% slack);
(c) the job wall time through the service (submit to ``wait_for_job`` returning, median of 5) on
the same data; the service draws its fixed 100 samples per cell.
"""

from __future__ import annotations

import statistics

from benchmarks.results import Result, at_most, within
from benchmarks.service import BenchService
from benchmarks.timing import median_time
from chaplab.service.demo import generate_demo
from chaplab.service.forecasting import TEMPLATES, run_backtest
from chaplab.vocabulary import BacktestPlan

LIMITS = {"naive_model": 1.0, "regression_model": 10.0}
N_PERIODS, N_SPLITS, N_SAMPLES = 3, 12, 200
SIZES = (10, 100, 1000)
GROWTH_LIMIT = 13.0
REPEATS, SCALING_REPEATS = 5, 3


def backtest_time(model: str, n_org_units: int, repeats: int) -> float:
    panel = generate_demo(n_org_units=n_org_units, n_years=10).panel
    template = TEMPLATES[model]
    return median_time(
        lambda: run_backtest(
            template,
            None,
            panel,
            BacktestPlan(n_periods=N_PERIODS, n_splits=N_SPLITS),
            N_SAMPLES,
            seed=1,
        ),
        repeats,
        warmup=1,
    )


def direct_rows() -> list[Result]:
    rows = []
    for model, limit in LIMITS.items():
        seconds = {
            size: backtest_time(model, size, REPEATS if size == 100 else SCALING_REPEATS)
            for size in SIZES
        }
        rows.append(at_most(f"3 run_backtest {model}, 100 org units", seconds[100], limit, "s"))
        for small, large in zip(SIZES, SIZES[1:], strict=False):
            rows.append(
                within(
                    f"3 growth {model}, {small} -> {large} org units",
                    seconds[large],
                    seconds[small],
                    GROWTH_LIMIT,
                    "s",
                    f"{small} org units",
                    note="time ratio for 10x the org units",
                )
            )
    return rows


def job_rows() -> list[Result]:
    rows = []
    with BenchService() as service:
        dataset_id = service.add_dataset("bench 100 org units", 100)
        for model, limit in LIMITS.items():
            walls = [
                service.evaluate(f"bench {model} {k}", model, dataset_id, N_PERIODS, N_SPLITS)[1]
                for k in range(REPEATS)
            ]
            rows.append(
                at_most(
                    f"3 job wall time {model}, 100 org units",
                    statistics.median(walls),
                    limit,
                    "s",
                    note="submit to wait_for_job returning; 100 samples",
                )
            )
    return rows


def run() -> list[Result]:
    return direct_rows() + job_rows()
