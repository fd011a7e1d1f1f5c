"""Columns written as a JSON array are byte for byte what orjson writes for the same rows, and
read back column-wise into the same values, whatever the members' kinds and order and however
the rows fall into blocks; a request object's array member is found only where it is the
top-level member's whole value."""

from __future__ import annotations

from typing import Any

import numpy as np
import orjson
import pytest

from chaplab.jsonrows import Coded, Rows, _read, _write, member_array, regular_columns, replaced

UNITS = ["OU_A", "Köln ☃", 'say "hi"', "back\\slash", "", "a},{b", "x" * 40]
VALUES = [1.0, -0.0, 12.5, float("nan"), 1e22, 1.5e-7, -3.0, 3.4028235e38, 0.1]


def _rows(size: int, kinds: str) -> tuple[list[tuple[str, Any]], list[dict[str, Any]]]:
    """Members of ``kinds`` (``t`` a coded text, ``n`` numbers) over ``size`` rows, and the
    same rows as dicts."""
    rng = np.random.default_rng(len(kinds) * 100 + size)
    members: list[tuple[str, Any]] = []
    for index, kind in enumerate(kinds):
        key = f"{kind}{index}"
        if kind == "t":
            codes = rng.integers(0, len(UNITS), size)
            members.append((key, Coded(codes, UNITS)))
        else:
            members.append((key, rng.choice(VALUES, size)))
    dicts = [
        {
            key: column.uniques[column.codes[row]]
            if isinstance(column, Coded)
            else (None if np.isnan(column[row]) else float(column[row]))
            for key, column in members
        }
        for row in range(size)
    ]
    return members, dicts


LAYOUTS = ["t", "n", "tn", "nt", "tnt", "ntn", "nn", "tt", "ttnt", "tnnt"]


@pytest.mark.parametrize("kinds", LAYOUTS)
@pytest.mark.parametrize("size", [1, 2, 7, 20])
def test_rows_are_written_as_orjson_writes_them_across_blocks(
    kinds: str, size: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_write, "BLOCK_ROWS", 3)
    members, dicts = _rows(size, kinds)
    rows = Rows(members)
    assert rows.json() == orjson.dumps(dicts)
    assert b"".join(rows.chunks()) == rows.json()
    assert len(list(rows.chunks())) == -(-size // 3)


def test_no_rows_are_an_empty_array_and_columns_of_other_lengths_are_refused() -> None:
    assert Rows([("a", np.array([]))]).json() == b"[]"
    with pytest.raises(ValueError, match="one value per row"):
        Rows([("a", np.array([1.0])), ("b", Coded(np.array([0, 0]), ["x"]))])


@pytest.mark.parametrize("kinds", ["tn", "ntt", "tnnt"])
def test_what_is_written_is_read_back_column_wise_across_blocks(
    kinds: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_read, "BLOCK_ROWS", 4)
    members, _ = _rows(50, kinds)
    plain = [(key, _plain_codes(c) if isinstance(c, Coded) else c) for key, c in members]
    body = Rows(plain).json()
    texts = [key for key, c in plain if isinstance(c, Coded)]
    numbers = [key for key, c in plain if not isinstance(c, Coded)]
    columns = regular_columns(body, texts, numbers)
    assert columns is not None
    for key, column in plain:
        read = columns[key]
        if isinstance(column, Coded):
            assert isinstance(read, Coded)
            assert [read.uniques[c] for c in read.codes] == [
                column.uniques[c] for c in column.codes
            ]
            expected = list(dict.fromkeys(column.uniques[c] for c in column.codes))
            assert read.uniques == expected  # in order of first appearance
        else:
            np.testing.assert_array_equal(read, column)


def _plain_codes(column: Coded) -> Coded:
    """The column without the texts a regular body cannot hold (quotes and backslashes are
    escaped by JSON)."""
    plain = [text.replace('"', "'").replace("\\", "/") for text in column.uniques]
    return Coded(column.codes, plain)


def _body(**members: Any) -> bytes:
    return orjson.dumps(members)


OBSERVATIONS = [{"featureName": "cases", "orgUnit": "A", "period": "202101", "value": 1.0}]


def test_a_top_level_member_array_is_read_apart_from_the_rest() -> None:
    body = _body(name="x", geojson={"type": "FeatureCollection"}, observations=OBSERVATIONS)
    found = member_array(body, ["observations", "providedData"])
    assert found is not None
    key, start, end = found
    assert orjson.loads(body[start:end]) == OBSERVATIONS
    assert replaced(body, key, start, end) == {
        "name": "x",
        "geojson": {"type": "FeatureCollection"},
        "observations": None,
    }


def test_an_array_of_the_same_name_deeper_in_the_body_is_not_taken_for_the_member() -> None:
    nested = _body(geojson={"properties": {"observations": OBSERVATIONS}}, observations=[])
    found = member_array(nested, ["observations"])
    assert found is not None
    assert replaced(nested, *found) is None
    both = _body(geojson={"observations": OBSERVATIONS}, observations=OBSERVATIONS)
    found = member_array(both, ["observations"])
    assert found is not None
    assert replaced(both, *found) is None  # the first one found is the nested one
    assert member_array(_body(name="x"), ["observations"]) is None
    in_a_list = orjson.dumps([{"observations": OBSERVATIONS}])
    found = member_array(in_a_list, ["observations"])
    assert found is not None
    assert replaced(in_a_list, *found) is None  # not an object's member at the top
