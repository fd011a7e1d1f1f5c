"""Entries bytes in the regular compact layout are cut into columns without parsing rows; the
frame is the one the row-by-row path builds, and any other JSON (or no JSON) is left to it."""

from __future__ import annotations

import numpy as np
import orjson
import pandas as pd
import pytest

from chaplab.frames import entries_to_frame
from chaplab.jsonrows import regular_columns

TEXTS = ["orgUnit", "period", "splitPeriod"]
NUMBERS = ["quantile", "value"]


def _grid(units: list[str], months: int = 3, splits: int = 2, seed: int = 0) -> list[dict]:
    """Entries in the service's order: split, org unit, period, quantile."""
    rng = np.random.default_rng(seed)
    return [
        {
            "orgUnit": unit,
            "period": f"2021{s + m + 1:02d}",
            "quantile": q,
            "value": float(np.float32(rng.gamma(2.0, 30.0))),
            "splitPeriod": f"2020{s + 1:02d}",
        }
        for s in range(splits)
        for unit in units
        for m in range(months)
        for q in (0.1, 0.5, 0.9)
    ]


def _row_by_row(body: bytes) -> pd.DataFrame:
    return entries_to_frame(orjson.loads(body))


def _assert_same_frame(body: bytes) -> None:
    pd.testing.assert_frame_equal(entries_to_frame(body), _row_by_row(body))


def _shuffled(rows: list[dict], seed: int = 1) -> list[dict]:
    return [rows[i] for i in np.random.default_rng(seed).permutation(len(rows))]


REGULAR = {
    "service order": _grid(["OU_B", "OU_A", "O6uvpzGd5pu"]),
    "shuffled": _shuffled(_grid(["x", "yyyyyyyyyyyyyyyyyy", "zz"])),
    "repeated rows": _grid(["A"]) * 2,
    "unicode and odd ids": _grid(["Köln ☃", "", "a},{b", "a b", "[x]"]),
    "one row": _grid(["A"], months=1, splits=1)[:1],
    "weekly across the year end": [
        {"orgUnit": "A", "period": week, "quantile": 0.5, "value": 1.0, "splitPeriod": "2020W50"}
        for week in ["2021W01", "2020W53", "2020-W52", "2021-W01", "2020W51"]
    ],
    "numbers of every form": [
        {
            "orgUnit": "A",
            "period": "202101",
            "quantile": 0.5,
            "value": value,
            "splitPeriod": "202012",
        }
        for value in [None, -0.0, 1, -12, 1.5e-7, 3.4028235e38, 1e22, 0.1]
    ],
}


@pytest.mark.parametrize("name", REGULAR)
def test_regular_bodies_are_read_column_wise_into_the_same_frame(name: str) -> None:
    body = orjson.dumps(REGULAR[name])
    assert regular_columns(body, TEXTS, NUMBERS) is not None
    _assert_same_frame(body)


def test_prediction_entries_have_their_own_regular_layout() -> None:
    rows = [{k: v for k, v in row.items() if k != "splitPeriod"} for row in _grid(["A", "B"])]
    body = orjson.dumps(rows)
    assert regular_columns(body, ["orgUnit", "period"], NUMBERS) is not None
    frame = entries_to_frame(body)
    assert "split_period" not in frame.columns
    _assert_same_frame(body)
    with_split = entries_to_frame(orjson.dumps(_grid(["A"])), with_split_period=False)
    assert "split_period" not in with_split.columns


def _with_last_row(rows: list[dict], **changes: object) -> list[dict]:
    return [*rows[:-1], {**rows[-1], **changes}]


ROWS = _grid(["OU_A", "OU_B"])
OTHER_JSON = {
    "pretty printed": orjson.dumps(ROWS, option=orjson.OPT_INDENT_2),
    "escaped text": orjson.dumps(_grid(['say "hi"', "back\\slash", "tab\there"])),
    "a colon in a value": orjson.dumps(_grid(["OU:1", "OU:2"])),
    "long ids": orjson.dumps(_grid(["x" * 300, "y" * 5])),
    "keys in another order": orjson.dumps([*ROWS[:-1], dict(reversed(list(ROWS[-1].items())))]),
    "an extra field": orjson.dumps([{**row, "extra": 1} for row in ROWS]),
    "a field fewer": orjson.dumps([{**row, "splitPeriod": None} for row in ROWS]),
    "a boolean value": orjson.dumps(_with_last_row(ROWS, value=True)),
    "spaces around a number": orjson.dumps(ROWS).replace(b'"value":', b'"value": '),
}


@pytest.mark.parametrize("name", OTHER_JSON)
def test_other_json_is_parsed_row_by_row_into_the_same_frame(name: str) -> None:
    body = OTHER_JSON[name]
    assert regular_columns(body, TEXTS, NUMBERS) is None
    _assert_same_frame(body)


BROKEN = {
    "a text value": (orjson.dumps(_with_last_row(ROWS, value="many")), "not a number"),
    "a missing value": (orjson.dumps(_with_last_row(ROWS, value=None)), None),
    "invalid UTF-8": (orjson.dumps(ROWS).replace(b"OU_B", b"OU_\xff"), "not valid JSON"),
    "a bad number": (orjson.dumps(ROWS).replace(b'"value":', b'"value":01', 1), "not valid"),
    "two numbers": (orjson.dumps(ROWS).replace(b'"value":', b'"value":1 ', 1), "not valid"),
    "a nested value": (orjson.dumps(_with_last_row(ROWS, value=[1.0])), "not a number"),
    "a bad period": (orjson.dumps(_with_last_row(ROWS, period="2021-1")), "2021-1"),
    "unclosed": (orjson.dumps(ROWS)[:-1], "not valid JSON"),
}


@pytest.mark.parametrize("name", BROKEN)
def test_broken_entries_get_the_row_by_row_errors(name: str) -> None:
    body, message = BROKEN[name]
    if message is None:
        assert np.isnan(entries_to_frame(body)["value"]).sum() == 1
        return
    with pytest.raises(ValueError, match=message):
        entries_to_frame(body)


def _outcome(parse: object, body: bytes) -> pd.DataFrame | str:
    try:
        return parse(body)  # type: ignore[operator]
    except ValueError:
        return "ValueError"


def _row_by_row_or_invalid(body: bytes) -> pd.DataFrame | str:
    try:
        rows = orjson.loads(body)
    except orjson.JSONDecodeError:
        return "ValueError"
    return _outcome(entries_to_frame, rows)


@pytest.mark.parametrize("seed", range(4))
def test_any_changed_byte_gives_what_the_full_parse_gives(seed: int) -> None:
    body = orjson.dumps(_grid(["OU_A", "Ü", "OU_C"], months=2, splits=2, seed=seed))
    rng = np.random.default_rng(seed)
    alphabet = np.frombuffer(b'{}[],:"\\ 0123456789.-enulltrueOU_A\xc3\xbc\x01', dtype=np.uint8)
    for _ in range(150):
        changed = bytearray(body)
        at = int(rng.integers(len(changed)))
        if rng.random() < 0.2:
            del changed[at]
        else:
            changed[at] = int(rng.choice(alphabet))
        expected = _row_by_row_or_invalid(bytes(changed))
        found = _outcome(entries_to_frame, bytes(changed))
        if isinstance(expected, str):
            assert found == expected, bytes(changed)
        else:
            pd.testing.assert_frame_equal(found, expected)
