"""Endemic thresholds over loopback: both strategies checked against hand-computed values on
monthly and weekly data, each period's threshold drawn from the years before it only, bad
input refused naming the field, and every answer in chap-core 2.5.1's published shape."""

from __future__ import annotations

import math
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pandas as pd
import pytest

from chaplab.frames import entries_to_frame, format_period, parse_periods
from chaplab.scoring import endemic_thresholds
from chaplab.vocabulary import period_range
from wire_schemas import assert_matches_chap_core

pytestmark = pytest.mark.integration
PATH = "/v1/analytics/thresholds"


@pytest.fixture(scope="module")
def http(service_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=service_url, timeout=60) as plain:
        yield plain


def store_dataset(
    http: httpx.Client, periods: list[str], cases: Callable[[str, str], float | None]
) -> int:
    """A dataset of org units A and B with ``cases(org_unit, period)`` as disease_cases."""
    observations = [
        {
            "featureName": "disease_cases",
            "orgUnit": unit,
            "period": period,
            "value": cases(unit, period),
        }
        for unit in ("A", "B")
        for period in periods
    ]
    answer = http.post(
        "/v1/crud/datasets",
        json={"name": f"thresholds {uuid.uuid4().hex[:8]}", "observations": observations},
    )
    assert answer.status_code in (200, 201), answer.text
    return int(answer.json()["id"])


def monthly_cases(unit: str, period: str) -> float:
    """A: month x (year - 2019)^2, so March is 3, 12, 27 in 2020-2022; B: ten times A."""
    year, month = int(period[:4]), int(period[4:])
    value = month * (year - 2019) ** 2
    return float(value if unit == "A" else 10 * value)


def weekly_cases(unit: str, period: str) -> float:
    """A: week + 100 x (year - 2020), so week 10 is 10, 110, 210 in 2020-2022; B: twice A."""
    year, week = int(period[:4]), int(period[5:])
    value = week + 100 * (year - 2020)
    return float(value if unit == "A" else 2 * value)


@pytest.fixture(scope="module")
def monthly(http: httpx.Client) -> int:
    return store_dataset(http, period_range("202001", "202212"), monthly_cases)


@pytest.fixture(scope="module")
def weekly(http: httpx.Client) -> int:
    return store_dataset(http, period_range("2020W01", "2022W52"), weekly_cases)


def thresholds(http: httpx.Client, body: dict[str, Any]) -> dict[str, Any]:
    answer = http.post(PATH, json=body)
    assert answer.status_code == 200, answer.text
    assert_matches_chap_core("POST", PATH, answer.json())
    return answer.json()


def values(answer: dict[str, Any]) -> dict[tuple[str, str], list[float | None]]:
    return {(entry["period"], entry["location"]): entry["values"] for entry in answer["entries"]}


def test_the_strategies_are_listed_as_2_5_1_lists_them(http: httpx.Client) -> None:
    answer = http.get(PATH + "/strategies")
    assert answer.status_code == 200
    assert_matches_chap_core("GET", PATH + "/strategies", answer.json())
    assert {strategy["id"] for strategy in answer.json()} == {"seasonal", "percentile"}


def test_seasonal_thresholds_are_the_mean_and_k_deviations_of_earlier_years(
    http: httpx.Client, monthly: int
) -> None:
    answer = thresholds(
        http,
        {
            "datasetId": monthly,
            "periodIds": ["2020-03", "2021-03", "2022-03", "2023-03"],
            "params": {"type": "seasonal", "stdMultiplier": [1, 2]},
        },
    )
    assert answer["params"] == {"type": "seasonal", "stdMultiplier": [1.0, 2.0]}
    assert answer["lines"] == [1.0, 2.0]
    got = values(answer)
    assert list(got) == [
        (period, unit)
        for period in ("2020-03", "2021-03", "2022-03", "2023-03")
        for unit in ("A", "B")
    ]
    # 2020-03 has no earlier March, 2021-03 one (3): no standard deviation.
    assert got["2020-03", "A"] == [None, None] and got["2021-03", "A"] == [None, None]
    # 2022-03: Marches 3 and 12, mean 7.5, std sqrt(40.5) = 6.364
    assert got["2022-03", "A"] == pytest.approx([7.5 + math.sqrt(40.5), 7.5 + 2 * math.sqrt(40.5)])
    # 2023-03: 3, 12, 27, mean 14, std sqrt((121 + 4 + 169) / 2) = sqrt(147)
    assert got["2023-03", "A"] == pytest.approx([14 + math.sqrt(147), 14 + 2 * math.sqrt(147)])
    assert got["2023-03", "B"] == pytest.approx(
        [140 + 10 * math.sqrt(147), 140 + 20 * math.sqrt(147)]
    )


