"""Observations in any order become the stored dataset cell by cell (unordered periods and
org units, null for missing, two spellings of one period), and the problems of single
observations (a bad period, a second period type, a second value for a cell) are a 422 naming
the first observation at fault; through ``POST /v1/crud/datasets`` and the dataset builder's
job alike."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from chaplab.client import ChapClient

pytestmark = pytest.mark.integration


@pytest.fixture
def http(service_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=service_url, timeout=30) as plain:
        yield plain


def observation(feature: str, unit: str, period: str, value: float | None) -> dict[str, Any]:
    return {"featureName": feature, "orgUnit": unit, "period": period, "value": value}


SCATTERED = [
    observation("disease_cases", "OU_B", "2021-03", 7.0),
    observation("rainfall", "OU_A", "202101", 1.5),
    observation("disease_cases", "OU_A", "202101", 3.0),
    observation("disease_cases", "OU_A", "202103", None),
    observation("disease_cases", "OU_A", "2021-03", 4.0),  # after only a null: the value
    observation("rainfall", "OU_B", "202103", None),
    observation("disease_cases", "OU_B", "202101", 0.0),
]
"""Two org units, two features, periods 2021-01 and 2021-03 (2021-02 never observed)."""


def stored_cells(dataset: dict[str, Any]) -> dict[tuple[str, str, str], float]:
    return {
        (o["featureName"], o["orgUnit"], o["period"]): o["value"] for o in dataset["observations"]
    }


EXPECTED_CELLS = {
    ("disease_cases", "OU_B", "202103"): 7.0,
    ("disease_cases", "OU_B", "202101"): 0.0,
    ("disease_cases", "OU_A", "202101"): 3.0,
    ("disease_cases", "OU_A", "202103"): 4.0,
    ("rainfall", "OU_A", "202101"): 1.5,
}


def made_dataset(http: httpx.Client, client: ChapClient, body: dict[str, Any]) -> dict[str, Any]:
    """The dataset the dataset builder's job stored from ``body``."""
    job_id = http.post("/v1/analytics/make-dataset", json=body).json()["id"]
    job = client.wait_for_job(job_id, timeout=60.0)
    return http.get(f"/v1/crud/datasets/{job.result_id}").json()


def test_scattered_observations_are_stored_cell_by_cell(http: httpx.Client) -> None:
    answer = http.post("/v1/crud/datasets", json={"name": "scattered", "observations": SCATTERED})
    assert answer.status_code == 200, answer.text[:300]
    dataset = http.get(f"/v1/crud/datasets/{answer.json()['id']}").json()
    assert dataset["orgUnits"] == ["OU_B", "OU_A"]
    assert (dataset["firstPeriod"], dataset["lastPeriod"]) == ("202101", "202103")
    assert stored_cells(dataset) == EXPECTED_CELLS


def test_the_dataset_builder_stores_the_same_cells(http: httpx.Client, client: ChapClient) -> None:
    body = {"name": "scattered job", "providedData": SCATTERED, "dataToBeFetched": []}
    assert stored_cells(made_dataset(http, client, body)) == EXPECTED_CELLS


@pytest.mark.parametrize(
    ("rows", "field", "reason"),
    [
        (
            [*SCATTERED, observation("disease_cases", "OU_B", "202103", 8.0)],
            "providedData[7]",
            "a second value for feature 'disease_cases', org unit 'OU_B', period '202103'",
        ),
        (
            [*SCATTERED, observation("disease_cases", "OU_A", "202103", None)],
            "providedData[7]",
            "a second value",
        ),
        (
            [*SCATTERED[:3], observation("rainfall", "OU_A", "2021W05", 1.0), *SCATTERED[3:]],
            "providedData[3].period",
            "weekly, earlier periods are monthly",
        ),
        (
            [*SCATTERED[:2], observation("rainfall", "OU_B", "202113", 1.0), *SCATTERED[2:]],
            "providedData[2].period",
            "has month 13",
        ),
    ],
)
def test_the_first_observation_at_fault_is_named(
    http: httpx.Client, rows: list[dict[str, Any]], field: str, reason: str
) -> None:
    datasets = len(http.get("/v1/crud/datasets").json())
    body = {"name": "faulty", "providedData": rows, "dataToBeFetched": []}
    answer = http.post("/v1/analytics/make-dataset", json=body)
    assert answer.status_code == 422, answer.text[:300]
    assert field in answer.json()["detail"]
    assert reason in answer.json()["detail"]
    assert len(http.get("/v1/crud/datasets").json()) == datasets
