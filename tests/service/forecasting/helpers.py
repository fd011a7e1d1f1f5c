"""Panels drawn from known count distributions for the forecasting tests."""

from __future__ import annotations

import numpy as np

from chaplab.service.forecasting import Panel
from chaplab.vocabulary import period_range, periods_after, previous_period


def negative_binomial_panel(
    n_org_units: int, first: str, n_periods: int, seed: int = 0, size: float = 5.0
) -> Panel:
    """Negative binomial counts, constant mean per org unit, Var = mu + mu^2 / size."""
    rng = np.random.default_rng(seed)
    mean = rng.uniform(10.0, 100.0, size=(n_org_units, 1)) * np.ones((1, n_periods))
    cases = rng.negative_binomial(size, size / (size + mean)).astype(float)
    periods = periods_after(previous_period(first), n_periods)
    period_type = "week" if "W" in first else "month"
    return Panel(
        period_type, periods, [f"OU_{i}" for i in range(n_org_units)], {"disease_cases": cases}
    )


BRAZIL_COVARIATES = ["max_temperature", "min_temperature", "drought_index"]
"""The climate features of ``chaplab.datasets.dengue_brazil`` (it has no rainfall)."""


def brazil_like_panel(n_org_units: int = 30, n_years: int = 6, seed: int = 0) -> Panel:
    """Monthly cases, population, max/min temperature and a drought index, no rainfall.

    The cases follow last month's maximum-temperature anomaly (an AR(1) series, so the seasonal
    harmonics cannot stand in for it); the other covariates are unrelated to the cases."""
    rng = np.random.default_rng(seed)
    periods = period_range("201001", f"{2009 + n_years}12")
    n_periods = len(periods)
    month = np.arange(n_periods) % 12
    anomaly = np.zeros((n_org_units, n_periods))
    for t in range(1, n_periods):
        anomaly[:, t] = 0.7 * anomaly[:, t - 1] + rng.normal(0.0, 1.0, n_org_units)
    max_temperature = 29.0 + 2.0 * np.sin(2 * np.pi * month / 12) + 1.5 * anomaly
    min_temperature = max_temperature - 9.0 + rng.normal(0.0, 1.0, (n_org_units, n_periods))
    drought_index = rng.normal(0.0, 2.0, (n_org_units, n_periods))
    level = rng.uniform(np.log(20.0), np.log(200.0), (n_org_units, 1))
    log_mean = level + 0.6 * np.sin(2 * np.pi * month / 12)
    log_mean[:, 1:] += 0.8 * anomaly[:, :-1]
    mean = np.exp(log_mean)
    cases = rng.negative_binomial(20.0, 20.0 / (20.0 + mean)).astype(float)
    population = np.repeat(rng.uniform(1e5, 1e6, (n_org_units, 1)), n_periods, axis=1)
    return Panel(
        "month",
        periods,
        [f"OU_{i}" for i in range(n_org_units)],
        {
            "disease_cases": cases,
            "population": population,
            "max_temperature": max_temperature,
            "min_temperature": min_temperature,
            "drought_index": drought_index,
        },
    )
