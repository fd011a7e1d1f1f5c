"""Rolling-origin evaluation (backtest) of a model template on a panel.

The splits are a :class:`chaplab.vocabulary.BacktestPlan`'s: split ``k`` of ``n_splits`` trains
on every period before its *split period*, its first forecast period (chap-core's name for a
split), and forecasts ``n_periods`` periods from it on. Split periods are ``stride`` periods
apart and the last split's forecast ends exactly at the panel's last period. Each split draws
from its own random stream (spawned from ``seed``), so results are reproducible and independent
of the number of splits before it. Samples are kept as float32 sorted along the sample axis, so
any quantile is an interpolation (:func:`chaplab.service.metrics.quantiles_from_sorted`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from threadpoolctl import ThreadpoolController

from chaplab.service.forecasting.panel import Panel
from chaplab.service.forecasting.templates import ModelTemplateSpec
from chaplab.service.forecasting.weather import CLIMATOLOGY, WeatherProvider
from chaplab.service.metrics import aggregate_metrics, quantiles_from_sorted
from chaplab.vocabulary import BacktestPlan

ProgressCallback = Callable[[float, str], None]


@dataclass(frozen=True)
class BacktestResult:
    """Forecast samples and truth of every split, and the metrics over all of them.

    ``samples``: float32 ``(n_splits, n_org_units, n_periods, n_samples)`` sorted on the last axis;
    ``truth``: float64 ``(n_splits, n_org_units, n_periods)``, NaN where not observed;
    ``periods[k]``: the forecast periods of split ``k``; ``aggregate_metrics``, what an
    evaluation stores, ignore unobserved cells (a metric with no observed cell is NaN). Metrics
    per org unit or per horizon are computed where they are read, from the stored samples
    (``domain.evaluations.backtest_metrics``).
    """

    org_units: list[str]
    split_periods: list[str]
    periods: list[list[str]]
    samples: np.ndarray
    truth: np.ndarray
    aggregate_metrics: dict[str, float]

    def quantiles(self, levels: Sequence[float]) -> np.ndarray:
        """Quantiles of every cell, shape ``(n_splits, n_org_units, n_periods, len(levels))``."""
        return quantiles_from_sorted(self.samples, levels)


@functools.cache
def thread_pools() -> ThreadpoolController:
    """The process's native thread pools, looked up once: the search reads the loaded
    libraries' files, a tenth of a tiny backtest's time if repeated for every job."""
    return ThreadpoolController()


def run_backtest(
    template: ModelTemplateSpec,
    options: dict[str, Any] | None,
    panel: Panel,
    plan: BacktestPlan,
    n_samples: int,
    seed: int,
    progress: ProgressCallback | None = None,
    weather: WeatherProvider = CLIMATOLOGY,
    additional_covariates: Sequence[str] = (),
) -> BacktestResult:
    """Fit ``template`` at every split of ``plan`` on ``panel`` and score its forecasts against
    the truth; ``weather`` gives the covariates of each forecast window (default: climatology)
    and ``additional_covariates`` are the configured model's. A :class:`PlanError` when the
    splits do not fit the panel with the periods the model trains on before the first.

    Linear algebra runs on one thread: the models' matrices are tall and thin, and jobs run
    side by side in worker processes, where BLAS threads would only contend for the cores.
    """
    filled = template.options_with_defaults(options)
    windows = plan.split_windows(panel.periods, template.history_needed(filled, panel.period_type))
    report = progress or (lambda fraction, message: None)
    target = panel.feature(template.target)
    n_splits, n_periods = plan.n_splits, plan.n_periods
    streams = np.random.SeedSequence(seed).spawn(n_splits)
    samples = np.empty((n_splits, panel.n_org_units, n_periods, n_samples), dtype=np.float32)
    truth = np.empty((n_splits, panel.n_org_units, n_periods))
    with thread_pools().limit(limits=1, user_api="blas"):
        for k, (window, stream) in enumerate(zip(windows, streams, strict=True)):
            drawn = template.forecast(
                panel.head(window.history_end),
                n_periods,
                n_samples,
                filled,
                np.random.default_rng(stream),
                future=weather.future(panel, window.history_end, n_periods),
                additional_covariates=additional_covariates,
            )
            samples[k] = np.sort(drawn, axis=-1)
            truth[k] = target[:, window.forecast_slice]
            report(
                (k + 1) / (n_splits + 1),
                f"split {k + 1}/{n_splits} ({window.split_period}): trained up to "
                f"{panel.periods[window.history_end - 1]}",
            )
    metrics = aggregate_metrics(samples, truth, presorted=True)
    result = BacktestResult(
        org_units=list(panel.org_units),
        split_periods=[window.split_period for window in windows],
        periods=[list(window.forecast_periods) for window in windows],
        samples=samples,
        truth=truth,
        aggregate_metrics={name: float(value) for name, value in metrics.items()},
    )
    report(1.0, f"scored {n_splits} splits x {n_periods} periods x {panel.n_org_units} org units")
    return result
