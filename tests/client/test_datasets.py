"""Datasets: listing, reading, creating from a frame, CSV uploads as multipart forms."""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from typing import Any

import httpx
import pandas as pd
import pytest

from chaplab.client import (
    ArgumentError,
    ChapError,
    ConflictError,
    Dataset,
    NameResolutionError,
)
from chaplab.client._driver import operations

from .chap_core_mock import ChapCoreMock
from .fake_service import FakeService


def test_datasets(client: Any, fake: FakeService) -> None:
    [dataset] = client.list_datasets()
    assert isinstance(dataset, Dataset)
    assert (dataset.first_period, dataset.last_period, dataset.period_type) == (
        "202101",
        "202312",
        "month",
    )
    assert dataset.org_units == ["OU_A", "OU_B"]
    assert dataset.data_sources[0].data_element_id == "DE_RAIN"
    assert dataset.model_extra == {"sourceSystem": "dhis2"}
    assert dataset.observations is None
    full = client.get_dataset(1)
    assert full.observations[0].feature_name == "disease_cases"
    assert full.observations[0].org_unit == "OU_A"
    assert fake.paths()[-1] == "GET /v1/crud/datasets/1"


def test_a_csv_upload_is_a_multipart_form(call: Callable[..., Any]) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"id": 7, "name": "up", "orgUnits": ["A"]})

    dataset = call(
        handler,
        "upload_dataset_csv",
        "up",
        "time_period,location,x\n202101,A,1\n",
        geojson={"type": "FeatureCollection", "features": []},
        type="prediction",
    )
    assert dataset.id == 7 and dataset.org_units == ["A"]
    [request] = [r for r in seen if r.method == "POST"]
    assert request.method == "POST" and request.url.path == "/v1/crud/datasets/csvFile"
    assert request.headers["X-API-Key"] == "sk_test_0123456789abcdef"
    assert request.headers["content-type"].startswith("multipart/form-data; boundary=")
    body = request.read()
    for part in (
        b'name="csvFile"; filename="data.csv"',
        b"202101,A,1",
        b'name="geojsonFile"',
        b'"FeatureCollection"',
        b'name="name"\r\n\r\nup',
        b'name="type"\r\n\r\nprediction',
    ):
        assert part in body


WITHOUT_CASES = pd.DataFrame({"time_period": ["2021-01"], "location": ["OU_A"], "rainfall": [1.0]})
NO_CASES = (
    "has no 'disease_cases' column, the cases an evaluation forecasts (columns found: "
    "time_period, location, rainfall); store data without cases as type 'prediction'"
)


@pytest.mark.parametrize(
    ("operation", "data", "argument"),
    [
        ("create_dataset", WITHOUT_CASES, "frame"),
        ("make_dataset", WITHOUT_CASES, "frame"),
        ("upload_dataset_csv", WITHOUT_CASES, "csv"),
        ("upload_dataset_csv", "time_period,location,rainfall\n202101,OU_A,1\n", "csv"),
        ("upload_dataset_csv", b"\xef\xbb\xbftime_period,location,rainfall\r\n202101,A,1", "csv"),
    ],
)
def test_evaluation_data_without_cases_is_refused_before_sending(
    call: Callable[..., Any], operation: str, data: Any, argument: str
) -> None:
    """Refused at upload, naming the missing column and those found, instead of being stored
    and failing at the first evaluation; the same data as prediction data is sent."""
    sent: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, json={"id": 7, "name": "up", "orgUnits": ["OU_A"]})

    with pytest.raises(ArgumentError) as refused:
        call(handler, operation, "up", data)
    assert str(refused.value) == f"{argument} {NO_CASES}"
    assert isinstance(refused.value, ValueError)
    assert [r for r in sent if r.method == "POST"] == []
    if operation == "upload_dataset_csv":
        call(handler, operation, "up", data, type="prediction")
        assert [r.url.path for r in sent if r.method == "POST"] == ["/v1/crud/datasets/csvFile"]


