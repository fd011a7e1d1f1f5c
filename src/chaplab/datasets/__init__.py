"""Real public surveillance data, converted to the service's observations and uploaded in one
call; fetched from the package index on first use and cached, never at start-up.

- :func:`dengue_brazil`: monthly dengue cases, population and climate of Brazil's 558
  microregions, 2000-2019 (or one state's), as a wide frame and a GeoJSON without shapes;
- :func:`dengue_peru`: weekly notified dengue cases of Peru's districts, 2019-2022 (one
  department's, Tumbes by default, or all 524);
- :func:`dengue_taiwan`: weekly confirmed dengue cases of Taiwan's counties and cities,
  1998-2024 (the three of the south by default, or all 22);
- :func:`upload_dengue_brazil`, :func:`upload_dengue_peru`, :func:`upload_dengue_taiwan`: the
  same stored on a server as a dataset;
- :func:`org_units_of`: the ids of one state's (any parent's) org units in such a GeoJSON, to
  chart or tabulate one state out of a country.

Where the data come from, their licences, how they are converted and how weeks are counted:
docs/datasets.md.
"""

from __future__ import annotations

from chaplab.datasets._places import org_units_of
from chaplab.datasets._table import DatasetTable
from chaplab.datasets._wheel import DatasetUnavailableError, cache_folder
from chaplab.datasets.dengue_brazil import dengue_brazil, upload_dengue_brazil
from chaplab.datasets.dengue_peru import dengue_peru, upload_dengue_peru
from chaplab.datasets.dengue_taiwan import dengue_taiwan, upload_dengue_taiwan

__all__ = [
    "DatasetTable",
    "DatasetUnavailableError",
    "cache_folder",
    "dengue_brazil",
    "dengue_peru",
    "dengue_taiwan",
    "org_units_of",
    "upload_dengue_brazil",
    "upload_dengue_peru",
    "upload_dengue_taiwan",
]
