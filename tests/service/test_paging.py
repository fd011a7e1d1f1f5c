"""Every list route answers its whole list as chap-core 2.5.1 does when no page is asked, and
a page of it (``limit``, ``offset``) when one is, always with the whole list's count in
``X-Total-Count``; the job list filters by status and type as chap-core's does; a dataset's
polygons are read without its observations."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from chaplab.client import ChapClient

from .helpers import Evaluated, geojson_for, observations, small_frame

pytestmark = pytest.mark.integration

LISTS = [
    "/v1/crud/datasets",
    "/v1/crud/backtests",
    "/v1/crud/predictions",
    "/v1/jobs",
    "/v1/crud/model-templates",
    "/v1/crud/configured-models",
    "/v1/crud/models",
    "/v1/crud/configured-models-with-data-source",
    "/v1/crud/prediction-setups",
    "/v1/crud/alert-policies",
    "/v1/crud/alerts",
    "/v1/crud/backtest-specifications",
]


@pytest.fixture
def http(service_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=service_url, timeout=30) as plain:
        yield plain


@pytest.fixture(scope="module")
def filled(session_client: ChapClient, evaluated: Evaluated) -> Evaluated:
    """The shared evaluation and a few more datasets and evaluations, so lists have pages."""
    frame = small_frame(n_years=2)
    geojson = geojson_for(sorted(set(frame.location)))
    for index in range(3):
        dataset = session_client.create_dataset(f"paged {index}", frame, geojson=geojson)
        session_client.run_evaluation(
            f"paged {index}", "naive_model", dataset.id, n_periods=2, n_splits=2, timeout=120
        )
    return evaluated


def _ids(items: list[dict[str, Any]]) -> list[Any]:
    return [item.get("id", item.get("name")) for item in items]


@pytest.mark.parametrize("path", LISTS)
def test_a_list_without_a_page_is_whole_and_a_page_is_its_slice(
    http: httpx.Client, filled: Evaluated, path: str
) -> None:
    whole = http.get(path)
    assert whole.status_code == 200, whole.text[:300]
    everything = whole.json()
    assert int(whole.headers["X-Total-Count"]) == len(everything)
    last = max(0, len(everything) - 1)
    for limit, offset in [(2, 0), (2, 1), (1, last), (5, len(everything)), (3, 99)]:
        page = http.get(path, params={"limit": limit, "offset": offset})
        assert page.status_code == 200, page.text[:300]
        assert _ids(page.json()) == _ids(everything[offset : offset + limit])
        assert int(page.headers["X-Total-Count"]) == len(everything)
    rest = http.get(path, params={"offset": 1})
    assert _ids(rest.json()) == _ids(everything[1:])


@pytest.mark.parametrize(
    ("params", "field"),
    [({"limit": 0}, "limit"), ({"offset": -1}, "offset"), ({"limit": 10_001}, "limit")],
)
def test_a_page_out_of_bounds_is_refused_naming_the_parameter(
    http: httpx.Client, params: dict[str, int], field: str
) -> None:
    answer = http.get("/v1/crud/backtests", params=params)
    assert answer.status_code == 422
    assert field in answer.json()["detail"]


def test_every_list_route_offers_its_page_in_the_openapi_document(http: httpx.Client) -> None:
    paths = http.get("/openapi.json").json()["paths"]
    for path in LISTS:
        names = {parameter["name"] for parameter in paths[path]["get"].get("parameters", [])}
        assert {"limit", "offset"} <= names, path
        assert "X-Total-Count" in paths[path]["get"]["responses"]["200"]["headers"]


def test_jobs_are_filtered_by_status_and_type_in_any_case(
    http: httpx.Client, filled: Evaluated
) -> None:
    every = http.get("/v1/jobs").json()
    done = http.get("/v1/jobs", params={"status": "success", "type": "CREATE_BACKTEST"})
    expected = [
        j["id"] for j in every if j["status"] == "SUCCESS" and j["type"] == "create_backtest"
    ]
    assert expected and [j["id"] for j in done.json()] == expected
    assert int(done.headers["X-Total-Count"]) == len(expected)
    either = http.get("/v1/jobs", params=[("status", "SUCCESS"), ("status", "FAILURE")])
    assert [j["id"] for j in either.json()] == [
        j["id"] for j in every if j["status"] in ("SUCCESS", "FAILURE")
    ]


def test_a_datasets_polygons_are_read_without_its_observations(
    http: httpx.Client, evaluated: Evaluated
) -> None:
    dataset_id = evaluated.dataset.id
    polygons = http.get(f"/v1/crud/datasets/{dataset_id}/geojson")
    assert polygons.status_code == 200
    whole = http.get(f"/v1/crud/datasets/{dataset_id}").json()
    stored = whole["geojson"]  # JSON text, as chap-core 2.5.1 sends it
    assert polygons.json() == (json.loads(stored) if isinstance(stored, str) else stored)
    assert b"observations" not in polygons.content
    assert http.get("/v1/crud/datasets/999999/geojson").status_code == 404
    frame = small_frame(n_years=1)
    bare = http.post(
        "/v1/crud/datasets",
        json={"name": "no polygons", "observations": observations(frame)},
    ).json()
    assert http.get(f"/v1/crud/datasets/{bare['id']}/geojson").json() is None