def test_a_one_line_csv_string_is_taken_for_a_file_name_and_refused(
    call: Callable[..., Any],
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise AssertionError("nothing is sent")

    with pytest.raises(ValueError, match="pathlib.Path"):
        call(handler, "upload_dataset_csv", "up", "data.csv")


def test_create_dataset(client: Any, fake: FakeService) -> None:
    frame = pd.DataFrame(
        {
            "time_period": ["2021-01", "2021-02"],
            "location": ["OU_A", "OU_A"],
            "disease_cases": [1.0, 2.0],
        }
    )
    geojson = {"type": "FeatureCollection", "features": []}
    dataset = client.create_dataset("mine", frame, geojson=geojson)
    assert (dataset.id, dataset.name, dataset.type) == (2, "mine", "evaluation")
    body = json.loads(fake.requests[-1].content)
    assert fake.paths()[-1] == "POST /v1/crud/datasets"
    assert body == {
        "name": "mine",
        "type": "evaluation",
        "geojson": geojson,
        "dataSources": [],
        "observations": [
            {"featureName": "disease_cases", "orgUnit": "OU_A", "period": "202101", "value": 1.0},
            {"featureName": "disease_cases", "orgUnit": "OU_A", "period": "202102", "value": 2.0},
        ],
    }
    with pytest.raises(ValueError, match="type must be"):
        client.create_dataset("mine", frame, type="training")


def test_polygons_sent_as_json_text_read_as_a_dict(call: Callable[..., Any]) -> None:
    geojson = {"type": "FeatureCollection", "features": []}

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"id": 1, "name": "d", "geojson": json.dumps(geojson)})

    assert call(handler, "get_dataset", 1).geojson == geojson


def test_a_chap_core_dataset_frame_holds_numbers_and_goes_back_as_it_came(
    call: Callable[..., Any],
) -> None:
    rows = [  # chap-core 2.5.1's /df: features, its text ``parent``, the location last
        {
            "time_period": period,
            "disease_cases": cases,
            "rainfall": None,
            "parent": "-",
            "location": unit,
        }
        for unit, cases in (("OU_North", 40.0), ("OU_South", 60.0))
        for period in ("2019-01", "2019-02")
    ]
    mock = ChapCoreMock(
        {
            "GET /v1/crud/datasets/1/df": httpx.Response(200, json=rows),
            "POST /v1/analytics/make-prediction": httpx.Response(200, json={"id": "job-1"}),
        }
    )
    frame = call(mock.handler, "dataset_frame", 1)
    assert list(frame.columns) == ["time_period", "location", "disease_cases", "rainfall", "parent"]
    assert [str(frame[name].dtype) for name in ("disease_cases", "rainfall")] == ["float64"] * 2
    call(mock.handler, "make_prediction_for_model", "again", "naive_model", frame, 3, GEOJSON)
    sent = mock.bodies[-1]["providedData"]
    assert {row["featureName"] for row in sent} == {"disease_cases"}  # no parent, no nulls
    assert {(row["orgUnit"], row["period"]) for row in sent} == {
        (unit, period) for unit in ("OU_North", "OU_South") for period in ("201901", "201902")
    }


GEOJSON = {
    "type": "FeatureCollection",
    "features": [
        {
            "type": "Feature",
            "id": unit,
            "properties": {"name": unit[3:]},
            "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 0]]]},
        }
        for unit in ("OU_North", "OU_South")
    ],
}


# -- a dataset's name where its id is asked --------------------------------------------------

LISTED = [
    {"id": 4, "name": "my districts", "created": "2026-11-20T10:03:00"},
    {"id": 7, "name": "Sierra Leone monthly", "created": "2026-11-20T11:00:00"},
    {"id": 9, "name": "my districts", "created": "2026-11-21T08:12:00"},
]


class DatasetServer:
    """Answers the dataset list with ``LISTED``, every other request with a 409 (so that no
    operation goes on after its first request), and keeps what was sent."""

    def __init__(self) -> None:
        self.sent: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if request.url.path in ("/openapi.json", "/system/info"):
            return httpx.Response(404, json={"detail": "Not Found"})
        self.sent.append(request)
        if (request.method, request.url.path) == ("GET", "/v1/crud/datasets"):
            return httpx.Response(200, json=LISTED)
        return httpx.Response(409, json={"detail": "stop here"})

    def lists(self) -> int:
        return sum(r.method == "GET" and r.url.path == "/v1/crud/datasets" for r in self.sent)

    def carried(self) -> list[str]:
        """Path, query and body of each request but the list's."""
        return [
            f"{r.method} {r.url.path}?{r.url.query.decode()} {r.content.decode()}"
            for r in self.sent
            if r.url.path != "/v1/crud/datasets"
        ]


