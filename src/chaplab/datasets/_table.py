"""What every dataset of :mod:`chaplab.datasets` is: observations as a wide frame, and its org
units as a GeoJSON FeatureCollection whose features have a name and no shape."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    import pandas as pd


class DatasetTable(NamedTuple):
    """Observations as a wide frame (``time_period``, ``location``, ``org_unit_name`` and one
    column per feature) and the org units as a GeoJSON FeatureCollection."""

    observations: pd.DataFrame
    geojson: dict[str, Any]


def unlocated_features(
    names: Mapping[str, str], parents: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """A FeatureCollection of one feature per org unit, in the order of ``names`` (id -> name):
    its id, name and parent's name (``parentName``, when ``parents`` gives one) and a null
    geometry, an "unlocated" feature of RFC 7946. The tables have no boundaries and none are
    made up; chaplab's service and chap-core 2.5.1 both accept such features."""
    features = [
        {
            "type": "Feature",
            "id": org_unit,
            "properties": {
                "id": org_unit,
                "name": name,
                **({"parentName": parents[org_unit]} if parents else {}),
            },
            "geometry": None,
        }
        for org_unit, name in names.items()
    ]
    return {"type": "FeatureCollection", "features": features}
