"""Frames the frame tests share."""

from __future__ import annotations

import pandas as pd

from chaplab.frames import entries_to_frame


def entries_of_three_places() -> pd.DataFrame:
    """An evaluation frame of one split: two periods and two quantiles of three org units, two
    of Sierra Leone's districts and one no GeoJSON names."""
    entries = [
        {"orgUnit": ou, "splitPeriod": "202401", "period": pe, "quantile": q, "value": 1.0}
        for ou in ("fdc6uOvgoji", "O6uvpzGd5pu", "unknown1")
        for pe in ("202402", "202403")
        for q in (0.1, 0.9)
    ]
    return entries_to_frame(entries)
