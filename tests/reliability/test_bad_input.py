"""Bad input to the modeling service: each request gets a 4xx problem-details answer naming what
is wrong, and nothing stored changes.

Malformed JSON, wrong types, deep nesting (of a JSON body and of a GeoJSON file), NaN and
infinity, broken and formula-like CSV, invalid GeoJSON geometry, path characters in names,
control characters in names and org unit ids, thousands of quantiles, negative and enormous ids,
enormous split and period counts and strides, and bodies over the size limit. A request that
could make the service work without end has a 30 s timeout, so that a hang fails its case.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from chaplab.toolkit import BackgroundServer

LISTS = (
    "/v1/crud/datasets",
    "/v1/crud/configured-models",
    "/v1/crud/backtests",
    "/v1/crud/predictions",
    "/v1/crud/configured-models-with-data-source",
    "/v1/jobs",
)
ENORMOUS = 10**30
HUGE = 10**9
REQUEST_SECONDS = 60.0
BOUNDED_SECONDS = 30.0  # an enormous size must be refused, not worked on, within this
BUNDLE_ID = 1  # the configured model with data source the fixture makes from evaluation 1
NESTING_DEPTH = 100_000
NATIONAL_WEEKLY_DATASET_BYTES = 300 * 1024 * 1024
QUANTILE_COUNT = 1000  # more would pass the server's 16 KiB limit of a request line


@dataclass(frozen=True)
class BadRequest:
    """A request, the time it may take, and a word its problem must hold (the field at fault)."""

    name: str
    method: str
    path: str
    options: dict[str, Any] = field(default_factory=dict)
    timeout: float = REQUEST_SECONDS
    names: str = ""


def observation(value: Any = 1.0, org_unit: str = "OU_A", period: str = "202101") -> dict[str, Any]:
    return {"featureName": "disease_cases", "orgUnit": org_unit, "period": period, "value": value}


def dataset(**changes: Any) -> dict[str, Any]:
    body = {
        "name": "bad input probe",
        "type": "evaluation",
        "observations": [observation(period=f"2021{m:02d}") for m in range(1, 13)],
    }
    return {**body, **changes}


def raw_json(text: str) -> dict[str, Any]:
    return {"content": text.encode(), "headers": {"content-type": "application/json"}}


def polygon_feature(org_unit: str, coordinates: Any, kind: str = "Polygon") -> dict[str, Any]:
    return {
        "type": "Feature",
        "id": org_unit,
        "properties": {"id": org_unit},
        "geometry": {"type": kind, "coordinates": coordinates},
    }


def csv_upload(text: str) -> dict[str, Any]:
    return {
        "data": {"name": "csv probe"},
        "files": {"csvFile": ("data.csv", text.encode(), "text/csv")},
    }


def history(org_unit: str = "OU_A") -> list[dict[str, Any]]:
    """Three years of monthly cases of one org unit: enough for an evaluation or a forecast."""
    return [
        observation(float(month), org_unit, f"{year}{month:02d}")
        for year in (2020, 2021, 2022)
        for month in range(1, 13)
    ]


def evaluation_on_dataset(**sizes: int) -> dict[str, Any]:
    return {"json": {"name": "x", "modelId": "naive_model", "datasetId": 1, **sizes}}


def evaluation_with_data(**changes: Any) -> dict[str, Any]:
    return {"json": {"name": "x", "modelId": "naive_model", "providedData": history(), **changes}}


def sized(name: str, path: str, body: dict[str, Any], field_name: str) -> BadRequest:
    """A request of an enormous size, bounded in time and naming the field."""
    return BadRequest(name, "POST", path, body, timeout=BOUNDED_SECONDS, names=field_name)


def enormous_sizes(path: str, body_of: Any) -> list[BadRequest]:
    """Each of nSplits, nPeriods and stride at 10^30 and at 10^9 on an evaluation route."""
    return [
        sized(f"{size:.0e} {field_name} on {path}", path, body_of(**{field_name: size}), field_name)
        for field_name in ("nSplits", "nPeriods", "stride")
        for size in (ENORMOUS, HUGE)
    ]


def deep_geojson_file() -> dict[str, Any]:
    """A CSV upload whose GeoJSON file nests ``NESTING_DEPTH`` arrays."""
    nested = "[" * NESTING_DEPTH + "]" * NESTING_DEPTH
    geojson = '{"type": "FeatureCollection", "features": ' + nested + "}"
    upload = csv_upload(CSV_HEADER + "202101,OU_A,3\n")
    upload["files"]["geojsonFile"] = ("areas.geojson", geojson.encode(), "application/geo+json")
    return upload


CSV_HEADER = "time_period,location,disease_cases\n"
SIZE_REQUESTS = [
    *enormous_sizes("/v1/analytics/create-backtest", evaluation_on_dataset),
    *enormous_sizes("/v1/analytics/create-backtest-with-data/", evaluation_with_data),
    BadRequest(
        "splits far beyond the dataset",
        "POST",
        "/v1/analytics/create-backtest",
        evaluation_on_dataset(nPeriods=520, nSplits=1000, stride=520),
        timeout=BOUNDED_SECONDS,
    ),
    sized(
        "enormous nPeriods of an evaluation row",
        "/v1/crud/backtests",
        {"json": {"name": "x", "modelId": "naive_model", "datasetId": 1, "nPeriods": HUGE}},
        "nPeriods",
    ),
    sized(
        "enormous nPeriods of a prediction",
        "/v1/analytics/make-prediction",
        {
            "json": {
                "name": "x",
                "modelId": "naive_model",
                "providedData": history(),
                "nPeriods": HUGE,
            }
        },
        "nPeriods",
    ),
    sized(
        "enormous nPeriods of a prediction with a data source",
        "/v1/analytics/make-prediction-with-data-source",
        {
            "json": {
                "name": "x",
                "configuredModelWithDataSourceId": BUNDLE_ID,
                "providedData": history(),
                "nPeriods": HUGE,
            }
        },
        "nPeriods",
    ),
    sized(
        "deeply nested GeoJSON file",
        "/v1/crud/datasets/csvFile",
        deep_geojson_file(),
        "geojsonFile",
    ),
]
CONTROL_CHARACTER_REQUESTS = [
    BadRequest(
        "escape character in a dataset name",
        "POST",
        "/v1/crud/datasets",
        {"json": dataset(name="probe \x1b[31mred")},
        names="name",
    ),
    BadRequest(
        "NUL byte in an org unit id",
        "POST",
        "/v1/crud/datasets",
        {"json": dataset(observations=[observation(org_unit="OU\x00A")])},
        names="orgUnit",
    ),
    BadRequest(
        "escape character in an org unit id of inline data",
        "POST",
        "/v1/analytics/create-backtest-with-data/",
        evaluation_with_data(providedData=history("OU_\x1bA")),
        names="orgUnit",
    ),
    BadRequest(
        "NUL byte in a CSV location",
        "POST",
        "/v1/crud/datasets/csvFile",
        csv_upload(CSV_HEADER + "202101,OU\x00A,3\n"),
    ),
    BadRequest(
        "escape character in a CSV dataset name",
        "POST",
        "/v1/crud/datasets/csvFile",
        {**csv_upload(CSV_HEADER + "202101,OU_A,3\n"), "data": {"name": "csv \x1b"}},
        names="name",
    ),
]
BAD_REQUESTS = [
    BadRequest("malformed JSON", "POST", "/v1/crud/datasets", raw_json('{"name": "x", "observ')),
    BadRequest("JSON of trailing garbage", "POST", "/v1/crud/datasets", raw_json('{"name": 1}}]')),
    BadRequest("empty body", "POST", "/v1/crud/configured-models", raw_json("")),
    BadRequest("array instead of object", "POST", "/v1/crud/configured-models", {"json": [1, 2]}),
    BadRequest(
        "wrong types",
        "POST",
        "/v1/crud/configured-models",
        {"json": {"name": 5, "modelTemplateId": "one"}},
    ),
    # values chap-core 2.5.1's pydantic converts (true, "3", 3.0 for an id) are taken as there
    BadRequest(
        "fraction as id",
        "POST",
        "/v1/crud/configured-models",
        {"json": {"name": "x", "modelTemplateId": 1.5}},
    ),
    BadRequest(
        "wrong types in observations",
        "POST",
        "/v1/crud/datasets",
        {"json": dataset(observations=[observation(value="many")])},
    ),
    BadRequest(
        "deeply nested JSON",
        "POST",
        "/v1/crud/datasets",
        raw_json(
            '{"name": "deep", "geojson": '
            + "[" * NESTING_DEPTH
            + "]" * NESTING_DEPTH
            + ', "observations": []}'
        ),
    ),
    BadRequest(
        "NaN in observations",
        "POST",
        "/v1/crud/datasets",
        raw_json(json.dumps(dataset(observations=[observation(float("nan"))]))),
    ),
    BadRequest(
        "infinity in observations",
        "POST",
        "/v1/crud/datasets",
        raw_json(json.dumps(dataset(observations=[observation(float("inf"))]))),
    ),
    BadRequest(
        "overflowing number in observations",
        "POST",
        "/v1/crud/datasets",
        raw_json(json.dumps(dataset()).replace('"value": 1.0', '"value": 1e999', 1)),
    ),
    BadRequest(
        "invalid polygon geometry",
        "POST",
        "/v1/crud/datasets",
        {
            "json": dataset(
                geojson={
                    "type": "FeatureCollection",
                    "features": [polygon_feature("OU_A", [[[0, 0], [1, 1]]])],
                }
            )
        },
    ),
    BadRequest(
        "geometry with non-numeric coordinates",
        "POST",
        "/v1/crud/datasets",
        {
            "json": dataset(
                geojson={
                    "type": "FeatureCollection",
                    "features": [
                        polygon_feature("OU_A", [[["a", "b"], [1, 1], [1, 0], ["a", "b"]]])
                    ],
                }
            )
        },
    ),
    BadRequest(
        "geometry of an unknown type",
        "POST",
        "/v1/crud/datasets",
        {
            "json": dataset(
                geojson={
                    "type": "FeatureCollection",
                    "features": [polygon_feature("OU_A", [0, 0], kind="Blob")],
                }
            )
        },
    ),
    BadRequest(
        "geojson that is not a feature collection",
        "POST",
        "/v1/crud/datasets",
        {"json": dataset(geojson={"type": "Point", "coordinates": [0, 0]})},
    ),
    BadRequest(
        "CSV with broken quoting",
        "POST",
        "/v1/crud/datasets/csvFile",
        csv_upload(CSV_HEADER + '202101,"OU_A,3\n202102,OU_A,4\n'),
    ),
    BadRequest(
        "CSV with a formula-like location",
        "POST",
        "/v1/crud/datasets/csvFile",
        csv_upload(CSV_HEADER + '202101,=HYPERLINK("http://x"),3\n'),
    ),
    BadRequest(
        "CSV with a formula-like value",
        "POST",
        "/v1/crud/datasets/csvFile",
        csv_upload(CSV_HEADER + "202101,OU_A,=1+2\n"),
    ),
    BadRequest(
        "CSV that is not UTF-8",
        "POST",
        "/v1/crud/datasets/csvFile",
        {
            "data": {"name": "csv probe"},
            "files": {"csvFile": ("data.csv", b"\xff\xfe\x00bad", "text/csv")},
        },
    ),
    BadRequest(
        "path characters in a visualization name",
        "GET",
        "/v1/visualization/backtest-plots/..%2F..%2Fetc%2Fpasswd/1",
    ),
    BadRequest(
        "dot segments in a dataset plot name",
        "GET",
        "/v1/visualization/dataset-plots/..%2Fsecrets/1",
    ),
    BadRequest("a NUL byte in a job id", "GET", "/v1/jobs/abc%00def"),
    BadRequest(
        "thousands of quantiles",
        "GET",
        "/v1/analytics/evaluation-entry",
        {"params": [("backtestId", 1)] + [("quantiles", 0.5)] * QUANTILE_COUNT},
    ),
    BadRequest(
        "quantile above one",
        "GET",
        "/v1/analytics/evaluation-entry",
        {"params": [("backtestId", 1), ("quantiles", 1.5)]},
    ),
    BadRequest(
        "NaN quantile",
        "GET",
        "/v1/analytics/evaluation-entry",
        {"params": [("backtestId", 1), ("quantiles", "nan")]},
    ),
    BadRequest("negative dataset id", "GET", "/v1/crud/datasets/-1"),
    BadRequest("enormous dataset id", "GET", f"/v1/crud/datasets/{ENORMOUS}"),
    BadRequest("enormous backtest id", "GET", f"/v1/crud/backtests/{ENORMOUS}/info"),
    BadRequest(
        "enormous backtest id in a query",
        "GET",
        "/v1/analytics/evaluation-entry",
        {"params": [("backtestId", ENORMOUS), ("quantiles", 0.5)]},
    ),
    BadRequest("negative id to delete", "DELETE", "/v1/crud/backtests/-5"),
    BadRequest("enormous id to delete", "DELETE", f"/v1/crud/backtests/{ENORMOUS}"),
    BadRequest(
        "enormous dataset id in an evaluation",
        "POST",
        "/v1/analytics/create-backtest",
        {"json": {"name": "x", "modelId": "naive_model", "datasetId": ENORMOUS}},
    ),
    BadRequest(
        "negative split count",
        "POST",
        "/v1/analytics/create-backtest",
        {"json": {"name": "x", "modelId": "naive_model", "datasetId": 1, "nSplits": -3}},
    ),
    *SIZE_REQUESTS,
    *CONTROL_CHARACTER_REQUESTS,
]


@pytest.fixture(scope="module")
def service_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A modeling service of its own, with the demo content (dataset 1, evaluation 1) and a
    configured model with data source made from evaluation 1."""
    from chaplab.service import create_app

    database = tmp_path_factory.mktemp("badinput") / "chaplab.db"
    with BackgroundServer(create_app(database_url=str(database), workers=1)) as server:
        bundle = httpx.post(
            f"{server.url}/v1/crud/configured-models-with-data-source/from-backtest/1", timeout=60
        )
        assert bundle.status_code == 200 and bundle.json()["id"] == BUNDLE_ID, bundle.text
        yield server.url


