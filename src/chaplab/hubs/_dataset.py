"""A hub's target data as a dataset the modeling service stores: the wide table of observations
and a GeoJSON of the places, so that the service's models forecast the hub's targets."""

from __future__ import annotations

from typing import Any

import pandas as pd

from chaplab.errors import ArgumentError
from chaplab.frames import ORG_UNIT, ORG_UNIT_NAME, PERIOD, VALUE, format_periods, parse_periods
from chaplab.hubs._config import HubConfig
from chaplab.hubs._read import target_data
from chaplab.vocabulary import TARGET_COLUMN, unlocated_features

POPULATION = "population"


def hub_dataset(
    hub: Any, *, target: str | None = None, until: Any = None
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The hub's target data of the places, for ``client.create_dataset(name, table, geojson)``.

    The table has ``time_period`` (ISO weeks), ``location`` (the hub's codes), the target as
    ``disease_cases`` and, when the locations file has one, ``population``; weeks up to
    ``until`` (a week, in any spelling chaplab reads), all by default. The GeoJSON has one
    feature per place with its code as ``id`` and its name, and no geometry: hubs have no
    boundaries, so the service can name the places but draws no map of them.
    """
    config = HubConfig.connect(hub)
    actuals = target_data(config, target, None)
    if until is not None:
        last = parse_periods([until])[0]
        if last.freqstr != actuals[PERIOD].dtype.freq.freqstr:
            raise ArgumentError(f"until {until!r} is not a week such as '2023W05'")
        actuals = actuals[actuals[PERIOD] <= last]
    codes = actuals[ORG_UNIT].astype(str)
    table = pd.DataFrame(
        {
            "time_period": format_periods(actuals[PERIOD]),
            "location": codes.to_numpy(),
            TARGET_COLUMN: actuals[VALUE].to_numpy(),
        }
    )
    locations = config.locations
    if all(POPULATION in locations.get(code, {}) for code in codes.unique()):
        populations = {code: float(locations[code][POPULATION]) for code in codes.unique()}
        table[POPULATION] = codes.map(populations).to_numpy()
    names = dict(zip(codes, actuals[ORG_UNIT_NAME].astype(str), strict=True))
    return table, unlocated_features(names)
