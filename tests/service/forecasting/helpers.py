"""Panels drawn from known count distributions for the forecasting tests."""

from __future__ import annotations

import numpy as np

from chaplab.service.forecasting import Panel
from chaplab.vocabulary import periods_after, previous_period


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
