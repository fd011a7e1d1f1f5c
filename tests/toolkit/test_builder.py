"""What every built service serves, and the builder's hooks (routers, lifespan, health check)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from fastapi import APIRouter, FastAPI, Request

from asgi_test_client import TestClient
from chaplab.toolkit import ServiceBuilder

from .helpers import KEY_A, make_builder


def test_landing_page_names_the_service_and_version_and_links_the_docs(client_for) -> None:
    builder = ServiceBuilder(title="Forecasts <beta>", version="2.0.1", description="Cases & more")
    response = client_for(builder).get("/")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    page = response.text
    assert "Forecasts &lt;beta&gt;" in page and "2.0.1" in page and "Cases &amp; more" in page
    for link in ('href="docs"', 'href="redoc"', 'href="openapi.json"'):
        assert link in page


@pytest.mark.parametrize("path", ["/docs", "/redoc"])
def test_documentation_pages_are_served(client_for, path: str) -> None:
    response = client_for(make_builder()).get(path)
    assert response.status_code == 200
    assert "openapi.json" in response.text


def test_openapi_describes_the_service_and_its_routes(client_for) -> None:
    schema = client_for(make_builder()).get("/openapi.json").json()
    assert schema["info"] == {
        "title": "Test service",
        "version": "9.8.7",
        "description": "For tests",
    }
    assert "/v1/items" in schema["paths"] and "/health" in schema["paths"]


def test_health_answers_200_with_a_json_body(client_for) -> None:
    response = client_for(make_builder()).get("/health")
    assert response.status_code == 200
    assert response.json() == {
        "status": "success",
        "message": "healthy",
        "service": "Test service",
        "version": "9.8.7",
    }


@pytest.mark.parametrize("check", [lambda: False, lambda: 1 / 0])
def test_failing_health_check_answers_503_problem(client_for, check) -> None:
    response = client_for(make_builder().with_health_check(check)).get("/health")
    assert response.status_code == 503
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["type"] == "urn:service:error:service-unavailable"
    assert "division" not in response.text


def test_async_health_check_is_awaited(client_for) -> None:
    calls: list[str] = []

    async def ping() -> None:
        calls.append("ping")

    assert client_for(make_builder().with_health_check(ping)).get("/health").status_code == 200
    assert calls == ["ping"]


def test_routers_are_included_with_prefix_and_tags(client_for) -> None:
    router = APIRouter()

    @router.get("/things")
    async def things() -> list[int]:
        return [1, 2]

    client = client_for(ServiceBuilder(title="S").include_router(router, prefix="/v2", tags=["t"]))
    assert client.get("/v2/things").json() == [1, 2]
    assert client.get("/openapi.json").json()["paths"]["/v2/things"]["get"]["tags"] == ["t"]


def test_lifespans_run_in_order_around_the_service(client_for) -> None:
    events: list[str] = []

    def recorder(name: str):
        @asynccontextmanager
        async def lifespan(app: FastAPI) -> AsyncIterator[None]:
            events.append(f"start {name}")
            app.state.resource = name
            yield
            events.append(f"stop {name}")

        return lifespan

    router = APIRouter()

    @router.get("/resource")
    async def resource(request: Request) -> str:
        return request.app.state.resource

    builder = ServiceBuilder(title="S").include_router(router)
    builder.with_lifespan(recorder("db")).with_lifespan(recorder("jobs"))
    client = TestClient(builder.build())
    with client:
        assert events == ["start db", "start jobs"]
        assert client.get("/resource").json() == "jobs"
    assert events == ["start db", "start jobs", "stop jobs", "stop db"]


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda b: b.with_limits(max_body_bytes=-1), ValueError, "max_body_bytes must be >= 0"),
        (lambda b: b.with_limits(max_body_bytes="1MB"), TypeError, "max_body_bytes must be an"),
        (lambda b: b.with_cors("https://a.example"), TypeError, "allow_origins must be a list"),
        (lambda b: b.with_health_check("db"), TypeError, "check must be callable"),
        (lambda b: b.with_auth(api_keys=["k"], header_name=" "), ValueError, "header_name must"),
        (
            lambda b: b.with_auth(api_keys=["k"], unauthenticated_paths="/health"),
            TypeError,
            "unauthenticated_paths must be a list",
        ),
    ],
)
def test_bad_builder_arguments_name_the_parameter(call, error, message: str) -> None:
    with pytest.raises(error, match=message):
        call(ServiceBuilder(title="S"))


def test_a_title_is_required() -> None:
    with pytest.raises(ValueError, match="title must name the service"):
        ServiceBuilder(title=" ")


@pytest.mark.parametrize(
    ("header_name", "wrong"), [("X-Ключ", "К"), ("X API Key", " "), ("X-API-Key:", ":")]
)
def test_a_header_name_that_is_not_an_http_token_is_refused(header_name: str, wrong: str) -> None:
    with pytest.raises(ValueError) as raised:
        ServiceBuilder(title="S").with_auth(api_keys=["k"], header_name=header_name)
    assert str(raised.value).startswith(
        f"header_name {header_name!r} is not a valid HTTP header name: it holds {wrong!r}"
    )


def test_a_header_name_that_is_not_a_string_is_refused() -> None:
    with pytest.raises(TypeError, match="header_name must be a string, got bytes"):
        ServiceBuilder(title="S").with_auth(api_keys=["k"], header_name=b"X-API-Key")


def test_header_names_may_use_every_token_character(authed) -> None:
    name = "X-Key_1.2!#$%&'*+^`|~"
    client = authed(header_name=name)
    assert client.get("/v1/items", headers={name: KEY_A}).status_code == 200


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"title": 123}, "title must be a string, got int"),
        ({"title": "S", "version": 1.0}, "version must be a string, got float"),
        ({"title": "S", "description": None}, "description must be a string, got NoneType"),
    ],
)
def test_service_texts_must_be_strings(arguments: dict[str, object], message: str) -> None:
    with pytest.raises(TypeError, match=message):
        ServiceBuilder(**arguments)
