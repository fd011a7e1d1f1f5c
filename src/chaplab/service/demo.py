"""Deterministic synthetic demo data: climate-driven disease cases for a set of org units.

Per org unit and period the generator draws

- ``rainfall``: gamma-distributed around a seasonal profile (a rainy season peaking mid-year),
  scaled per org unit;
- ``mean_temperature``: a seasonal cycle around an org unit's mean, with noise;
- ``population``: growing 2.5% a year from an org unit's size;
- ``disease_cases``: negative binomial counts (size ``CASE_SIZE``) whose log mean is
  ``log(population / 1e5)`` + an org-unit rate + effects of rainfall 1 and 2 months before and of
  temperature 2 months before + a persistent AR(1) disturbance, so that lagged cases and lagged
  climate both carry information about the next periods.

Org units come with GeoJSON polygons: rectangles on a grid (a FeatureCollection with
``properties.id`` and ``properties.name``). The same seed always gives the same data.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from chaplab import vocabulary as period_math
from chaplab.service.forecasting.panel import Panel

DEMO_SEED = 2024
CASE_SIZE = 8.0
NAMED_ORG_UNITS: tuple[tuple[str, str], ...] = (
    ("O6uvpzGd5pu", "Bo"),
    ("fdc6uOvgoji", "Bombali"),
    ("jUb8gELQApl", "Kailahun"),
    ("kJq2mPyFEHo", "Kenema"),
    ("jmIPBj66vD6", "Moyamba"),
    ("TEQlaapDQoK", "Port Loko"),
)
_CELL_DEGREES = 0.5
_ORIGIN = (-13.2, 7.0)


@dataclass(frozen=True)
class DemoDataset:
    """A synthetic dataset: the panel of observations and the org units' polygons."""

    panel: Panel
    geojson: dict[str, Any]
    names: dict[str, str]


def demo_dataset(seed: int = DEMO_SEED) -> DemoDataset:
    """Six named org units, ten years of monthly data (2015-2024)."""
    return generate_demo(n_org_units=6, n_years=10, period_type=period_math.MONTH, seed=seed)


def weekly_demo_dataset(seed: int = DEMO_SEED) -> DemoDataset:
    """Six named org units, ten years of ISO-weekly data (2015W01-2024W52)."""
    return generate_demo(n_org_units=6, n_years=10, period_type=period_math.WEEK, seed=seed)


def generate_demo(
    n_org_units: int = 6,
    n_years: int = 10,
    period_type: str = period_math.MONTH,
    seed: int = DEMO_SEED,
    start_year: int = 2015,
) -> DemoDataset:
    """Synthetic data for ``n_org_units`` org units, ``n_years`` whole years from ``start_year``."""
    if isinstance(n_org_units, bool) or not isinstance(n_org_units, int) or n_org_units < 1:
        raise ValueError(f"n_org_units must be a positive integer, got {n_org_units!r}")
    if isinstance(n_years, bool) or not isinstance(n_years, int) or n_years < 1:
        raise ValueError(f"n_years must be a positive integer, got {n_years!r}")
    periods = _periods(period_type, start_year, n_years)
    ids, names = _org_units(n_org_units)
    features = _features(np.random.default_rng(seed), periods, period_type, n_org_units, start_year)
    panel = Panel(period_type=period_type, periods=periods, org_units=ids, features=features)
    return DemoDataset(
        panel=panel, geojson=_geojson(ids, names), names=dict(zip(ids, names, strict=True))
    )


def _periods(period_type: str, start_year: int, n_years: int) -> list[str]:
    last_year = start_year + n_years - 1
    if period_type == period_math.MONTH:
        return period_math.period_range(f"{start_year}01", f"{last_year}12")
    if period_type == period_math.WEEK:
        last_week = period_math.iso_weeks_in_year(last_year)
        return period_math.period_range(f"{start_year}W01", f"{last_year}W{last_week:02d}")
    raise ValueError(
        f"period_type {period_type!r} is not one of {', '.join(period_math.PERIOD_TYPES)}"
    )