# Every operation with a ``dataset_id``, and its arguments with the dataset as ``DATASET``.
DATASET = object()
TAKES_A_DATASET: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {
    "get_dataset": ((DATASET,), {}),
    "delete_dataset": ((DATASET,), {}),
    "dataset_csv": ((DATASET,), {}),
    "dataset_frame": ((DATASET,), {}),
    "create_evaluation": (("bt", "naive_model", DATASET), {"n_splits": 2}),
    "run_evaluation": (("bt", "naive_model", DATASET), {}),
    "create_evaluation_row": (("bt", "naive_model", DATASET), {}),
    "create_backtests": (("b", ["naive_model"], DATASET), {}),
    "run_backtests": (("b", ["naive_model"], DATASET), {}),
    "list_backtest_specifications": ((), {"dataset_id": DATASET, "n_splits": 2}),
    "list_evaluations": ((), {"dataset_id": DATASET}),
    "create_prediction_row": (("p", DATASET, 3), {}),
    "compute_thresholds": ((DATASET, ["202301"]), {}),
    "dataset_plot": (("cases", DATASET), {}),
}
# Operations that name the dataset only after other requests (tune looks the template up first,
# with the dataset's name already resolved: tested in test_tune.py).
RESOLVED_BEFORE_OTHER_REQUESTS = {"tune"}


def _with(dataset: int | str, name: str) -> tuple[tuple[Any, ...], dict[str, Any]]:
    args, kwargs = TAKES_A_DATASET[name]
    return (
        tuple(dataset if arg is DATASET else arg for arg in args),
        {key: dataset if value is DATASET else value for key, value in kwargs.items()},
    )


def test_every_operation_with_a_dataset_id_takes_a_name() -> None:
    with_dataset = {
        name: entry
        for name, entry in operations().items()
        if "dataset_id" in inspect.signature(entry.function).parameters
    }
    assert set(with_dataset) == set(TAKES_A_DATASET) | RESOLVED_BEFORE_OTHER_REQUESTS
    for entry in with_dataset.values():
        annotation = inspect.signature(entry.function).parameters["dataset_id"].annotation
        assert "int | str" in annotation


@pytest.mark.parametrize("operation", sorted(TAKES_A_DATASET))
def test_a_unique_name_is_sent_as_its_id_after_one_list_request(
    call: Callable[..., Any], operation: str
) -> None:
    server = DatasetServer()
    args, kwargs = _with("Sierra Leone monthly", operation)
    with pytest.raises(ConflictError, match="stop here"):
        call(server, operation, *args, **kwargs)
    assert server.lists() == 1
    assert server.sent[0].url.path == "/v1/crud/datasets"
    [request] = server.carried()
    assert "/7" in request or "datasetId=7" in request or '"datasetId":7' in request, request


@pytest.mark.parametrize("operation", sorted(TAKES_A_DATASET))
def test_an_int_is_an_id_and_sends_no_list_request(
    call: Callable[..., Any], operation: str
) -> None:
    server = DatasetServer()
    args, kwargs = _with(7, operation)
    with pytest.raises(ConflictError):
        call(server, operation, *args, **kwargs)
    assert server.lists() == 0
    [request] = server.carried()
    assert "/7" in request or "datasetId=7" in request or '"datasetId":7' in request, request


def test_a_name_two_datasets_share_is_refused_with_both_ids_and_dates(
    call: Callable[..., Any],
) -> None:
    server = DatasetServer()
    with pytest.raises(NameResolutionError) as refused:
        call(server, "create_evaluation", "bt", "naive_model", "my districts")
    assert str(refused.value) == (
        "dataset_id: 2 datasets are named 'my districts' (id 4, created 2026-11-20 10:03; "
        "id 9, created 2026-11-21 08:12); pass the id of the one you mean"
    )
    assert isinstance(refused.value, ValueError) and isinstance(refused.value, ChapError)
    assert (refused.value.argument, refused.value.name, refused.value.ids) == (
        "dataset_id",
        "my districts",
        [4, 9],
    )
    assert [r.url.path for r in server.sent] == ["/v1/crud/datasets"]


def test_a_shared_name_without_created_dates_lists_the_ids(call: Callable[..., Any]) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=[{"id": 2, "name": "twin"}, {"id": 3, "name": "twin"}])

    with pytest.raises(ValueError, match=r"2 datasets are named 'twin' \(id 2; id 3\)"):
        call(handler, "get_dataset", "twin")


