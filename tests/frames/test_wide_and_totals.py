from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from chaplab.frames import (
    actuals_to_frame,
    entries_to_frame,
    national_total,
    tidy,
    wide,
    with_national_total,
)


def _evaluation() -> pd.DataFrame:
    rows = [
        {"orgUnit": ou, "period": pe, "quantile": q, "value": float(v), "splitPeriod": split}
        for v, (ou, split, pe, q) in enumerate(
            (ou, split, pe, q)
            for ou in ("OU_A", "OU_B")
            for split in ("2020W52", "2020W53")
            for pe in ("2020W53", "2021W01", "2021W02")
            for q in (0.1, 0.25, 0.5, 0.75, 0.9)
        )
    ]
    return entries_to_frame(rows)


def test_wide_has_one_column_per_quantile_indexed_by_keys() -> None:
    table = wide(_evaluation())
    assert list(table.columns) == ["q0.1", "q0.25", "q0.5", "q0.75", "q0.9"]
    assert list(table.index.names) == ["org_unit", "split_period", "period"]
    assert len(table) == 2 * 2 * 3
    assert table["q0.5"].iloc[0] == 2.0


def test_tidy_of_wide_round_trips() -> None:
    frame = _evaluation()
    pd.testing.assert_frame_equal(tidy(wide(frame)), frame)


def test_wide_rejects_frames_without_quantiles_and_duplicates() -> None:
    with pytest.raises(ValueError, match="quantile"):
        wide(_evaluation().drop(columns="quantile"))
    frame = _evaluation()
    with pytest.raises(ValueError, match="more than one value"):
        wide(pd.concat([frame, frame.iloc[:1]]))
    with pytest.raises(ValueError, match="not quantile columns"):
        tidy(wide(frame).assign(extra=1))


def test_national_total_sums_org_units_under_adm0() -> None:
    actuals = actuals_to_frame(
        {
            "data": [
                {"pe": "202101", "ou": "A", "value": 1},
                {"pe": "202101", "ou": "B", "value": 2},
                {"pe": "202102", "ou": "A", "value": 4},
                {"pe": "202102", "ou": "B", "value": 8},
            ]
        }
    )
    total = national_total(actuals)
    assert list(total["org_unit"]) == ["adm0", "adm0"]
    assert list(total["value"]) == [3.0, 12.0]
    combined = with_national_total(actuals)
    assert list(combined["org_unit"].cat.categories) == ["A", "B", "adm0"]
    # Adding the total again does not count the existing adm0 rows twice.
    pd.testing.assert_frame_equal(with_national_total(combined), combined)


def test_national_total_of_quantile_frame_keeps_split_and_quantile() -> None:
    frame = _evaluation()
    total = national_total(frame)
    assert len(total) == len(frame) / 2
    a, b = (frame[frame["org_unit"] == ou]["value"].to_numpy() for ou in ("OU_A", "OU_B"))
    np.testing.assert_array_equal(total["value"].to_numpy(), a + b)