def test_percentile_thresholds_are_a_quantile_of_the_baseline_years_before(
    http: httpx.Client, monthly: int
) -> None:
    two_years = thresholds(
        http,
        {
            "datasetId": monthly,
            "periodIds": ["202303", "202203"],
            "locations": ["A"],
            "params": {"type": "percentile", "quantile": 0.75, "baselineYears": 2},
        },
    )
    assert two_years["params"] == {"type": "percentile", "quantile": 0.75, "baselineYears": 2}
    # 2023-03 from 2021 and 2022 (12, 27): 12 + 0.75 x 15; 2022-03 from 2020 and 2021 (3, 12)
    assert values(two_years) == {
        ("202303", "A"): [pytest.approx(23.25)],
        ("202203", "A"): [pytest.approx(9.75)],
    }
    every_year = thresholds(
        http,
        {
            "datasetId": monthly,
            "periodIds": ["202303", "202101", "202001"],
            "locations": ["B"],
            "params": {"type": "percentile", "quantile": [0.5, 0.75], "baselineYears": None},
        },
    )
    # 2023-03 from 30, 120, 270: median 120, 0.75 at position 1.5: 120 + 0.5 x 150;
    # 2021-01 from one January (10); 2020-01 from none.
    assert values(every_year) == {
        ("202303", "B"): [pytest.approx(120.0), pytest.approx(195.0)],
        ("202101", "B"): [pytest.approx(10.0), pytest.approx(10.0)],
        ("202001", "B"): [None, None],
    }


def test_the_defaults_are_2_5_1s(http: httpx.Client, monthly: int) -> None:
    seasonal = thresholds(
        http, {"datasetId": monthly, "periodIds": ["202303"], "params": {"type": "seasonal"}}
    )
    assert seasonal["params"] == {"type": "seasonal", "stdMultiplier": 2.0}
    assert seasonal["lines"] == [2.0]
    assert values(seasonal)["202303", "A"] == [pytest.approx(14 + 2 * math.sqrt(147))]
    percentile = thresholds(
        http, {"datasetId": monthly, "periodIds": ["202303"], "params": {"type": "percentile"}}
    )
    assert percentile["params"] == {"type": "percentile", "quantile": 0.75, "baselineYears": 5}
    # all three earlier Marches (3, 12, 27) lie within 5 years: 12 + 0.5 x 15
    assert values(percentile)["202303", "A"] == [pytest.approx(19.5)]


def test_weekly_thresholds_use_the_same_iso_week_of_earlier_years(
    http: httpx.Client, weekly: int
) -> None:
    answer = thresholds(
        http,
        {
            "datasetId": weekly,
            "periodIds": ["2023W10", "2021-W52"],
            "locations": ["A"],
            "params": {"type": "seasonal", "stdMultiplier": [2, 0]},
        },
    )
    # week 10: 10, 110, 210 -> mean 110, std 100
    assert values(answer)["2023W10", "A"] == [pytest.approx(310.0), pytest.approx(110.0)]
    # 2020 has 53 ISO weeks; week 53 shares week 52's season: 2021W52 from 52 and 53
    assert values(answer)["2021-W52", "A"] == [
        pytest.approx(52.5 + 2 * math.sqrt(0.5)),
        pytest.approx(52.5),
    ]
    percentile = thresholds(
        http,
        {
            "datasetId": weekly,
            "periodIds": ["2023W10"],
            "locations": ["B"],
            "params": {"type": "percentile", "quantile": 0.25, "baselineYears": 2},
        },
    )
    # 2021 and 2022: 220 and 420 -> 220 + 0.25 x 200
    assert values(percentile)["2023W10", "B"] == [pytest.approx(270.0)]


