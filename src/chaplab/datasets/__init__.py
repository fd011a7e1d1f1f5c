"""Real public surveillance data, converted to the service's observations and uploaded in one
call; fetched from the package index on first use and cached, never at start-up.

- :func:`dengue_brazil`: monthly dengue cases, population and climate of Brazil's 558
  microregions, 2000-2019 (or one state's), as a wide frame and a GeoJSON without shapes;
- :func:`upload_dengue_brazil`: the same stored on a server as a dataset;
- :func:`org_units_of`: the ids of one state's (any parent's) org units in such a GeoJSON, to
  chart or tabulate one state out of a country.

Where the data come from, their licence and how they are converted: docs/datasets.md.
"""

from __future__ import annotations

from chaplab.datasets._places import org_units_of
from chaplab.datasets._wheel import DatasetUnavailableError, cache_folder
from chaplab.datasets.dengue_brazil import DatasetTable, dengue_brazil, upload_dengue_brazil

__all__ = [
    "DatasetTable",
    "DatasetUnavailableError",
    "cache_folder",
    "dengue_brazil",
    "org_units_of",
    "upload_dengue_brazil",
]