def _org_units(count: int) -> tuple[list[str], list[str]]:
    named = list(NAMED_ORG_UNITS[:count])
    generated = [
        (f"OU_{index:05d}", f"District {index}") for index in range(len(named) + 1, count + 1)
    ]
    pairs = named + generated
    return [ou_id for ou_id, _ in pairs], [name for _, name in pairs]


def _features(
    rng: np.random.Generator, periods: list[str], period_type: str, n_units: int, start_year: int
) -> dict[str, np.ndarray]:
    per_year = period_math.season_length(period_type)
    per_month = per_year / 12.0
    n_periods = len(periods)
    phase = 2.0 * np.pi * np.array([period_math.season_position(p) for p in periods]) / per_year
    years_elapsed = np.array([int(p[:4]) - start_year for p in periods], dtype=np.float64)

    wetness = rng.uniform(0.7, 1.4, size=(n_units, 1))
    warmth = rng.uniform(-1.5, 1.5, size=(n_units, 1))
    size = rng.uniform(2e5, 8e5, size=(n_units, 1))
    rate = rng.uniform(3.2, 4.2, size=(n_units, 1)) - math.log(per_month)

    rain_mean = 180.0 / per_month * wetness * np.exp(1.1 * np.sin(phase - 2.0))[None, :]
    rainfall = rng.gamma(4.0, rain_mean / 4.0, size=(n_units, n_periods))
    temperature = (
        26.0
        + warmth
        + 2.5 * np.sin(phase - 0.8)[None, :]
        + rng.normal(0.0, 0.6, (n_units, n_periods))
    )
    population = np.round(size * 1.025 ** years_elapsed[None, :])

    lag_1, lag_2 = max(1, round(per_month)), max(2, round(2 * per_month))
    rain_signal = np.log1p(rainfall / (100.0 / per_month))
    disturbance = _ar1(
        rng,
        n_units,
        n_periods,
        persistence=0.7 ** (1 / per_month),
        scale=0.25 / math.sqrt(per_month),
    )
    log_mean = np.log(population / 1e5) + rate + disturbance
    log_mean[:, lag_1:] += 0.35 * rain_signal[:, :-lag_1]
    log_mean[:, lag_2:] += 0.25 * rain_signal[:, :-lag_2] + 0.12 * (temperature[:, :-lag_2] - 26.0)
    mean = np.exp(log_mean)
    cases = rng.negative_binomial(CASE_SIZE, CASE_SIZE / (CASE_SIZE + mean)).astype(np.float64)
    return {
        "rainfall": np.round(rainfall, 1),
        "mean_temperature": np.round(temperature, 2),
        "population": population,
        "disease_cases": cases,
    }


def _ar1(
    rng: np.random.Generator, n_units: int, n_periods: int, persistence: float, scale: float
) -> np.ndarray:
    """A stationary AR(1) series per org unit."""
    shocks = rng.normal(0.0, scale, size=(n_units, n_periods))
    series = np.empty((n_units, n_periods))
    series[:, 0] = shocks[:, 0] / math.sqrt(1.0 - persistence**2)
    for t in range(1, n_periods):
        series[:, t] = persistence * series[:, t - 1] + shocks[:, t]
    return series


def _geojson(ids: list[str], names: list[str]) -> dict[str, Any]:
    """Rectangles on a grid, counter-clockwise closed rings (RFC 7946)."""
    columns = math.ceil(math.sqrt(len(ids)))
    features = []
    for index, (ou_id, name) in enumerate(zip(ids, names, strict=True)):
        row, column = divmod(index, columns)
        west = round(_ORIGIN[0] + column * _CELL_DEGREES, 6)
        south = round(_ORIGIN[1] + row * _CELL_DEGREES, 6)
        east, north = round(west + _CELL_DEGREES, 6), round(south + _CELL_DEGREES, 6)
        ring = [[west, south], [east, south], [east, north], [west, north], [west, south]]
        features.append(
            {
                "type": "Feature",
                "id": ou_id,
                "properties": {"id": ou_id, "name": name},
                "geometry": {"type": "Polygon", "coordinates": [ring]},
            }
        )
    return {"type": "FeatureCollection", "features": features}
