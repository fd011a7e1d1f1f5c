"""Figure 7, fan chart: a 12-panel fan chart with 3 splits, rendered to PNG (median of 5).

The frame is a real backtest of 12 synthetic org units (3 splits x 3 periods, quantiles 0.1,
0.25, 0.5, 0.75, 0.9) written by the service's entry writer and read with ``entries_to_frame``;
the actual cases cover the whole history (120 months). Timed: ``fan_chart`` plus ``savefig`` to
PNG at the default resolution, then closing the figure.
"""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import orjson  # noqa: E402

from benchmarks.results import Result, at_most  # noqa: E402
from benchmarks.timing import median_time  # noqa: E402
from chaplab.frames import actuals_to_frame, entries_to_frame  # noqa: E402
from chaplab.plotting import fan_chart  # noqa: E402
from chaplab.service.demo import generate_demo  # noqa: E402
from chaplab.service.entries import EvaluationLayout, evaluation_entries_json  # noqa: E402
from chaplab.service.forecasting import TEMPLATES, run_backtest  # noqa: E402
from chaplab.vocabulary import BacktestPlan

QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)
LIMIT_SECONDS = 1.0


def chart_inputs() -> tuple[object, object]:
    panel = generate_demo(n_org_units=12, n_years=10).panel
    result = run_backtest(
        TEMPLATES["naive_model"],
        None,
        panel,
        BacktestPlan(n_periods=3, n_splits=3),
        200,
        seed=1,
    )
    frame = entries_to_frame(
        evaluation_entries_json(
            result.samples,
            EvaluationLayout(result.org_units, result.split_periods, result.periods),
            QUANTILES,
        )
    )
    cases = panel.features["disease_cases"]
    data = [
        {"pe": period, "ou": unit, "value": float(cases[u, p])}
        for u, unit in enumerate(panel.org_units)
        for p, period in enumerate(panel.periods)
    ]
    actuals = actuals_to_frame(orjson.dumps({"featureId": "disease_cases", "data": data}))
    return frame, actuals


def render(frame: object, actuals: object) -> bytes:
    figure = fan_chart(frame, actuals)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    plt.close(figure)
    return buffer.getvalue()


def run() -> list[Result]:
    frame, actuals = chart_inputs()
    seconds = median_time(lambda: render(frame, actuals), repeats=5, warmup=1)
    return [at_most("7 fan chart, 12 panels x 3 splits, to PNG", seconds, LIMIT_SECONDS, "s")]
