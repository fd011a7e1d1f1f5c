"""Lists of single cases counted into a weekly panel of places.

A table that lists each case (a row per case, with its place and its ISO week) says that a
place-week without a row had no case: its count is 0, not missing. So the panel holds every org
unit in every week of the source's span, 0 where no case was listed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from chaplab.vocabulary import TARGET_COLUMN

if TYPE_CHECKING:
    import pandas as pd


def weekly_case_counts(
    places: np.ndarray,
    weeks: np.ndarray,
    cases: np.ndarray,
    labels: Mapping[str, str],
    span: Sequence[str],
) -> pd.DataFrame:
    """The observations frame (``time_period``, ``location``, ``org_unit_name``,
    ``disease_cases``) of the org units of ``labels`` (id -> name, in order) in the weeks of
    ``span`` (canonical, ``2019W01``, in order): the ``cases`` of the rows summed by their place
    (``places``) and week (``weeks``), 0 where no row falls. Rows of other places or weeks are
    not counted."""
    import pandas as pd

    grid = pd.MultiIndex.from_product([list(labels), list(span)])
    counted = pd.Series(cases).groupby([places, weeks]).sum()
    counts = counted.reindex(grid, fill_value=0).to_numpy(dtype=np.int64)
    return pd.DataFrame(
        {
            "time_period": np.tile(np.asarray(span, dtype=object), len(labels)),
            "location": np.repeat(np.asarray(list(labels), dtype=object), len(span)),
            "org_unit_name": np.repeat(np.asarray(list(labels.values()), dtype=object), len(span)),
            TARGET_COLUMN: counts,
        }
    )
