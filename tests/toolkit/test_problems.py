"""Every error of a built service is RFC 9457 problem details."""

from __future__ import annotations

import logging

import pytest
from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import JSONResponse, StreamingResponse

from asgi_test_client import TestClient
from chaplab.toolkit import ProblemError, ServiceBuilder, problem_response

from .helpers import make_builder

SECRET = "database password is hunter2"


def problem_router() -> APIRouter:
    router = APIRouter()

    @router.get("/teapot")
    async def teapot() -> None:
        raise ProblemError(
            409,
            detail="The dataset is in use",
            type="urn:service:error:in-use",
            errors=[{"field": "id", "msg": "busy"}],
            headers={"Retry-After": "3"},
            extensions={"dataset_id": 4},
        )

    @router.get("/plain")
    async def plain() -> None:
        raise HTTPException(404, detail="Dataset 4 not found")

    @router.get("/crash")
    async def crash() -> None:
        raise RuntimeError(SECRET)

    @router.post("/upload")
    async def upload(body: dict[str, str]) -> dict[str, int]:
        return {"fields": len(body)}

    @router.get("/stream")
    async def stream() -> StreamingResponse:
        async def chunks():
            yield b"ok"
            raise RuntimeError(SECRET)

        return StreamingResponse(chunks())

    return router


@pytest.fixture
def client(client_for) -> TestClient:
    builder = make_builder().include_router(problem_router()).with_limits(max_body_bytes=64)
    return client_for(builder)


def assert_problem(response, status: int, slug: str, instance: str) -> dict:
    assert response.status_code == status
    assert response.headers["content-type"] == "application/problem+json"
    body = response.json()
    assert body["type"] == f"urn:service:error:{slug}"
    assert body["status"] == status
    assert body["instance"] == instance
    assert isinstance(body["title"], str) and isinstance(body["detail"], str)
    return body


def test_unknown_path_is_a_404_problem(client: TestClient) -> None:
    body = assert_problem(client.get("/v1/nothing"), 404, "not-found", "/v1/nothing")
    assert body["title"] == "Not Found"
    assert body["detail"] == "No resource at /v1/nothing"


def test_wrong_method_is_a_405_problem_with_allow_header(client: TestClient) -> None:
    response = client.delete("/teapot")
    body = assert_problem(response, 405, "method-not-allowed", "/teapot")
    assert body["detail"] == "Method DELETE is not allowed on /teapot"
    assert response.headers["allow"] == "GET"


def test_invalid_body_is_a_422_problem_naming_fields(client: TestClient) -> None:
    response = client.post("/v1/items/typed", json={"count": "many"})
    body = assert_problem(response, 422, "validation", "/v1/items/typed")
    assert body["title"] == "Unprocessable Content"
    assert body["errors"] == [
        {"loc": ["body", "name"], "field": "body.name", "msg": "Field required", "type": "missing"},
        {
            "loc": ["body", "count"],
            "field": "body.count",
            "msg": "Input should be a valid integer, unable to parse string as an integer",
            "type": "int_parsing",
        },
    ]
    assert body["detail"].startswith("Invalid request: body.name: Field required; body.count: ")


def test_malformed_json_is_a_422_problem(client: TestClient) -> None:
    response = client.post(
        "/v1/items/typed", content=b"{oops", headers={"Content-Type": "application/json"}
    )
    body = assert_problem(response, 422, "validation", "/v1/items/typed")
    assert body["errors"][0]["type"] == "json_invalid"


def test_problem_error_from_a_route_keeps_its_fields(client: TestClient) -> None:
    response = client.get("/teapot")
    assert response.status_code == 409
    assert response.headers["retry-after"] == "3"
    assert response.json() == {
        "type": "urn:service:error:in-use",
        "title": "Conflict",
        "status": 409,
        "detail": "The dataset is in use",
        "instance": "/teapot",
        "errors": [{"field": "id", "msg": "busy"}],
        "dataset_id": 4,
    }


def test_http_exception_keeps_its_detail(client: TestClient) -> None:
    body = assert_problem(client.get("/plain"), 404, "not-found", "/plain")
    assert body["detail"] == "Dataset 4 not found"


def test_unexpected_error_is_a_500_problem_without_internals(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="chaplab.toolkit.errors"):
        response = client.get("/crash")
    body = assert_problem(response, 500, "internal-server-error", "/crash")
    assert SECRET not in response.text and "RuntimeError" not in response.text
    assert body["title"] == "Internal Server Error"
    [record] = caplog.records
    assert record.exc_info[0] is RuntimeError and record.path == "/crash"


def test_an_error_after_streaming_started_drops_the_connection(client: TestClient) -> None:
    with pytest.raises(RuntimeError, match="hunter2"):
        TestClient(client.app).get("/stream")


def test_declared_body_over_the_limit_is_a_413_problem_before_the_route(
    client: TestClient,
) -> None:
    response = client.post("/upload", content=b"x" * 65, headers={"Content-Type": "text/plain"})
    body = assert_problem(response, 413, "content-too-large", "/upload")
    assert body["detail"] == "The request body exceeds the limit of 64 bytes"


def test_streamed_body_over_the_limit_is_a_413_problem(client: TestClient) -> None:
    def chunks():
        for _ in range(10):
            yield b'{"k": "' + b"v" * 20 + b'"}'

    response = client.post(
        "/upload", content=chunks(), headers={"Content-Type": "application/json"}
    )
    assert "content-length" not in response.request.headers
    assert_problem(response, 413, "content-too-large", "/upload")


def test_body_within_the_limit_passes(client: TestClient) -> None:
    assert client.post("/upload", json={"a": "b"}).json() == {"fields": 1}


def test_problem_error_refuses_a_non_error_status() -> None:
    with pytest.raises(ValueError, match="status must be an HTTP error status"):
        ProblemError(200)


def test_service_exception_handlers_take_precedence(client_for) -> None:
    class BusyError(Exception):
        pass

    router = APIRouter()

    @router.get("/busy")
    async def busy() -> None:
        raise BusyError

    def on_busy(request: Request, exc: Exception) -> JSONResponse:
        return problem_response(503, instance=request.url.path, detail="Busy, try later")

    builder = ServiceBuilder(title="S").include_router(router)
    builder.with_exception_handler(BusyError, on_busy)
    body = assert_problem(client_for(builder).get("/busy"), 503, "service-unavailable", "/busy")
    assert body["detail"] == "Busy, try later"
