"""An upload's observations are read column-wise when their JSON is laid out regularly (compact,
as orjson, JavaScript's JSON.stringify and chaplab's client write it) and parsed in full
otherwise: either way ``POST /v1/crud/datasets`` stores the same dataset and answers the same
problems, and the values are stored once (one float64 per cell, no job, no copy of the
request)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import pytest
from sqlalchemy import create_engine, func, select

from chaplab.client import ChapClient
from chaplab.service.tables import DatasetFeatureRow, JobRequestRow, JobRow
from chaplab.service.wire.observations import body_with_columns

from .helpers import geojson_for, observations, small_frame

pytestmark = pytest.mark.integration


@pytest.fixture
def http(service_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=service_url, timeout=30) as plain:
        yield plain


FRAME = small_frame(n_years=2)
ROWS = observations(FRAME)
GEOJSON = geojson_for(sorted(set(FRAME.location)))


def compact(body: dict[str, Any]) -> bytes:
    return orjson.dumps(body)


def pretty(body: dict[str, Any]) -> bytes:
    return json.dumps(body, indent=2).encode()


def snake(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    names = {"featureName": "feature_name", "orgUnit": "org_unit"}
    return [{names.get(key, key): value for key, value in row.items()} for row in rows]


def post(http: httpx.Client, content: bytes) -> httpx.Response:
    return http.post(
        "/v1/crud/datasets", content=content, headers={"Content-Type": "application/json"}
    )


def stored(http: httpx.Client, answer: httpx.Response) -> tuple[Any, ...]:
    """What a stored dataset reads back as: its list item (without id, name and creation
    time), every observation and its rows as CSV."""
    assert answer.status_code == 200, answer.text[:300]
    dataset_id = answer.json()["id"]
    read = http.get(f"/v1/crud/datasets/{dataset_id}").json()
    head = {k: v for k, v in read.items() if k not in ("id", "name", "created", "observations")}
    csv = http.get(f"/v1/crud/datasets/{dataset_id}/csv").text
    return head, read["observations"], csv


LAYOUTS = {
    "regular, camelCase": lambda: compact({"name": "a", "geojson": GEOJSON, "observations": ROWS}),
    "regular, snake_case": lambda: compact(
        {"name": "b", "geojson": GEOJSON, "provided_data": snake(ROWS)}
    ),
    "regular, observations first": lambda: compact(
        {"observations": ROWS, "name": "c", "geojson": GEOJSON}
    ),
    "regular, as providedData": lambda: compact(
        {"name": "d", "providedData": ROWS, "geojson": GEOJSON, "dataSources": []}
    ),
    "the same name deeper in the body first": lambda: compact(
        {
            "name": "e",
            "geojson": {**GEOJSON, "properties": {"observations": ROWS[:3]}},
            "observations": ROWS,
        }
    ),
    "an org unit holding }]": lambda: compact(
        {
            "name": "f",
            "geojson": geojson_for(sorted({"A}]", *FRAME.location})),
            "observations": [*ROWS, {**ROWS[0], "orgUnit": "A}]"}],
        }
    ),
}


READ_ASIDE = {"the same name deeper in the body first", "an org unit holding }]"}
"""Layouts whose observations look regular at first but are parsed in full after all."""


@pytest.mark.parametrize("layout", LAYOUTS)
def test_regular_and_other_json_store_the_same_dataset(http: httpx.Client, layout: str) -> None:
    assert (body_with_columns(LAYOUTS[layout]()) is None) == (layout in READ_ASIDE)
    body = orjson.loads(LAYOUTS[layout]())
    assert stored(http, post(http, LAYOUTS[layout]())) == stored(http, post(http, pretty(body)))


def test_the_dataset_is_the_one_the_client_uploads(http: httpx.Client, client: ChapClient) -> None:
    dataset = client.create_dataset("client", FRAME, geojson=GEOJSON)
    body = compact({"name": "plain", "geojson": GEOJSON, "observations": ROWS})
    mine = stored(http, http.get(f"/v1/crud/datasets/{dataset.id}"))
    head, rows, csv = stored(http, post(http, pretty(orjson.loads(body))))
    assert mine[1:] == (rows, csv)
    assert {k: v for k, v in mine[0].items() if k != "geojson"} == {
        k: v for k, v in head.items() if k != "geojson"
    }


def _with(row: int, **changes: Any) -> list[dict[str, Any]]:
    return [{**r, **changes} if index == row else r for index, r in enumerate(ROWS)]


SENTINEL = 12345.25
FAULTS = {
    "a second value": [*ROWS, ROWS[5]],
    "a bad period": _with(4, period="202113"),
    "a weekly period among monthly ones": _with(7, period="2021W05"),
    "a control character in an org unit": _with(9, orgUnit="OU\u0007A"),
    "an empty feature name": _with(3, featureName=""),
    "an org unit too long": _with(2, orgUnit="x" * 201),
    "a value as text that is no number": _with(6, value="many"),
    "a value missing": [*ROWS[:8], {k: v for k, v in ROWS[8].items() if k != "value"}],
    "a number too large for a float": _with(6, value=SENTINEL),
    "no observations": [],
}


CHECKED_AS_COLUMNS = {"a second value", "a bad period", "a weekly period among monthly ones"}
"""Faults found in observations read column-wise; observations that break a rule of the
observation model are validated as models (the error names the one at fault), and the other
faults make the body irregular (parsed in full)."""
READ_AS_COLUMNS = {*CHECKED_AS_COLUMNS, "an empty feature name", "an org unit too long"}


LENIENT = {
    "a value as text": _with(6, value="12"),
    "a value of true": _with(6, value=True),
}
"""Values chap-core 2.5.1 converts, and so does this service."""


@pytest.mark.parametrize("value", LENIENT)
def test_values_converted_as_chap_core_converts_them_are_stored_alike(
    http: httpx.Client, value: str
) -> None:
    body = compact({"name": "lenient", "geojson": GEOJSON, "observations": LENIENT[value]})
    assert body_with_columns(body) is None  # a text or a boolean: not a regular number column
    spaced = body.replace(b'"observations":[', b'"observations": [ ')
    assert stored(http, post(http, body)) == stored(http, post(http, spaced))


@pytest.mark.parametrize("fault", FAULTS)
def test_problems_are_answered_alike(http: httpx.Client, fault: str) -> None:
    body = compact({"name": "faulty", "geojson": GEOJSON, "observations": FAULTS[fault]})
    regular = body.replace(str(SENTINEL).encode(), b"1e999")
    read = body_with_columns(regular)
    assert (read is not None) == (fault in READ_AS_COLUMNS)
    if read is not None:
        assert read["observations"].follows_the_rules() == (fault in CHECKED_AS_COLUMNS)
    spaced = regular.replace(b'"observations":[', b'"observations": [ ')  # parsed in full
    datasets = len(http.get("/v1/crud/datasets").json())
    answers = [post(http, regular), post(http, spaced)]
    assert [answer.status_code for answer in answers] == [422, 422], answers[0].text[:300]
    assert answers[0].json()["detail"] == answers[1].json()["detail"]
    assert len(http.get("/v1/crud/datasets").json()) == datasets


def test_the_values_are_stored_once(http: httpx.Client, service_database: str) -> None:
    engine = create_engine(service_database)
    with engine.connect() as connection:
        jobs = connection.scalar(select(func.count()).select_from(JobRow))
        requests = connection.scalar(select(func.count()).select_from(JobRequestRow))
    answer = post(http, compact({"name": "once", "geojson": GEOJSON, "observations": ROWS}))
    assert answer.status_code == 200, answer.text[:300]
    dataset = answer.json()
    cells = len(dataset["orgUnits"]) * 24  # two years of months
    with engine.connect() as connection:
        stored_bytes = connection.scalar(
            select(func.sum(func.length(DatasetFeatureRow.values))).where(
                DatasetFeatureRow.dataset_id == dataset["id"]
            )
        )
        assert connection.scalar(select(func.count()).select_from(JobRow)) == jobs
        assert connection.scalar(select(func.count()).select_from(JobRequestRow)) == requests
    engine.dispose()
    assert stored_bytes == len(dataset["covariates"]) * cells * 8
