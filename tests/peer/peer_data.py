"""The tests' own small dataset, as chap-core takes it: two org units, four years of monthly
cases, rainfall, temperature and population (or two years and three weeks of weekly ones),
deterministic so that runs compare; square polygons for the org units. Also the names the tests
look for on the peer."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from chaplab.vocabulary import period_range, period_type_of

DATASET_NAME = "chaplab peer tests"
CONFIGURATION_NAME = "chaplab-peer-tests"
OFFLINE_MODELS = ("naive_model", "seasonal_median", "global_median", "persistence")
ORG_UNITS = {"OU_North": "North", "OU_South": "South"}
FIRST_YEAR, YEARS = 2019, 4
FEATURES = ("disease_cases", "rainfall", "mean_temperature", "population")


def monthly_periods() -> list[str]:
    """The dataset's periods, ``YYYYMM``, January of ``FIRST_YEAR`` through December."""
    return [
        f"{year}{month:02d}"
        for year in range(FIRST_YEAR, FIRST_YEAR + YEARS)
        for month in range(1, 13)
    ]


def weekly_periods() -> list[str]:
    """The weekly dataset's ISO weeks, 2019W01 through 2021W03: two whole years, the second
    with 53 weeks, and three weeks into the next."""
    return period_range("2019W01", "2021W03")


def observation_table(periods: list[str] | None = None) -> pd.DataFrame:
    """The dataset (monthly unless ``periods`` says otherwise) as one row per org unit and
    period, one column per feature: a yearly season in cases and rainfall, a warmer south,
    deterministic so runs compare."""
    periods = monthly_periods() if periods is None else periods
    per_year = 12 if period_type_of(periods[0]) == "month" else 52
    rows = []
    for unit_index, org_unit in enumerate(ORG_UNITS):
        for index, period in enumerate(periods):
            season = math.sin(2 * math.pi * (index % per_year) / per_year)
            rows.append(
                {
                    "org_unit": org_unit,
                    "period": period,
                    "disease_cases": float(
                        round(40 + 20 * unit_index + 15 * season + index * 7 % 5)
                    ),
                    "rainfall": round(120 + 80 * season + index * 13 % 17, 1),
                    "mean_temperature": round(25 + 2 * season + 0.5 * unit_index, 2),
                    "population": float(100_000 + 50_000 * unit_index),
                }
            )
    return pd.DataFrame(rows)


def observations_payload(table: pd.DataFrame) -> list[dict[str, Any]]:
    """``table`` as chap-core's observations: one ``{period, orgUnit, featureName, value}`` each."""
    return [
        {
            "period": row.period,
            "orgUnit": row.org_unit,
            "featureName": feature,
            "value": getattr(row, feature),
        }
        for row in table.itertuples(index=False)
        for feature in FEATURES
    ]


def org_unit_geojson() -> dict[str, Any]:
    """One square polygon per org unit, side by side; ``id`` and ``NAME_1`` name the org unit."""
    features = []
    for index, (org_unit, name) in enumerate(ORG_UNITS.items()):
        ring = [[index, 0], [index + 1, 0], [index + 1, 1], [index, 1], [index, 0]]
        features.append(
            {
                "type": "Feature",
                "id": org_unit,
                "properties": {"id": org_unit, "name": name, "NAME_1": org_unit},
                "geometry": {"type": "Polygon", "coordinates": [ring]},
            }
        )
    return {"type": "FeatureCollection", "features": features}
