"""Sizes, periods and names the service refuses before it builds anything: each a 4xx naming
the field, answered at once however large the number, and nothing stored changes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import numpy as np
import pytest

from chaplab import vocabulary as periods
from chaplab.client import ChapClient, ConflictError
from chaplab.service.errors import FieldProblem
from chaplab.service.forecasting import TEMPLATES, Panel
from chaplab.service.storage import MAX_PERIOD_SPAN
from chaplab.service.validation import check_prediction_history
from chaplab.vocabulary import MAX_HORIZON, MAX_SPLITS

from .helpers import observations, small_frame

pytestmark = pytest.mark.integration
ENORMOUS = 10**30


@pytest.fixture
def http(service_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=service_url, timeout=30) as plain:
        yield plain


def demo_dataset_id(http: httpx.Client) -> int:
    return next(d["id"] for d in http.get("/v1/crud/datasets").json() if d["name"] == "demo")


def stored(http: httpx.Client) -> list[int]:
    return [len(http.get(path).json()) for path in ("/v1/crud/datasets", "/v1/jobs")]


def refused(http: httpx.Client, method: str, path: str, field: str, **options: Any) -> str:
    """The problem's detail after checking it is a 422 naming ``field`` that changed nothing."""
    before = stored(http)
    answer = http.request(method, path, **options)
    assert answer.status_code == 422, answer.text[:300]
    assert answer.headers["content-type"].startswith("application/problem+json")
    detail = answer.json()["detail"]
    assert field in detail
    assert stored(http) == before
    return detail


@pytest.mark.parametrize(
    ("field", "value", "bound"),
    [
        ("nSplits", ENORMOUS, MAX_SPLITS),
        ("nSplits", MAX_SPLITS + 1, MAX_SPLITS),
        ("nPeriods", 10**9, MAX_HORIZON),
        ("stride", ENORMOUS, MAX_HORIZON),
    ],
)
def test_counts_of_an_evaluation_are_bounded(
    http: httpx.Client, field: str, value: int, bound: int
) -> None:
    body = {
        "name": "huge",
        "modelId": "naive_model",
        "datasetId": demo_dataset_id(http),
        field: value,
    }
    detail = refused(http, "POST", "/v1/analytics/create-backtest", field, json=body)
    assert str(bound) in detail


def test_splits_within_the_bound_but_beyond_the_history_are_refused_by_arithmetic(
    http: httpx.Client,
) -> None:
    body = {
        "name": "long",
        "modelId": "naive_model",
        "datasetId": demo_dataset_id(http),
        "nSplits": MAX_SPLITS,
        "stride": MAX_HORIZON,
    }
    detail = refused(http, "POST", "/v1/analytics/create-backtest", "nSplits", json=body)
    assert "need at least 519484 periods" in detail and detail.endswith("; at most 1 fit")


def test_a_row_only_evaluation_with_an_enormous_horizon_is_refused(http: httpx.Client) -> None:
    body = {
        "name": "row",
        "modelId": "naive_model",
        "datasetId": demo_dataset_id(http),
        "nPeriods": ENORMOUS,
    }
    refused(http, "POST", "/v1/crud/backtests", "nPeriods", json=body)


def test_a_prediction_horizon_is_bounded(http: httpx.Client) -> None:
    body = {
        "name": "far",
        "configuredModelWithDataSourceId": 1,
        "nPeriods": 10**9,
        "providedData": observations(small_frame(n_years=1)),
    }
    refused(http, "POST", "/v1/analytics/make-prediction-with-data-source", "nPeriods", json=body)


def dataset_body(*period_values: str, org_unit: str = "OU_A") -> dict[str, Any]:
    return {
        "name": "periods",
        "observations": [
            {"featureName": "disease_cases", "orgUnit": org_unit, "period": period, "value": 1.0}
            for period in period_values
        ],
    }


def test_a_dataset_spanning_more_than_the_period_limit_is_refused(http: httpx.Client) -> None:
    detail = refused(
        http, "POST", "/v1/crud/datasets", "observations", json=dataset_body("1000W01", "9999W01")
    )
    assert f"at most {MAX_PERIOD_SPAN} periods" in detail


def test_a_month_in_year_zero_is_refused(http: httpx.Client) -> None:
    detail = refused(
        http,
        "POST",
        "/v1/crud/datasets",
        "observations[0].period",
        json=dataset_body("000001", "000002"),
    )
    assert "year 0" in detail


@pytest.mark.parametrize("bad", ["OU\x00A", "OU\x1b[31mA"])
def test_control_characters_in_an_org_unit_are_refused(http: httpx.Client, bad: str) -> None:
    detail = refused(
        http,
        "POST",
        "/v1/crud/datasets",
        "orgUnit",
        json=dataset_body("202101", "202102", org_unit=bad),
    )
    assert "control character" in detail


def test_control_characters_in_a_csv_location_are_refused(http: httpx.Client) -> None:
    text = "time_period,location,disease_cases\n202101,OU\x00A,3\n"
    detail = refused(
        http,
        "POST",
        "/v1/crud/datasets/csvFile",
        "csvFile line 2, column location",
        data={"name": "nul"},
        files={"csvFile": ("data.csv", text.encode(), "text/csv")},
    )
    assert "control character" in detail


def test_a_geojson_file_nested_too_deeply_is_refused(http: httpx.Client) -> None:
    text = "time_period,location,disease_cases\n202101,OU_A,3\n"
    deep = b"[" * 100_000 + b"]" * 100_000
    refused(
        http,
        "POST",
        "/v1/crud/datasets/csvFile",
        "geojsonFile",
        data={"name": "deep"},
        files={
            "csvFile": ("data.csv", text.encode(), "text/csv"),
            "geojsonFile": ("map.geojson", deep, "application/geo+json"),
        },
    )