@pytest.mark.parametrize(
    "params",
    [
        {"type": "seasonal", "stdMultiplier": 1.5},
        {"type": "percentile", "quantile": 0.9, "baselineYears": None},
    ],
)
def test_a_threshold_never_depends_on_its_period_or_later(
    http: httpx.Client, params: dict[str, Any]
) -> None:
    periods = period_range("201901", "202212")
    changed_from = "202203"

    def raised(unit: str, period: str) -> float:
        value = monthly_cases(unit, period)
        return value * 100 + 7 if period >= changed_from else value

    original = store_dataset(http, periods, monthly_cases)
    changed = store_dataset(http, periods, raised)
    asked = ["202201", "202202", "202203", "202204", "202212", "202303"]
    body = {"periodIds": asked, "params": params}
    before = values(thresholds(http, {**body, "datasetId": original}))
    after = values(thresholds(http, {**body, "datasetId": changed}))
    for period in asked[:5]:  # the changed period itself and every period up to the data's end
        for unit in ("A", "B"):
            assert after[period, unit] == before[period, unit], (period, unit)
            assert before[period, unit] != [None]
    # 2023-03 has the changed 2022-03 in its history, and its threshold moves
    assert after["202303", "A"] != before["202303", "A"]


def test_a_location_without_history_or_a_far_period_gets_null(
    http: httpx.Client, monthly: int
) -> None:
    answer = thresholds(
        http,
        {
            "datasetId": monthly,
            "periodIds": ["203503"],
            "locations": ["A"],
            "params": {"type": "percentile", "baselineYears": 3},
        },
    )
    assert values(answer) == {("203503", "A"): [None]}


def problem(http: httpx.Client, body: dict[str, Any], status: int = 422) -> str:
    answer = http.post(PATH, json=body)
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"].startswith("application/problem+json")
    return str(answer.json()["detail"])


def test_bad_input_is_refused_naming_the_field(http: httpx.Client, monthly: int) -> None:
    seasonal = {"type": "seasonal"}
    assert "periodIds[1]" in problem(
        http, {"datasetId": monthly, "periodIds": ["202201", "2022W03"], "params": seasonal}
    )
    assert "periodIds[0]" in problem(
        http, {"datasetId": monthly, "periodIds": ["2022-13"], "params": seasonal}
    )
    detail = problem(
        http,
        {
            "datasetId": monthly,
            "periodIds": ["202201"],
            "locations": ["A", "Z"],
            "params": seasonal,
        },
    )
    assert "locations[1]" in detail and "'Z'" in detail
    assert "quantile" in problem(
        http,
        {
            "datasetId": monthly,
            "periodIds": ["202201"],
            "params": {"type": "percentile", "quantile": 1.5},
        },
    )
    assert "baselineYears" in problem(
        http,
        {
            "datasetId": monthly,
            "periodIds": ["202201"],
            "params": {"type": "percentile", "baselineYears": 0},
        },
    )
    assert "params" in problem(
        http, {"datasetId": monthly, "periodIds": ["202201"], "params": {"type": "median"}}
    )
    assert "datasetId" in problem(
        http, {"datasetId": 987654, "periodIds": ["202201"], "params": seasonal}, status=404
    )


def test_lines_asked_for_as_lines_are_refused_naming_the_line_parameter(
    http: httpx.Client, monthly: int
) -> None:
    """An answer's ``lines`` echo the line parameter; asked for as ``lines`` they are refused
    (chap-core 2.5.1 ignores them and answers its default line, 2 standard deviations), with
    the fields the strategy has."""
    body = {"datasetId": monthly, "periodIds": ["202201"]}
    seasonal = problem(http, {**body, "params": {"type": "seasonal", "lines": [1.0]}})
    assert "params.seasonal.lines" in seasonal and "stdMultiplier" in seasonal
    percentile = problem(http, {**body, "params": {"type": "percentile", "lines": [0.9]}})
    assert "params.percentile.lines" in percentile and "quantile" in percentile


