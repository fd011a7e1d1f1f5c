"""Thresholds on a mock chap-core 2.5.1 (both drivers): the strategy's parameters sent in 2.5.1's
shape (checked against its request schema), the lines read per period and org unit, bad
parameters refused before sending."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from chaplab.client import PercentileParams, SeasonalParams, UnsupportedRouteError

from .chap_core_mock import ChapCoreMock, dataset_list, without

STRATEGIES = [
    {"id": "percentile", "displayName": "Seasonal percentile (WHO)", "description": "WHO"},
    {"id": "seasonal", "displayName": "Seasonal mean + k*std", "description": "mean + k*std"},
]
ANSWER = {
    "params": {"type": "seasonal", "stdMultiplier": [1.0, 2.0]},
    "lines": [1.0, 2.0],
    "entries": [
        {"period": "202301", "location": "OU_North", "values": [43.9, 45.6]},
        {"period": "202301", "location": "OU_South", "values": [None, None]},
    ],
}


PLACES = {  # the dataset's GeoJSON, as chap-core 2.5.1 sends it (JSON text): its place names
    "type": "FeatureCollection",
    "features": [
        {"type": "Feature", "id": unit, "properties": {"name": name}, "geometry": None}
        for unit, name in (("OU_North", "North"), ("OU_South", "South"))
    ],
}
DATASET = {
    "id": 7,
    "name": "districts",
    "created": "2026-11-23T19:23:36Z",
    "observations": [],
    "geojson": json.dumps(PLACES),
}
READ_DATASET = {
    "GET /v1/crud/datasets/7": lambda _: httpx.Response(200, json=DATASET),
    **dataset_list(DATASET),
}


def test_thresholds_send_the_strategy_and_read_one_value_per_line(
    call: Callable[..., Any],
) -> None:
    mock = ChapCoreMock(
        {"POST /v1/analytics/thresholds": httpx.Response(200, json=ANSWER), **READ_DATASET}
    )
    thresholds = call(
        mock.handler, "compute_thresholds", 7, ["202301"], SeasonalParams(std_multiplier=[1, 2])
    )
    assert mock.bodies[0] == {
        "datasetId": 7,
        "periodIds": ["202301"],
        "params": {"type": "seasonal", "stdMultiplier": [1.0, 2.0]},
    }
    assert isinstance(thresholds.params, SeasonalParams)
    assert thresholds.lines == [1.0, 2.0]
    assert [(e.location, e.values) for e in thresholds.entries] == [
        ("OU_North", [43.9, 45.6]),
        ("OU_South", [None, None]),
    ]
    frame = thresholds.frame()  # a table named by place, one row per line
    assert list(frame.columns) == ["org_unit", "org_unit_name", "period", "line", "threshold"]
    assert list(frame["org_unit_name"]) == ["North", "North", "South", "South"]
    assert list(frame["line"]) == [1.0, 2.0, 1.0, 2.0]
    assert frame["threshold"].tolist()[:2] == [43.9, 45.6] and frame["threshold"].isna()[2:].all()
    assert str(frame["period"].iloc[0]) == "2023-01"


def test_a_dict_chooses_the_strategy_and_org_units_narrow_the_answer(
    call: Callable[..., Any],
) -> None:
    answer = {
        "params": {"type": "percentile", "quantile": 0.9, "baselineYears": 3},
        "lines": [0.9],
        "entries": [],
    }
    mock = ChapCoreMock(
        {"POST /v1/analytics/thresholds": httpx.Response(200, json=answer), **READ_DATASET}
    )
    thresholds = call(
        mock.handler,
        "compute_thresholds",
        7,
        "202301",
        {"type": "percentile", "quantile": 0.9, "baseline_years": 3},
        "OU_North",
    )
    assert mock.bodies[0] == {
        "datasetId": 7,
        "periodIds": ["202301"],
        "locations": ["OU_North"],
        "params": {"type": "percentile", "quantile": 0.9, "baselineYears": 3},
    }
    assert thresholds.params == PercentileParams(quantile=0.9, baseline_years=3)


def test_the_default_strategy_is_the_seasonal_mean_plus_two_deviations(
    call: Callable[..., Any],
) -> None:
    mock = ChapCoreMock(
        {"POST /v1/analytics/thresholds": httpx.Response(200, json=ANSWER), **READ_DATASET}
    )
    call(mock.handler, "compute_thresholds", 7, ["202301"])
    assert mock.bodies[0]["params"] == {"type": "seasonal", "stdMultiplier": 2.0}


def test_the_strategies_are_listed(call: Callable[..., Any]) -> None:
    mock = ChapCoreMock(
        {"GET /v1/analytics/thresholds/strategies": httpx.Response(200, json=STRATEGIES)}
    )
    strategies = call(mock.handler, "list_threshold_strategies")
    assert [(s.id, s.display_name) for s in strategies] == [
        ("percentile", "Seasonal percentile (WHO)"),
        ("seasonal", "Seasonal mean + k*std"),
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((7.0, ["202301"]), "dataset_id must be an int"),
        ((7, []), "periods must name at least one period"),
        ((7, [""]), "periods must be a non-empty string"),
        ((7, ["202301"], {"type": "median"}), "params is not a threshold strategy"),
        ((7, ["202301"], {"quantile": 0.5}), "params is not a threshold strategy"),
        ((7, ["202301"], 2.0), "params must be SeasonalParams"),
        (
            (7, ["202301"], {"type": "percentile", "baselineYear": 3}),
            "the 'percentile' strategy takes no 'baselineYear' .only quantile, baseline_years.",
        ),
        ((7, ["202301"], None, [""]), "org_units must be org unit id strings"),
    ],
)
def test_bad_arguments_are_refused_before_sending(
    call: Callable[..., Any], args: tuple[Any, ...], message: str
) -> None:
    mock = ChapCoreMock({})
    with pytest.raises((TypeError, ValueError), match=message):
        call(mock.handler, "compute_thresholds", *args)
    assert mock.seen == []


def test_a_server_without_thresholds_says_so_before_sending(call: Callable[..., Any]) -> None:
    mock = ChapCoreMock({}, openapi=without("POST /v1/analytics/thresholds"))
    with pytest.raises(UnsupportedRouteError, match="dataset_frame") as caught:
        call(mock.handler, "compute_thresholds", 7, ["202301"])
    assert caught.value.operation == "compute_thresholds"
    with pytest.raises(UnsupportedRouteError):  # a dataset's name is not looked up either
        call(mock.handler, "compute_thresholds", "demo", ["202301"])
    assert mock.seen == []


@pytest.mark.parametrize(
    ("params", "meant"),
    [
        ({"type": "seasonal", "lines": [1.0]}, "std_multiplier=[1.0]"),
        (SeasonalParams(lines=[1.0, 3.0]), "std_multiplier=[1.0, 3.0]"),
        ({"type": "percentile", "lines": 0.9}, "quantile=0.9"),
    ],
)
def test_lines_are_asked_for_by_the_strategy_s_line_parameter(
    call: Callable[..., Any], params: Any, meant: str
) -> None:
    """An answer's ``lines`` echo the line parameter; asked for as ``lines``, chap-core 2.5.1
    ignores them and draws its default line (2 standard deviations): refused, naming the
    parameter that asks for them."""
    mock = ChapCoreMock({})
    with pytest.raises(ValueError, match="takes no 'lines'") as refused:
        call(mock.handler, "compute_thresholds", 7, ["202301"], params)
    assert meant in str(refused.value) and "chap-core 2.5.1 ignores" in str(refused.value)
    assert mock.seen == []