def test_a_configured_model_name_stands_for_one_configuration(
    client: ChapClient, unique: str
) -> None:
    template = next(t for t in client.list_model_templates() if t.name == "regression_model")
    first = client.create_configured_model(f"lags-{unique}", template.id, {"n_lags": 2})
    again = client.create_configured_model(f"lags-{unique}", template.id, {"n_lags": 2})
    assert again.id == first.id
    with pytest.raises(ConflictError, match="n_lags") as conflict:
        client.create_configured_model(f"lags-{unique}", template.id, {"n_lags": 6})
    assert str(conflict.value) == (
        f"configured model 'regression_model:lags-{unique}' (id {first.id}) exists with "
        "user_option_values {'n_lags': 2} (asked for {'n_lags': 6}); choose another name for "
        "other options"
    )
    stored_model = next(m for m in client.list_configured_models() if m.id == first.id)
    assert stored_model.user_option_values == {"n_lags": 2}


def test_months_and_weeks_outside_the_years_1_to_9999_are_not_periods() -> None:
    assert periods.format_period(periods.MONTH, 9999 * 12 + 11) == "999912"
    with pytest.raises(ValueError, match="outside the years 0001 to 9999"):
        periods.format_period(periods.MONTH, 10_000 * 12)
    with pytest.raises(ValueError, match="outside the years 0001 to 9999"):
        periods.shift_period("9999W52", 1)


def test_a_forecast_that_would_pass_the_year_9999_is_refused() -> None:
    template = TEMPLATES["naive_model"]
    months = periods.period_range("999501", "999812")
    panel = Panel(
        period_type=periods.MONTH,
        periods=months,
        org_units=["OU_A"],
        features={"disease_cases": np.ones((1, len(months)))},
    )
    check_prediction_history(template, {}, panel, 12)
    with pytest.raises(FieldProblem, match="would pass the year 9999") as problem:
        check_prediction_history(template, {}, panel, 13)
    assert problem.value.field == "nPeriods"


BEYOND_INTEGER = 2**31
"""One past the largest id an INTEGER key holds on PostgreSQL (its ``integer`` is 32-bit)."""


@pytest.mark.parametrize(
    "path",
    [
        f"/v1/crud/datasets/{BEYOND_INTEGER}",
        f"/v1/crud/backtests/{BEYOND_INTEGER}/full",
        f"/v1/analytics/prediction-entry/{BEYOND_INTEGER}",
        f"/v1/analytics/actual-cases/{BEYOND_INTEGER}",
        f"/v1/analytics/backtest-overlap/{-BEYOND_INTEGER}/1",
        f"/v1/crud/metric/csv?backtestId={-BEYOND_INTEGER}",
        f"/v2/services/{BEYOND_INTEGER}",
        f"/v1/crud/debug/{10**15}",
    ],
)
def test_an_id_beyond_the_integer_range_names_no_row(http: httpx.Client, path: str) -> None:
    answer = http.get(path)
    assert answer.status_code == 404, answer.text[:300]
    assert answer.headers["content-type"].startswith("application/problem+json")


REQUIRED = {"/v1/analytics/evaluation-entry": {"quantiles": 0.5}}
"""The other query parameters a route requires."""


def integer_query_parameters(http: httpx.Client) -> list[tuple[str, str]]:
    """Every GET route without path parameters and each integer query parameter it takes, as
    the service's OpenAPI document lists them."""
    found = []
    for path, operations in http.get("/openapi.json").json()["paths"].items():
        for parameter in operations.get("get", {}).get("parameters", []):
            schema = parameter["schema"]
            kinds = [option.get("type") for option in schema.get("anyOf", [schema])]
            if "{" not in path and parameter["in"] == "query" and "integer" in kinds:
                found.append((path, parameter["name"]))
    return found


def test_an_integer_query_parameter_beyond_the_integer_range_is_answered_naming_it(
    http: httpx.Client,
) -> None:
    """Ids, counts and offsets beyond what an INTEGER column holds are refused naming the
    parameter: a 422 where they filter or page a list (they reached the database and failed as
    a 500: on PostgreSQL past 32 bits, on SQLite past 64), a 404 where they look one row up.
    Within the range, a value beyond any stored id matches nothing."""
    checked = integer_query_parameters(http)
    assert ("/v1/crud/backtests", "datasetId") in checked and ("/v1/jobs", "offset") in checked
    before = stored(http)
    for path, name in checked:
        required = REQUIRED.get(path, {})
        for value in (BEYOND_INTEGER, -BEYOND_INTEGER, ENORMOUS):
            answer = http.get(path, params={name: value, **required})
            assert answer.status_code in (404, 422), (path, name, answer.text[:300])
            assert name in answer.json()["detail"], (path, name, answer.text[:300])
        answer = http.get(path, params={name: BEYOND_INTEGER - 1, **required})
        assert answer.status_code < 500, (path, name, answer.text[:300])
    assert http.get("/v1/crud/backtests", params={"datasetId": BEYOND_INTEGER - 1}).json() == []
    assert stored(http) == before


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/v1/crud/debug", {"message": "first line\nsecond\x00line"}, "message"),
        ("/v2/services/$register", {"url": "http://runner\x00.example:9000"}, "url"),
        ("/v1/crud/models", {"name": "nul_text", "description": "a\x00b"}, "description"),
    ],
)
def test_a_nul_character_in_stored_text_is_refused(
    http: httpx.Client, path: str, body: dict[str, Any], field: str
) -> None:
    """PostgreSQL's text cannot hold NUL: refused as it arrives, on every database alike."""
    detail = refused(http, "POST", path, field, json=body)
    assert "NUL" in detail or "control character" in detail
