"""Forecasting models of the embedded service, vectorised over org units on numpy.

A :class:`Panel` holds a dataset as arrays; :data:`TEMPLATES` maps template names to
:class:`ModelTemplateSpec` (``forecast`` returns samples per org unit, period and sample);
:func:`run_backtest` evaluates a template with rolling-origin splits.
"""

from __future__ import annotations

from chaplab.service.forecasting.backtest import BacktestResult, run_backtest
from chaplab.service.forecasting.inputs import ForecastTask
from chaplab.service.forecasting.panel import Panel
from chaplab.service.forecasting.templates import TARGET, TEMPLATES, ModelTemplateSpec

__all__ = [
    "TARGET",
    "TEMPLATES",
    "BacktestResult",
    "ForecastTask",
    "ModelTemplateSpec",
    "Panel",
    "run_backtest",
]
