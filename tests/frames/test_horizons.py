"""Every forecast frame says how far ahead each row is: ``horizon``, 1 at the forecast's first
period (the split period of an evaluation, the first period of a prediction), as chap-core's
flat representation counts."""

from __future__ import annotations

import numpy as np
import orjson
import pandas as pd
import pytest

from chaplab.frames import (
    HORIZON,
    entries_to_frame,
    national_total,
    tidy,
    wide,
    with_horizon,
    with_org_unit_names,
)
from chaplab.vocabulary import BacktestPlan, forecast_horizon, period_range


def _evaluation_entries(periods: list[str], n_periods: int, n_splits: int) -> list[dict]:
    return [
        {"orgUnit": ou, "splitPeriod": w.split_period, "period": p, "quantile": q, "value": 1.0}
        for w in BacktestPlan(n_periods=n_periods, n_splits=n_splits).split_windows(periods)
        for p in w.forecast_periods
        for ou in ("B", "A")
        for q in (0.1, 0.5, 0.9)
    ]


def test_an_evaluation_frame_counts_each_split_from_its_split_period() -> None:
    entries = _evaluation_entries(period_range("202301", "202312"), n_periods=3, n_splits=2)
    frame = entries_to_frame(orjson.dumps(entries))  # the service's regular layout
    assert list(frame.columns) == [
        "org_unit",
        "split_period",
        "period",
        HORIZON,
        "quantile",
        "value",
    ]
    assert frame[HORIZON].dtype == np.int16
    rows = frame[frame["org_unit"] == "A"].drop_duplicates(["split_period", "period"])
    assert [
        (str(s), str(p), h) for s, p, h in rows[["split_period", "period", HORIZON]].values
    ] == [
        ("2023-09", "2023-09", 1),
        ("2023-09", "2023-10", 2),
        ("2023-09", "2023-11", 3),
        ("2023-10", "2023-10", 1),
        ("2023-10", "2023-11", 2),
        ("2023-10", "2023-12", 3),
    ]
    pd.testing.assert_frame_equal(entries_to_frame(entries), frame)  # the row-wise path


def test_weekly_horizons_cross_a_53_week_year() -> None:
    entries = _evaluation_entries(period_range("2020W40", "2021W02"), n_periods=4, n_splits=1)
    frame = entries_to_frame(entries)
    assert frame["split_period"].iloc[0] == pd.Period("2020-12-21", freq="W-SUN")  # 2020W52
    by_period = dict(zip(frame["period"].astype(str), frame[HORIZON], strict=True))
    assert by_period == {"2020-W52": 1, "2020-W53": 2, "2021-W01": 3, "2021-W02": 4}
    for period, horizon in by_period.items():
        assert horizon == forecast_horizon("2020W52", period)


def test_a_prediction_frame_counts_from_its_first_period() -> None:
    entries = [
        {"orgUnit": ou, "period": p, "quantile": 0.5, "value": 2.0}
        for ou in ("A", "B")
        for p in ("202502", "202412", "202501")
    ]
    frame = entries_to_frame(entries)
    assert list(frame.columns) == ["org_unit", "period", HORIZON, "quantile", "value"]
    assert list(frame.loc[frame["org_unit"] == "B", HORIZON]) == [1, 2, 3]


def test_a_split_named_by_the_period_before_its_forecasts_is_a_clear_error() -> None:
    def entry(split_period: str, period: str) -> dict:
        return {"orgUnit": "A", "splitPeriod": split_period, "period": period, "quantile": 0.5,
                "value": 1.0}  # fmt: skip

    # a service naming splits by the last period its model saw
    with pytest.raises(ValueError, match=r"'202408' comes before the first forecast period "):
        entries_to_frame([entry("202408", "202409"), entry("202409", "202408")])
    with pytest.raises(ValueError, match="differ in period type"):
        entries_to_frame([entry("2024W01", "202401")])


def test_horizon_survives_wide_tidy_names_and_national_totals() -> None:
    frame = entries_to_frame(
        _evaluation_entries(period_range("202301", "202312"), n_periods=2, n_splits=3)
    )
    pd.testing.assert_frame_equal(tidy(wide(frame)), frame, check_categorical=False)
    named = with_org_unit_names(frame, {"A": "Alpha", "B": "Beta"})
    assert list(named[HORIZON]) == list(frame[HORIZON])
    total = national_total(frame)
    assert list(total[HORIZON]) == [
        forecast_horizon(split.strftime("%Y%m"), period.strftime("%Y%m"))
        for split, period in zip(total["split_period"], total["period"], strict=True)
    ]


def test_with_horizon_replaces_a_stale_column() -> None:
    frame = entries_to_frame(
        _evaluation_entries(period_range("202301", "202306"), n_periods=2, n_splits=1)
    )
    stale = frame.assign(horizon=99)
    pd.testing.assert_frame_equal(with_horizon(stale), frame)
