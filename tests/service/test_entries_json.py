"""The entries JSON is exactly what ``orjson.dumps`` writes for the same rows, for every layout
the grid writer can meet: variable-length texts, NaN, one row, none, many blocks."""

from __future__ import annotations

import numpy as np
import orjson
import pytest

from chaplab.service import gridjson
from chaplab.service.entries import (
    EvaluationLayout,
    evaluation_entries_json,
    evaluation_entries_stream,
    prediction_entries_json,
    prediction_entries_stream,
)
from chaplab.service.metrics import quantiles_from_sorted


def _samples(shape: tuple[int, ...], seed: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.sort(rng.gamma(2.0, 40.0, shape).astype(np.float32), axis=-1)


def _expected_evaluation(
    samples: np.ndarray,
    units: list[str],
    splits: list[str],
    periods: list[list[str]],
    levels: list[float],
) -> bytes:
    values = quantiles_from_sorted(samples, levels).astype(np.float32)
    rows = [
        {
            "orgUnit": unit,
            "period": periods[s][p],
            "quantile": level,
            "value": None if np.isnan(values[s, u, p, q]) else values[s, u, p, q],
            "splitPeriod": splits[s],
        }
        for s in range(len(splits))
        for u, unit in enumerate(units)
        for p in range(len(periods[s]))
        for q, level in enumerate(levels)
    ]
    return orjson.dumps(rows, option=orjson.OPT_SERIALIZE_NUMPY)


def _split_layout(n_splits: int, n_periods: int) -> tuple[list[str], list[list[str]]]:
    splits = [f"2020{m:02d}" for m in range(1, n_splits + 1)]
    periods = [[f"2021{m:02d}" for m in range(k + 1, k + 1 + n_periods)] for k in range(n_splits)]
    return splits, periods


UNUSUAL_UNITS = ["A", "Région Köln ☃", "x" * 300, 'OU_with_"quote"', "back\\slash", ""]


def test_evaluation_entries_are_orjson_of_the_rows() -> None:
    units = ["O6uvpzGd5pu", "adm0x", "OU_1", *UNUSUAL_UNITS]
    splits, periods = _split_layout(3, 4)
    samples = _samples((3, len(units), 4, 50))
    levels = [0.1, 0.25, 0.5, 0.9]
    body = evaluation_entries_json(samples, EvaluationLayout(units, splits, periods), levels)
    assert body == _expected_evaluation(samples, units, splits, periods, levels)


def test_nan_is_null_and_float32_keeps_its_shortest_text() -> None:
    splits, periods = _split_layout(1, 2)
    samples = np.full((1, 1, 2, 1), np.nan, dtype=np.float32)
    samples[0, 0, 1, 0] = np.float32(0.1)
    body = evaluation_entries_json(samples, EvaluationLayout(["A"], splits, periods), [0.5])
    assert body == (
        b'[{"orgUnit":"A","period":"202101","quantile":0.5,"value":null,"splitPeriod":"202001"},'
        b'{"orgUnit":"A","period":"202102","quantile":0.5,"value":0.1,"splitPeriod":"202001"}]'
    )


def test_one_row_and_no_rows() -> None:
    samples = np.array([[[[2.5]]]], dtype=np.float32)
    one = evaluation_entries_json(samples, EvaluationLayout(["A"], ["202001"], [["202002"]]), [0.5])
    assert one == (
        b'[{"orgUnit":"A","period":"202002","quantile":0.5,"value":2.5,"splitPeriod":"202001"}]'
    )
    none = evaluation_entries_json(
        samples, EvaluationLayout(["A"], ["202001"], [["202002"]]), [0.5], "202003"
    )
    assert none == b"[]"
    assert evaluation_entries_json(samples[:0], EvaluationLayout(["A"], [], []), [0.5]) == b"[]"


def test_split_and_org_unit_choices_match_the_same_rows() -> None:
    units = ["OU_B", "OU_A", "long" * 20]
    splits, periods = _split_layout(4, 3)
    samples = _samples((4, 3, 3, 20))
    body = evaluation_entries_json(
        samples, EvaluationLayout(units, splits, periods), [0.5], "2020-03", ["OU_A"]
    )
    expected = _expected_evaluation(samples[2:3, 1:2], ["OU_A"], splits[2:3], periods[2:3], [0.5])
    assert body == expected
    total = orjson.loads(
        evaluation_entries_json(
            samples, EvaluationLayout(units, splits, periods), [0.5], None, ["adm0", "OU_B"]
        )
    )
    assert [row["orgUnit"] for row in total[:2]] == ["adm0", "adm0"]
    assert {row["orgUnit"] for row in total} == {"adm0", "OU_B"}


def test_many_blocks_and_the_stream_give_the_same_body(monkeypatch: pytest.MonkeyPatch) -> None:
    units = [f"OU_{i}" * (1 + i % 4) for i in range(7)]
    splits, periods = _split_layout(5, 3)
    samples = _samples((5, 7, 3, 30))
    levels = [0.05, 0.5, 0.95]
    whole = evaluation_entries_json(samples, EvaluationLayout(units, splits, periods), levels)
    monkeypatch.setattr(gridjson, "BLOCK_ROWS", 10)
    stream = evaluation_entries_stream(samples, EvaluationLayout(units, splits, periods), levels)
    chunks = [bytes(chunk) for chunk in stream.chunks]
    assert len(chunks) == 5
    assert (
        b"".join(chunks) == whole == _expected_evaluation(samples, units, splits, periods, levels)
    )


def test_prediction_entries_with_and_without_their_id() -> None:
    units = ["B", "Ünïcode", "z" * 40]
    samples = _samples((3, 2, 25))
    periods = ["2024W01", "2024W02"]
    values = quantiles_from_sorted(samples, [0.1, 0.9]).astype(np.float32)
    rows = [
        {"orgUnit": unit, "period": period, "quantile": level, "value": values[u, p, q]}
        for u, unit in enumerate(units)
        for p, period in enumerate(periods)
        for q, level in enumerate([0.1, 0.9])
    ]
    expected = orjson.dumps(rows, option=orjson.OPT_SERIALIZE_NUMPY)
    assert prediction_entries_json(samples, units, periods, [0.1, 0.9]) == expected
    with_id = prediction_entries_json(samples, units, periods, [0.1, 0.9], None, 12)
    rows_with_id = [row | {"predictionId": 12} for row in rows]
    assert with_id == orjson.dumps(rows_with_id, option=orjson.OPT_SERIALIZE_NUMPY)
    stream = prediction_entries_stream(samples, units, periods, [0.1, 0.9])
    body = b"".join(stream.chunks)
    assert body == expected and stream.length == len(expected)


def test_grid_json_lengths_are_known_for_fixed_members() -> None:
    shape = (2, 3)
    members = [
        gridjson.string_field("a", ["x", "yy"], (0,), (2,)),
        gridjson.number_field("b", np.array([1.5, np.nan, 10.0], dtype=np.float32), (1,)),
    ]
    stream = gridjson.grid_json_stream(shape, members)
    body = b"".join(stream.chunks)
    assert stream.length == len(body)
    assert orjson.loads(body) == [{"a": a, "b": b} for a in ("x", "yy") for b in (1.5, None, 10.0)]
