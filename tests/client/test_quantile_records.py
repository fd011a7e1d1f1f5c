"""What evaluations and predictions share (``client/_quantile_records.py``): a full record
whose server leaves the entries out gets them from the entry route, and entry frames name
places."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pandas as pd
import pytest

from .fake_service import FakeService

ENTRY = {"orgUnit": "OU_1", "period": "2024-01", "quantile": 0.5, "value": 7.0}
GEOJSON = {
    "type": "FeatureCollection",
    "features": [
        {"type": "Feature", "id": "OU_1", "properties": {"name": "North"}, "geometry": None}
    ],
}

# operation, its argument, the record's route, the entry route, the entry of that kind
FULL_RECORDS = [
    (
        "get_evaluation_full",
        4,
        "/v1/crud/backtests/4/full",
        "/v1/analytics/evaluation-entry",
        {**ENTRY, "splitPeriod": "2023-12"},
    ),
    (
        "job_evaluation_result",
        "j1",
        "/v1/jobs/j1/evaluation_result",
        "/v1/analytics/evaluation-entry",
        {**ENTRY, "splitPeriod": "2023-12"},
    ),
    (
        "job_prediction_result",
        "j1",
        "/v1/jobs/j1/prediction_result",
        "/v1/analytics/prediction-entry/4",
        ENTRY,
    ),
]


def recorder(
    answers: dict[str, Any],
) -> tuple[Callable[[httpx.Request], httpx.Response], list[httpx.Request]]:
    """A handler answering ``answers`` by path (404 otherwise), and the requests it saw."""
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.path in answers:
            return httpx.Response(200, json=answers[request.url.path])
        return httpx.Response(404, json={"detail": f"no {request.url.path}"})

    return handler, seen


@pytest.mark.parametrize(("operation", "argument", "path", "entry_path", "entry"), FULL_RECORDS)
def test_a_record_without_its_entries_gets_them_at_the_quantiles_asked(
    call: Callable[..., Any],
    operation: str,
    argument: Any,
    path: str,
    entry_path: str,
    entry: dict[str, Any],
) -> None:
    handler, seen = recorder({path: {"id": 4, "name": "r"}, entry_path: [entry]})
    full = call(handler, operation, argument, quantiles=[0.5])
    assert [(e.org_unit, e.period, e.value) for e in full.forecasts] == [("OU_1", "2024-01", 7.0)]
    assert full.quantiles == [0.5]
    asked = [request for request in seen if request.url.path == entry_path]
    assert [request.url.params.get_list("quantiles") for request in asked] == [["0.5"]]


@pytest.mark.parametrize(("operation", "argument", "path", "entry_path", "entry"), FULL_RECORDS)
def test_a_record_with_its_entries_is_read_in_one_request(
    call: Callable[..., Any],
    operation: str,
    argument: Any,
    path: str,
    entry_path: str,
    entry: dict[str, Any],
) -> None:
    record = {"id": 4, "name": "r", "quantiles": [0.5], "forecasts": [entry]}
    handler, seen = recorder({path: record})
    full = call(handler, operation, argument, quantiles=[0.5])
    assert [e.value for e in full.forecasts] == [7.0]
    assert [request.url.path for request in seen if request.url.path != "/openapi.json"] == [path]


@pytest.mark.parametrize(
    ("operation", "record_path", "entry_path", "entry", "split_column"),
    [
        (
            "evaluation_frame",
            "/v1/crud/backtests/4/info",
            "/v1/analytics/evaluation-entry",
            {**ENTRY, "splitPeriod": "2023-12"},
            True,
        ),
        (
            "prediction_frame",
            "/v1/crud/predictions/4",
            "/v1/analytics/prediction-entry/4",
            ENTRY,
            False,
        ),
    ],
)
def test_entry_frames_name_places_and_only_an_evaluation_has_split_periods(
    call: Callable[..., Any],
    operation: str,
    record_path: str,
    entry_path: str,
    entry: dict[str, Any],
    split_column: bool,
) -> None:
    handler, _ = recorder(
        {
            record_path: {"id": 4, "name": "r", "datasetId": 2},
            "/v1/crud/datasets": [{"id": 2, "name": "d", "created": "2026-01-01T10:00:00"}],
            "/v1/crud/datasets/2": {
                "id": 2,
                "name": "d",
                "created": "2026-01-01T10:00:00",
                "geojson": GEOJSON,
            },
            entry_path: [entry],
        }
    )
    frame = call(handler, operation, 4, quantiles=[0.5])
    assert frame["org_unit_name"].tolist() == ["North"]
    assert ("split_period" in frame.columns) is split_column


@pytest.mark.parametrize("names_rows", [False, True])
def test_a_run_returns_the_row_its_job_stored_also_where_the_result_is_no_id(
    client: Any,
    fake: FakeService,
    names_rows: bool,
) -> None:
    fake.results_name_rows = names_rows
    evaluation = client.run_evaluation("bt_new", "naive_model:weekly", 1)
    frame = pd.DataFrame({"time_period": ["2024-01"], "location": ["OU_A"], "disease_cases": [3.0]})
    prediction = client.run_prediction("p", "naive_model:weekly", frame, n_periods=1)
    assert (evaluation.id, evaluation.name, prediction.id) == (2, "bt_new", 7)
    asked = [path for path in fake.paths() if path.endswith("/database_result")]
    assert len(asked) == (2 if names_rows else 0)