def stored_state(http: httpx.Client) -> list[Any]:
    return [http.get(path).json() for path in LISTS]


def assert_problem(response: httpx.Response, *statuses: int) -> dict[str, Any]:
    assert 400 <= response.status_code < 500, f"{response.status_code}: {response.text[:500]}"
    if statuses:
        assert response.status_code in statuses, response.text[:500]
    assert response.headers["content-type"].startswith("application/problem+json")
    problem = response.json()
    assert problem["status"] == response.status_code
    assert isinstance(problem["detail"], str) and problem["detail"]
    assert problem["type"].startswith("urn:service:error:")
    return problem


@pytest.mark.parametrize("bad", BAD_REQUESTS, ids=[bad.name for bad in BAD_REQUESTS])
def test_bad_input_gets_a_problem_and_changes_nothing(service_url: str, bad: BadRequest) -> None:
    with httpx.Client(base_url=service_url, timeout=REQUEST_SECONDS) as http:
        before = stored_state(http)
        response = http.request(bad.method, bad.path, timeout=bad.timeout, **bad.options)
        problem = assert_problem(response)
        assert bad.names in problem["detail"], problem["detail"]
        assert stored_state(http) == before


def test_a_field_problem_names_the_field_and_the_reason(service_url: str) -> None:
    body = dataset(observations=[observation(float("inf"))])
    response = httpx.post(
        f"{service_url}/v1/crud/datasets", timeout=60, **raw_json(json.dumps(body))
    )
    problem = assert_problem(response, 422)
    assert "value" in problem["detail"]
    assert any("value" in str(error.get("loc")) for error in problem["errors"])