def test_an_unknown_name_gets_did_you_mean_and_is_asked_once(call: Callable[..., Any]) -> None:
    server = DatasetServer()
    with pytest.raises(NameResolutionError) as refused:
        call(server, "get_dataset", "Sierra Leone montly")
    assert str(refused.value) == (
        "dataset_id: no dataset named 'Sierra Leone montly'; did you mean 'Sierra Leone monthly'?"
    )
    assert refused.value.ids == []
    assert [r.url.path for r in server.sent] == ["/v1/crud/datasets"]


def test_a_name_nothing_comes_close_to_gets_the_list_of_names(call: Callable[..., Any]) -> None:
    server = DatasetServer()
    with pytest.raises(NameResolutionError) as refused:
        call(server, "dataset_frame", "rwanda")
    assert str(refused.value) == (
        "dataset_id: no dataset named 'rwanda'; the datasets are my districts, Sierra Leone monthly"
    )
    assert server.lists() == 1


def test_an_id_given_as_text_is_told_to_be_an_int(call: Callable[..., Any]) -> None:
    server = DatasetServer()
    with pytest.raises(NameResolutionError, match=r"; an id is an int: dataset_id=7$"):
        call(server, "get_dataset", "7")


def test_no_datasets_at_all(call: Callable[..., Any]) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=[])

    with pytest.raises(NameResolutionError, match="no dataset named 'x'; there are no datasets"):
        call(handler, "get_dataset", "x")


def test_a_run_looks_the_name_up_once_and_again_at_the_next_call(
    client: Any, fake: FakeService
) -> None:
    evaluation = client.run_evaluation("bt_named", "naive_model:weekly", "demo", n_splits=2)
    assert evaluation.name == "bt_named"
    assert fake.paths().count("GET /v1/crud/datasets") == 1
    [created] = [r for r in fake.requests if r.method == "POST"]
    assert json.loads(created.content)["datasetId"] == 1
    fake.datasets.append({**fake.datasets[0], "id": 2, "name": "demo 2"})
    assert client.get_dataset("demo 2").id == 2
    assert fake.paths().count("GET /v1/crud/datasets") == 2


def test_a_name_is_found_in_chap_core_2_5_1s_dataset_list(call: Callable[..., Any]) -> None:
    """2.5.1 lists ``DataSetInfo`` records (``created`` with an offset); the evaluation it
    starts is sent with the id, in a body 2.5.1's schema accepts."""
    listed = [
        {
            "id": 3,
            "name": "chaplab peer tests",
            "type": "evaluation",
            "covariates": [],
            "created": "2026-11-20T10:03:00.123456+00:00",
            "createdManually": True,
        },
        {
            "id": 5,
            "name": "chaplab peer tests",
            "type": "evaluation",
            "covariates": [],
            "created": None,
        },
        {"id": 6, "name": "csv_file", "type": None, "covariates": []},
    ]
    mock = ChapCoreMock(
        {
            "GET /v1/crud/datasets": httpx.Response(200, json=listed),
            "POST /v1/analytics/create-backtest": httpx.Response(200, json={"id": "job-1"}),
        }
    )
    job = call(mock.handler, "create_evaluation", "bt", "naive_model", "csv_file")
    assert job.id == "job-1"
    assert mock.bodies[-1] == {"name": "bt", "modelId": "naive_model", "datasetId": 6}
    with pytest.raises(
        NameResolutionError,
        match=(
            r"^dataset_id: 2 datasets are named 'chaplab peer tests' "
            r"\(id 3, created 2026-11-20 10:03; id 5\); pass the id"
        ),
    ):
        call(mock.handler, "create_evaluation", "bt", "naive_model", "chaplab peer tests")


@pytest.mark.parametrize(
    ("first", "last", "span"),
    [
        ("201501", "202412", "2015-01 – 2024-12"),
        ("2021-01", "2024-12", "2021-01 – 2024-12"),
        ("2023W52", "2024W05", "2023-W52 – 2024-W05"),
        (None, "202412", None),
        ("not a period", "202412", None),
    ],
)
def test_a_datasets_span_reads_as_people_read_periods(
    first: str | None, last: str, span: str | None
) -> None:
    dataset = Dataset(id=1, name="d", first_period=first, last_period=last)
    assert dataset.span == span
