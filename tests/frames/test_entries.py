from __future__ import annotations

import numpy as np
import orjson
import pandas as pd
import pytest

from chaplab.frames import actuals_to_frame, entries_to_frame


def _entries(periods: list[str], org_units: list[str], split: str | None = "2020W50") -> list:
    rng = np.random.default_rng(1)
    rows = [
        {"orgUnit": ou, "period": pe, "quantile": q, "value": float(rng.integers(0, 100))}
        | ({"splitPeriod": split} if split else {})
        for ou in org_units
        for pe in periods
        for q in (0.9, 0.1, 0.5)
    ]
    return [rows[i] for i in rng.permutation(len(rows))]


WEEKS_ACROSS_YEAR_END = ["2021W01", "2020W52", "2021W02", "2020W53", "2020W51"]


def test_evaluation_entries_from_bytes_have_tidy_dtypes() -> None:
    frame = entries_to_frame(orjson.dumps(_entries(WEEKS_ACROSS_YEAR_END, ["OU_B", "OU_A"])))
    columns = ["org_unit", "split_period", "period", "horizon", "quantile", "value"]
    assert list(frame.columns) == columns
    assert isinstance(frame["org_unit"].dtype, pd.CategoricalDtype)
    assert frame["period"].dtype == pd.PeriodDtype("W-SUN")
    assert frame["split_period"].dtype == pd.PeriodDtype("W-SUN")
    assert frame["quantile"].dtype == np.float64
    assert frame["value"].dtype == np.float64
    assert len(frame) == 2 * 5 * 3


def test_weekly_frames_sort_chronologically_across_the_year_end() -> None:
    frame = entries_to_frame(_entries(WEEKS_ACROSS_YEAR_END, ["OU_B", "OU_A"]))
    first = frame[frame["org_unit"] == "OU_A"]
    assert list(first["org_unit"].unique()) == ["OU_A"]
    assert frame["org_unit"].iloc[0] == "OU_A"
    weeks = first["period"].drop_duplicates().map(lambda p: p.start_time.date().isoformat())
    assert list(weeks) == ["2020-12-14", "2020-12-21", "2020-12-28", "2021-01-04", "2021-01-11"]
    assert list(first["quantile"].iloc[:3]) == [0.1, 0.5, 0.9]
    assert frame.index.equals(pd.RangeIndex(len(frame)))


def test_snake_case_dicts_models_and_wire_dicts_give_the_same_frame() -> None:
    wire = _entries(["202101", "2021-02"], ["OU_A"], split="2020-12")
    snake = [
        {
            "org_unit": e["orgUnit"],
            "period": e["period"],
            "quantile": e["quantile"],
            "value": e["value"],
            "split_period": e["splitPeriod"],
        }
        for e in wire
    ]

    class Entry:
        def __init__(self, row: dict) -> None:
            self.__dict__.update(row)

    expected = entries_to_frame(wire)
    pd.testing.assert_frame_equal(entries_to_frame(snake), expected)
    pd.testing.assert_frame_equal(entries_to_frame([Entry(row) for row in snake]), expected)
    assert expected["period"].dtype == pd.PeriodDtype("M")


def test_prediction_entries_have_no_split_column() -> None:
    frame = entries_to_frame(_entries(["202101"], ["OU_A"], split=None))
    assert "split_period" not in frame.columns


def test_empty_input_gives_empty_frame_with_dtypes() -> None:
    frame = entries_to_frame(b"[]", with_split_period=True)
    assert frame.empty
    columns = ["org_unit", "split_period", "period", "horizon", "quantile", "value"]
    assert list(frame.columns) == columns
    assert frame["quantile"].dtype == np.float64
    assert isinstance(frame["org_unit"].dtype, pd.CategoricalDtype)
    empty_prediction = entries_to_frame([])
    assert list(empty_prediction.columns) == ["org_unit", "period", "horizon", "quantile", "value"]


def test_adm0_passes_through_as_an_org_unit() -> None:
    frame = entries_to_frame(_entries(["202101"], ["adm0", "OU_A"], split="202101"))
    assert set(frame["org_unit"].cat.categories) == {"adm0", "OU_A"}


def test_frame_stays_under_forty_bytes_per_row() -> None:
    months = [f"{y}{m:02d}" for y in range(2015, 2025) for m in range(1, 13)]
    rows = [
        {
            "orgUnit": f"OU_{i % 50}",
            "period": months[3 + (i // 50) % 117],
            "quantile": 0.5,
            "value": 1.0,
            "splitPeriod": months[i % 3],
        }
        for i in range(60_000)
    ]
    frame = entries_to_frame(orjson.dumps(rows))
    assert frame.memory_usage(deep=True).sum() / len(frame) <= 40


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (b'{"not": "a list"}', "JSON array"),
        (b"[{", "not valid JSON"),
        ([{"orgUnit": "A", "period": "202101", "quantile": 0.5}], "'value'"),
        (
            [
                {"orgUnit": "A", "period": "202101", "quantile": 0.5, "value": 1.0},
                {"orgUnit": "A", "period": "202102", "quantile": 0.5},
            ],
            "entry 1 has no 'value'",
        ),
        ([{"orgUnit": "A", "period": "2021-1", "quantile": 0.5, "value": 1}], "2021-1"),
        ([{"orgUnit": "A", "period": "202101", "quantile": 0.5, "value": "many"}], "many"),
    ],
)
def test_bad_entries_get_clear_errors(payload: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        entries_to_frame(payload)


def test_null_values_become_nan() -> None:
    frame = entries_to_frame([{"orgUnit": "A", "period": "202101", "quantile": 0.5, "value": None}])
    assert np.isnan(frame["value"].iloc[0])


def test_actual_cases_payload_becomes_sorted_frame() -> None:
    payload = {
        "featureId": "disease_cases",
        "dhis2Id": "disease_cases",
        "data": [
            {"pe": "202102", "ou": "OU_B", "value": 3},
            {"pe": "202101", "ou": "OU_B", "value": 2},
            {"pe": "202101", "ou": "OU_A", "value": 1},
        ],
    }
    frame = actuals_to_frame(orjson.dumps(payload))
    assert list(frame.columns) == ["org_unit", "period", "value"]
    assert list(frame["value"]) == [1.0, 2.0, 3.0]
    assert frame["period"].dtype == pd.PeriodDtype("M")
    assert actuals_to_frame({**payload, "data": []}).empty
    with pytest.raises(ValueError, match="'data'"):
        actuals_to_frame({"featureId": "x"})
