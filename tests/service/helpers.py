"""Small datasets and shared values of the service tests."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from chaplab.client import Dataset, Evaluation
from chaplab.service.demo import generate_demo
from chaplab.service.forecasting.panel import Panel


@dataclass(frozen=True)
class Evaluated:
    """A stored dataset and a finished evaluation of it (the ``evaluated`` fixture)."""

    dataset: Dataset
    evaluation: Evaluation


def wide_frame(panel: Panel) -> pd.DataFrame:
    """The panel as a wide frame: one row per org unit and period (org unit by org unit), with
    ``time_period``, ``location`` and one column per feature."""
    columns: dict[str, object] = {
        "time_period": [period for _ in panel.org_units for period in panel.periods],
        "location": [unit for unit in panel.org_units for _ in panel.periods],
    }
    columns |= {name: values.reshape(-1) for name, values in panel.features.items()}
    return pd.DataFrame(columns)


def small_frame(n_years: int = 3, period_type: str = "month") -> pd.DataFrame:
    """A wide frame (time_period, location, features) of synthetic data for two org units."""
    return wide_frame(
        generate_demo(n_org_units=2, n_years=n_years, period_type=period_type, seed=7).panel
    )


LONG_PERIODS = 12
LONG_SPLITS = 450
"""A regression evaluation of ``long_running_frame`` with ``LONG_SPLITS`` splits of
``LONG_PERIODS`` weeks (at most 456 such splits fit its 522 weeks)."""


def long_running_frame() -> pd.DataFrame:
    """Ten years of weekly data for 200 org units: the evaluation of ``LONG_SPLITS`` on it keeps
    a worker busy for about 20 s on a 2-core laptop, ten times longer than any test needs to
    queue behind it or cancel it (with 20 org units it ran for 3 s, and a test's clean-up once
    found it finished)."""
    return wide_frame(generate_demo(n_org_units=200, n_years=10, period_type="week", seed=3).panel)


def geojson_for(org_units: list[str]) -> dict:
    """Square polygons with ``properties.id`` = org unit."""
    features = []
    for index, unit in enumerate(org_units):
        x = float(index)
        ring = [[x, 0.0], [x + 1, 0.0], [x + 1, 1.0], [x, 1.0], [x, 0.0]]
        features.append(
            {
                "type": "Feature",
                "id": unit,
                "properties": {"id": unit},
                "geometry": {"type": "Polygon", "coordinates": [ring]},
            }
        )
    return {"type": "FeatureCollection", "features": features}


def observations(frame: pd.DataFrame) -> list[dict]:
    """Wire observations of a wide frame."""
    features = [column for column in frame.columns if column not in ("time_period", "location")]
    return [
        {
            "featureName": name,
            "orgUnit": row["location"],
            "period": str(row["time_period"]),
            "value": None if np.isnan(row[name]) else float(row[name]),
        }
        for row in frame.to_dict("records")
        for name in features
    ]