def declared_length_answer(url: str, length: int) -> tuple[int, bytes]:
    """Send only the head of an upload declaring ``length`` bytes; the status and body answered."""
    target = httpx.URL(url)
    with socket.create_connection((target.host, target.port), timeout=30) as sock:
        sock.sendall(
            (
                f"POST /v1/crud/datasets HTTP/1.1\r\nHost: {target.host}\r\nContent-Type: "
                f"application/json\r\nContent-Length: {length}\r\nConnection: close\r\n\r\n"
            ).encode()
        )
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


def body_limit_of(app: Any) -> int:
    from chaplab.toolkit.limits import BodySizeLimitMiddleware

    limits = [
        m.kwargs["max_body_bytes"] for m in app.user_middleware if m.cls is BodySizeLimitMiddleware
    ]
    assert len(limits) == 1
    return int(limits[0])


def test_a_body_over_the_limit_is_refused_with_413_before_it_is_read(service_url: str) -> None:
    status, body = declared_length_answer(service_url, 4 * 1024**3)
    assert status == 413
    problem = json.loads(body)
    assert problem["type"] == "urn:service:error:content-too-large"


def test_the_default_body_limit_takes_a_national_weekly_dataset(tmp_path: Any) -> None:
    from chaplab.service import create_app

    app = create_app(database_url=str(tmp_path / "db.sqlite"), workers=1, seed_demo=False)
    assert body_limit_of(app) >= NATIONAL_WEEKLY_DATASET_BYTES