def test_a_dataset_without_disease_cases_is_a_404(http: httpx.Client) -> None:
    observations = [
        {"featureName": "rainfall", "orgUnit": "A", "period": period, "value": 1.0}
        for period in period_range("202001", "202112")
    ]
    # an evaluation dataset without cases is refused at upload; prediction data may lack them
    created = http.post(
        "/v1/crud/datasets",
        json={
            "name": f"rain {uuid.uuid4().hex[:8]}",
            "type": "prediction",
            "observations": observations,
        },
    )
    detail = problem(
        http,
        {
            "datasetId": created.json()["id"],
            "periodIds": ["202201"],
            "params": {"type": "seasonal"},
        },
        status=404,
    )
    assert "disease_cases" in detail


def with_gaps(cases: Callable[[str, str], float]) -> Callable[[str, str], float | None]:
    """``cases`` with B's periods ending in 3 or 7 missing."""

    def gappy(unit: str, period: str) -> float | None:
        return None if unit == "B" and period[-1] in "37" else cases(unit, period)

    return gappy


@pytest.mark.parametrize(
    ("cases", "data", "splits", "horizons"),
    [
        (monthly_cases, ("201901", "202306"), ("202104", "202201", "202211"), 18),
        (weekly_cases, ("2019W01", "2022W52"), ("2021W10", "2022W01", "2022W30"), 70),
    ],
    ids=["monthly", "weekly"],
)
@pytest.mark.parametrize(
    ("params", "options"),
    [
        ({"type": "seasonal", "stdMultiplier": 1.5}, {"std_multiplier": 1.5}),
        (
            {"type": "percentile", "quantile": 0.8, "baselineYears": 2},
            {"quantile": 0.8, "baseline_years": 2},
        ),
        (
            {"type": "percentile", "quantile": 0.3, "baselineYears": None},
            {"quantile": 0.3, "baseline_years": None},
        ),
    ],
    ids=["seasonal", "percentile-2-years", "percentile-every-year"],
)
def test_chaplab_scoring_draws_the_thresholds_the_service_draws_from_the_cases_before_a_split(
    http: httpx.Client,
    cases: Callable[[str, str], float],
    data: tuple[str, str],
    splits: tuple[str, ...],
    horizons: int,
    params: dict[str, Any],
    options: dict[str, Any],
) -> None:
    """``endemic_thresholds`` of an evaluation, at every split and horizon (longer than a year
    included), equals the service's thresholds from a dataset of the cases before that split:
    both are what was known when the forecast was made."""
    observed = with_gaps(cases)
    history = period_range(*data)
    actuals = pd.DataFrame(
        {
            "org_unit": [unit for unit in ("A", "B") for _ in history],
            "period": parse_periods(history * 2),
            "value": [observed(unit, period) for unit in ("A", "B") for period in history],
        },
    ).astype({"value": float})
    calendar = period_range(data[0], "2025W52" if "W" in data[0] else "202512")
    forecasts = {
        split: calendar[calendar.index(split) : calendar.index(split) + horizons]
        for split in splits
    }
    evaluation = entries_to_frame(
        [
            {"orgUnit": unit, "splitPeriod": split, "period": period, "quantile": 0.5, "value": 1.0}
            for split, periods in forecasts.items()
            for unit in ("A", "B")
            for period in periods
        ]
    )
    drawn = endemic_thresholds(evaluation, actuals, params["type"], **options)
    assert len(drawn) == len(splits) * 2 * horizons
    assert drawn["threshold"].notna().sum() > len(drawn) / 2
    for split, periods in forecasts.items():
        known = store_dataset(http, history[: history.index(split)], observed)
        served = values(
            thresholds(http, {"datasetId": known, "periodIds": periods, "params": params})
        )
        for row in drawn[drawn["split_period"] == parse_periods([split])[0]].itertuples():
            line = served[format_period(row.period), str(row.org_unit)][0]
            if line is None:
                assert math.isnan(row.threshold), (split, row.period, row.org_unit)
            else:
                assert row.threshold == pytest.approx(line), (split, row.period, row.org_unit)
