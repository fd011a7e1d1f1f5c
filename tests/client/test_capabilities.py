"""What a server offers: the client reads it from ``/openapi.json`` once per client, asks the
route itself where a gateway hides that document, and raises ``UnsupportedRouteError`` (route,
server version, what to call instead) where the server lacks a route."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pandas as pd
import pytest

import chaplab
from chaplab.client import ChapClient, NotFoundError, UnsupportedRouteError
from chaplab.client._capabilities import Route

from .fake_service import BASE_URL

Handler = Callable[[httpx.Request], httpx.Response]


def openapi(*routes: str, required_query: dict[str, str] | None = None) -> dict[str, Any]:
    """An OpenAPI document of chap-core 2.5.1 listing ``routes`` (``"GET /path"``)."""
    paths: dict[str, dict[str, Any]] = {}
    for route in routes:
        method, path = route.split()
        operation: dict[str, Any] = {}
        if required_query and path in required_query:
            operation["parameters"] = [
                {"in": "query", "name": required_query[path], "required": True}
            ]
        paths.setdefault(path, {})[method.lower()] = operation
    return {
        "openapi": "3.1.0",
        "info": {"title": "CHAP Core API", "version": "2.5.1"},
        "paths": paths,
    }


def recording(answers: dict[str, httpx.Response]) -> tuple[Handler, list[str]]:
    """A handler answering ``"METHOD /path"`` keys (404 Not Found otherwise), and its log."""
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        line = f"{request.method} {request.url.path}"
        seen.append(line)
        return answers.get(line) or httpx.Response(404, json={"detail": "Not Found"})

    return handler, seen


def test_a_routes_path_is_filled_in_order_each_value_one_quoted_segment() -> None:
    route = Route("backtest_subplot", "POST", "/v1/plots/{name}/{id}/subplot", "nothing")
    assert route.path_for("a b", 7) == "/v1/plots/a%20b/7/subplot"
    assert route.path_for("x/y", 1) == "/v1/plots/x%2Fy/1/subplot"
    with pytest.raises(TypeError, match="takes 2 path values"):
        route.path_for(7)


def test_a_route_the_openapi_document_lacks_is_refused_before_sending_naming_the_way_instead(
    call: Callable[..., Any],
) -> None:
    document = openapi("GET /v1/crud/configured-models", "POST /v1/analytics/make-prediction")
    handler, seen = recording({"GET /openapi.json": httpx.Response(200, json=document)})
    with pytest.raises(UnsupportedRouteError) as caught:
        call(
            handler,
            "make_prediction",
            {"name": "p", "configuredModelWithDataSourceId": 1, "nPeriods": 3},
        )
    error = caught.value
    assert (error.method, error.path, error.server_version) == (
        "POST",
        "/v1/analytics/make-prediction-with-data-source",
        "CHAP Core API 2.5.1",
    )
    assert "run_prediction(" in error.alternative
    assert "CHAP Core API 2.5.1" in str(error) and "run_prediction(" in str(error)
    assert seen == ["GET /openapi.json"]


def test_the_document_is_read_once_per_client() -> None:
    document = openapi("GET /v1/crud/configured-models")
    handler, seen = recording(
        {
            "GET /openapi.json": httpx.Response(200, json=document),
            "GET /v1/crud/configured-models": httpx.Response(200, json=[]),
        }
    )
    with ChapClient(BASE_URL, transport=httpx.MockTransport(handler)) as client:
        assert client.list_models() == []
        assert client.list_models() == []
        for name in ("create_debug_entry", "get_debug_entry"):
            with pytest.raises(UnsupportedRouteError, match=r"needs .* /v1/crud/debug"):
                getattr(client, name)(*(["note"] if name == "create_debug_entry" else [1]))
    assert seen == [
        "GET /openapi.json",
        "GET /v1/crud/configured-models",
        "GET /v1/crud/configured-models",
    ]


def test_behind_a_gateway_that_hides_the_document_the_route_is_asked(
    call: Callable[..., Any],
) -> None:
    handler, seen = recording(
        {
            "GET /system/info": httpx.Response(200, json={"chap_core_version": "2.5.1"}),
        }
    )
    with pytest.raises(UnsupportedRouteError) as caught:
        call(handler, "get_configured_model_with_data_source", 3)
    assert caught.value.server_version == "version 2.5.1"
    assert "the route answered so" in str(caught.value)
    assert seen == [
        "GET /openapi.json",
        "GET /system/info",
        "GET /v1/crud/configured-models-with-data-source/3",
    ]


def test_a_missing_row_stays_a_not_found_error(call: Callable[..., Any]) -> None:
    handler, _ = recording(
        {
            "GET /v1/crud/debug/9": httpx.Response(404, json={"detail": "Debug entry 9 not found"}),
        }
    )
    with pytest.raises(NotFoundError, match="Debug entry 9 not found"):
        call(handler, "get_debug_entry", 9)


def test_a_listed_route_that_insists_on_an_id_is_unsupported_without_one(
    call: Callable[..., Any],
) -> None:
    document = openapi(
        "GET /v1/crud/metric/csv",
        "GET /v1/analytics/prediction-entry",
        required_query={
            "/v1/crud/metric/csv": "backtestId",
            "/v1/analytics/prediction-entry": "predictionId",
        },
    )
    handler, seen = recording({"GET /openapi.json": httpx.Response(200, json=document)})
    with pytest.raises(UnsupportedRouteError, match=r"metrics_csv\(evaluation_id\)"):
        call(handler, "metrics_csv")
    with pytest.raises(UnsupportedRouteError, match=r"list_prediction_entries\(prediction_id\)"):
        call(handler, "list_prediction_entries")
    assert set(seen) == {"GET /openapi.json"}


def test_a_csv_upload_names_its_parts_as_the_server_documents_them(
    call: Callable[..., Any],
) -> None:
    document = openapi("POST /v1/crud/datasets/csvFile")
    document["paths"]["/v1/crud/datasets/csvFile"]["post"]["requestBody"] = {
        "content": {"multipart/form-data": {"schema": {"$ref": "#/components/schemas/Upload"}}}
    }
    document["components"] = {
        "schemas": {"Upload": {"properties": {"csv_file": {}, "geojson_file": {}}}}
    }
    bodies: list[bytes] = []

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/openapi.json":
            return httpx.Response(200, json=document)
        if request.method == "POST":
            bodies.append(request.read())
            return httpx.Response(200, json={"id": 2})
        return httpx.Response(200, json=[{"id": 2, "name": "csv_file"}])

    dataset = call(
        handler,
        "upload_dataset_csv",
        "up",
        "time_period,location,disease_cases\n2021-01,A,1\n",
        geojson={"type": "FeatureCollection", "features": []},
    )
    assert (dataset.id, dataset.name) == (2, "csv_file")
    [body] = bodies
    assert b'name="csv_file"; filename="data.csv"' in body and b'name="geojson_file"' in body


def test_the_error_is_importable_from_the_package() -> None:
    assert chaplab.UnsupportedRouteError is UnsupportedRouteError
    assert issubclass(UnsupportedRouteError, chaplab.ChapError)


@pytest.mark.parametrize("result", ["5", "dataset stored"])
def test_a_dataset_route_that_answers_a_job_is_passed_over_for_the_builder(
    call: Callable[..., Any],
    result: str,
) -> None:
    document = openapi("POST /v1/crud/datasets", "POST /v1/analytics/make-dataset")
    document["paths"]["/v1/crud/datasets"]["post"]["responses"] = {
        "200": {
            "content": {"application/json": {"schema": {"properties": {"id": {"type": "string"}}}}}
        }
    }
    handler, seen = recording(
        {
            "GET /openapi.json": httpx.Response(200, json=document),
            "POST /v1/analytics/make-dataset": httpx.Response(200, json={"id": "job-1"}),
            "GET /v1/jobs": httpx.Response(
                200,
                json=[
                    {"id": "job-1", "type": "create_dataset", "status": "SUCCESS", "result": result}
                ],
            ),
            "GET /v1/jobs/job-1": httpx.Response(200, json="SUCCESS"),
            "GET /v1/jobs/job-1/database_result": httpx.Response(200, json={"id": 5}),
            "GET /v1/crud/datasets": httpx.Response(
                200, json=[{"id": 5, "name": "mine", "covariates": ["disease_cases"]}]
            ),
        }
    )
    frame = pd.DataFrame({"time_period": ["2021-01"], "location": ["A"], "disease_cases": [1.0]})
    dataset = call(
        handler, "create_dataset", "mine", frame, {"type": "FeatureCollection", "features": []}
    )
    assert (dataset.id, dataset.covariates) == (5, ["disease_cases"])
    assert "POST /v1/crud/datasets" not in seen and "POST /v1/analytics/make-dataset" in seen
    # the job's result names the dataset's id, or else its database result does
    assert ("GET /v1/jobs/job-1/database_result" in seen) is (result != "5")
