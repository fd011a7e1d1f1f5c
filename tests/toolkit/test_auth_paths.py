"""Which requests need a key (spec 5, rules 3 to 6) and the exact 401 answers (spec 7)."""

from __future__ import annotations

import pytest

from chaplab.toolkit.auth import DEFAULT_UNAUTHENTICATED_PATHS

from .helpers import KEY_A, KEY_B, make_builder

OPEN_PATHS = ["/", "/docs", "/redoc", "/openapi.json", "/health"]
READINESS_PATHS = ["/health/ready", "/health/probe"]  # served by the modeling service


@pytest.mark.parametrize("path", OPEN_PATHS)
def test_default_unauthenticated_paths_need_no_key(authed, path: str) -> None:
    assert authed().get(path).status_code == 200


def test_default_unauthenticated_set_is_exactly_the_open_and_readiness_paths() -> None:
    assert frozenset(OPEN_PATHS + READINESS_PATHS) == DEFAULT_UNAUTHENTICATED_PATHS


def test_explicit_list_replaces_the_defaults(authed) -> None:
    client = authed(unauthenticated_paths=["/v1/items"])
    assert client.get("/v1/items").status_code == 200
    for path in OPEN_PATHS:
        assert client.get(path).status_code == 401, path


def test_empty_list_requires_a_key_on_every_path(authed) -> None:
    client = authed(unauthenticated_paths=[])
    for path in OPEN_PATHS:
        assert client.get(path).status_code == 401, path
        assert client.get(path, headers={"X-API-Key": KEY_A}).status_code == 200, path


@pytest.mark.parametrize("path", ["/health/", "/healthz", "/docs/x", "/Health", "/openapi.json/"])
def test_matching_is_by_exact_path(authed, path: str) -> None:
    response = authed().get(path)
    assert response.status_code == 401
    assert response.json()["instance"] == path


@pytest.mark.parametrize("method", ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"])
def test_every_method_on_a_protected_route_needs_a_key(authed, method: str) -> None:
    client = authed()
    assert client.request(method, "/v1/items").status_code == 401
    with_key = client.request(method, "/v1/items", headers={"X-API-Key": KEY_A})
    assert with_key.status_code == (405 if method == "HEAD" else 200)


def test_custom_header_name_carries_the_key_and_the_default_one_does_not(authed) -> None:
    client = authed(header_name="Authorization-Key")
    assert client.get("/v1/items", headers={"Authorization-Key": KEY_A}).status_code == 200
    response = client.get("/v1/items", headers={"X-API-Key": KEY_A})
    assert response.status_code == 401
    assert response.json()["detail"] == "Missing authentication header: Authorization-Key"


def test_header_name_matching_ignores_case(authed) -> None:
    assert authed().get("/v1/items", headers={"x-api-key": KEY_A}).status_code == 200


def test_two_keys_are_active_at_once(authed) -> None:
    client = authed(api_keys=[KEY_A, KEY_B])
    for key in (KEY_A, KEY_B):
        assert client.get("/v1/items", headers={"X-API-Key": key}).status_code == 200


def test_a_removed_key_stops_working_while_the_other_keeps_working(authed) -> None:
    client = authed(api_keys=[KEY_A, KEY_B])
    client.app.state.api_key_store.replace([KEY_B])
    assert client.get("/v1/items", headers={"X-API-Key": KEY_A}).status_code == 401
    assert client.get("/v1/items", headers={"X-API-Key": KEY_B}).status_code == 200


@pytest.mark.parametrize(
    ("method", "headers", "detail"),
    [
        ("GET", {}, "Missing authentication header: X-API-Key"),
        ("POST", {"X-API-Key": KEY_B}, "Invalid API key"),
    ],
    ids=["missing key", "invalid key"],
)
def test_refused_key_answer_is_the_exact_problem(
    authed, method: str, headers: dict[str, str], detail: str
) -> None:
    response = authed().request(method, "/v1/items", headers=headers)
    assert response.status_code == 401
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json() == {
        "type": "urn:service:error:unauthorized",
        "title": "Unauthorized",
        "status": 401,
        "detail": detail,
        "instance": "/v1/items",
    }


@pytest.mark.parametrize("value", ["", "   ", "\t"], ids=["empty", "spaces", "tab"])
def test_an_empty_key_header_counts_as_a_missing_key(authed, value: str) -> None:
    response = authed().get("/v1/items", headers={"X-API-Key": value})
    assert response.status_code == 401
    assert response.json()["detail"] == "Missing authentication header: X-API-Key"


def test_401_names_the_scheme_and_header_in_www_authenticate(authed) -> None:
    response = authed(header_name="X-Service-Key").get("/v1/items")
    assert response.headers["www-authenticate"] == 'ApiKey header="X-Service-Key"'


def test_a_key_with_a_different_case_is_invalid(authed) -> None:
    assert authed().get("/v1/items", headers={"X-API-Key": KEY_A.lower()}).status_code == 401


def test_cors_preflight_needs_no_key_when_cors_is_enabled(client_for) -> None:
    builder = make_builder().with_auth(api_keys=[KEY_A]).with_cors(["https://app.example"])
    client = client_for(builder)
    preflight = client.options(
        "/v1/items",
        headers={
            "Origin": "https://app.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "X-API-Key",
        },
    )
    assert preflight.status_code == 200
    assert preflight.headers["access-control-allow-origin"] == "https://app.example"
    simple = client.get("/v1/items", headers={"Origin": "https://app.example"})
    assert simple.status_code == 401
    assert simple.headers["access-control-allow-origin"] == "https://app.example"


def test_preflight_needs_a_key_without_cors(authed) -> None:
    preflight = authed().options(
        "/v1/items",
        headers={"Origin": "https://app.example", "Access-Control-Request-Method": "POST"},
    )
    assert preflight.status_code == 401


def test_a_service_without_auth_needs_no_key(client_for) -> None:
    assert client_for(make_builder()).get("/v1/items").status_code == 200


def test_openapi_declares_the_key_header_and_open_paths(authed) -> None:
    schema = authed(header_name="X-Service-Key").get("/openapi.json").json()
    assert schema["components"]["securitySchemes"]["ApiKeyAuth"] == {
        "type": "apiKey",
        "in": "header",
        "name": "X-Service-Key",
    }
    assert schema["security"] == [{"ApiKeyAuth": []}]
    assert schema["paths"]["/health"]["get"]["security"] == []
    assert "security" not in schema["paths"]["/v1/items"]["get"]
