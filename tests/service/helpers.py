"""Small datasets and shared values of the service tests."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from chaplab.client import Dataset, Evaluation
from chaplab.service.demo import generate_demo


@dataclass(frozen=True)
class Evaluated:
    """A stored dataset and a finished evaluation of it (the ``evaluated`` fixture)."""

    dataset: Dataset
    evaluation: Evaluation


def small_frame(n_years: int = 3, period_type: str = "month") -> pd.DataFrame:
    """A wide frame (time_period, location, features) of synthetic data for two org units."""
    panel = generate_demo(n_org_units=2, n_years=n_years, period_type=period_type, seed=7).panel
    rows = []
    for u, unit in enumerate(panel.org_units):
        for p, period in enumerate(panel.periods):
            row = {"time_period": period, "location": unit}
            row.update({name: float(values[u, p]) for name, values in panel.features.items()})
            rows.append(row)
    return pd.DataFrame(rows)


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
