"""The checked inputs a model's forecast function receives."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from chaplab.service.forecasting.panel import Panel


@dataclass(frozen=True)
class ForecastTask:
    """Checked inputs of one forecast; ``options`` has every default filled in."""

    history: Panel
    n_periods: int
    n_samples: int
    options: dict[str, Any]
    rng: np.random.Generator
    future: Panel | None
    target: str
    covariates: list[str]
