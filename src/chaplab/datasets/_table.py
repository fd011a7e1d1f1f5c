"""What every dataset of :mod:`chaplab.datasets` is: observations as a wide frame, and its org
units as a GeoJSON FeatureCollection whose features have a name and no shape
(:func:`chaplab.vocabulary.unlocated_features`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    import pandas as pd


class DatasetTable(NamedTuple):
    """Observations as a wide frame (``time_period``, ``location``, ``org_unit_name`` and one
    column per feature) and the org units as a GeoJSON FeatureCollection."""

    observations: pd.DataFrame
    geojson: dict[str, Any]
