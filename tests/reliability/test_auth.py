"""API keys on the modeling service: every documented route refuses requests without a valid key,
keys rotate through the key file while the service runs, keys are compared in constant time,
and no log line holds a whole key."""

from __future__ import annotations

import hmac
import logging
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from chaplab.service.app import OPEN_PATHS
from chaplab.toolkit import BackgroundServer

from .api_keys import KEYS, ROTATION_WAIT_SECONDS, WRONG_KEYS, wait_for_status, write_keys
from .openapi_routes import RouteCall, ServedRoute, route_calls, served_routes

MIN_DOCUMENTED_OPERATIONS = 60  # the spec's ~65 operations, less the open ones
MIN_SERVED_ROUTES = 62  # those, the undocumented ones and the toolkit's own


@pytest.fixture(scope="module")
def key_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("keys") / "api-keys"
    write_keys(path, *KEYS)
    return path


@pytest.fixture(scope="module")
def authed_service(
    key_file: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, Any]]:
    """The modeling service with keys from ``key_file``: (base URL, app)."""
    from chaplab.service import create_app

    database = tmp_path_factory.mktemp("authdb") / "chaplab.db"
    app = create_app(database_url=str(database), api_key_file=key_file, workers=1, seed_demo=False)
    with BackgroundServer(app) as server:
        yield server.url, app


def documented_calls(url: str) -> list[RouteCall]:
    openapi = httpx.get(f"{url}/openapi.json", timeout=10).json()
    return [call for call in route_calls(openapi) if call.template not in OPEN_PATHS]


def assert_unauthorized(response: httpx.Response, detail: str, call: RouteCall) -> None:
    assert response.status_code == 401, f"{call}: {response.status_code} {response.text[:300]}"
    assert response.headers["content-type"].startswith("application/problem+json"), str(call)
    if call.method == "HEAD":  # a HEAD answer has the headers of the problem, not its body
        assert response.headers["www-authenticate"] == 'ApiKey header="X-API-Key"'
        return
    problem = response.json()
    assert problem["type"] == "urn:service:error:unauthorized"
    assert problem["detail"] == detail
    assert response.headers["www-authenticate"] == 'ApiKey header="X-API-Key"'


def refuses_without_a_valid_key(http: httpx.Client, call: RouteCall, keys: tuple[str, ...]) -> None:
    """``call`` without a key, then with each of ``keys``, answers 401 problem details."""
    body = {} if call.method in ("POST", "PUT", "PATCH") else None
    missing = http.request(call.method, call.path, json=body)
    assert_unauthorized(missing, "Missing authentication header: X-API-Key", call)
    for wrong in keys:
        refused = http.request(call.method, call.path, json=body, headers={"X-API-Key": wrong})
        assert_unauthorized(refused, "Invalid API key", call)


def test_every_documented_route_refuses_requests_without_a_valid_key(
    authed_service: tuple[str, Any],
) -> None:
    url, _ = authed_service
    calls = documented_calls(url)
    assert len(calls) >= MIN_DOCUMENTED_OPERATIONS, f"only {len(calls)} documented operations"
    with httpx.Client(base_url=url, timeout=10) as http:
        for call in calls:
            refuses_without_a_valid_key(http, call, WRONG_KEYS)


def guarded_routes(app: Any) -> list[ServedRoute]:
    """Every route the app serves outside the open paths."""
    return [route for route in served_routes(app.routes) if route.template not in OPEN_PATHS]


def test_every_served_route_and_method_refuses_requests_without_a_valid_key(
    authed_service: tuple[str, Any],
) -> None:
    """Every route the app serves, documented or not, with every method it declares plus HEAD
    and OPTIONS. The walk must find every documented operation, and at least
    ``MIN_SERVED_ROUTES`` routes, so that a walk missing the included routers cannot pass."""
    url, app = authed_service
    routes = guarded_routes(app)
    assert len(routes) >= MIN_SERVED_ROUTES, f"the walk found only {len(routes)} routes"
    walked = {(call.method, call.template) for route in routes for call in route.calls()}
    unwalked = [
        str(call) for call in documented_calls(url) if (call.method, call.template) not in walked
    ]
    assert unwalked == [], "documented operations the route walk did not find"
    with httpx.Client(base_url=url, timeout=10) as http:
        for route in routes:
            for call in route.calls():
                refuses_without_a_valid_key(http, call, WRONG_KEYS[:1])


def test_the_open_paths_answer_without_a_key(authed_service: tuple[str, Any]) -> None:
    url, _ = authed_service
    for path in sorted(OPEN_PATHS):
        assert httpx.get(f"{url}{path}", timeout=10).status_code == 200, path


def test_every_configured_key_opens_every_read(authed_service: tuple[str, Any]) -> None:
    url, _ = authed_service
    reads = [
        call for call in documented_calls(url) if call.method == "GET" and "{" not in call.template
    ]
    with httpx.Client(base_url=url, timeout=30) as http:
        for key in KEYS:
            for call in reads:
                status = http.get(call.path, headers={"X-API-Key": key}).status_code
                assert status != 401, f"{call} refused a configured key"


@pytest.mark.parametrize("presented", [KEYS[0], KEYS[1], WRONG_KEYS[0]])
def test_keys_are_compared_in_constant_time_with_every_configured_key(
    authed_service: tuple[str, Any], monkeypatch: pytest.MonkeyPatch, presented: str
) -> None:
    """The check compares the presented key with EVERY active key through a constant-time
    comparison, whether it matches the first, the last or none (no early exit)."""
    url, _ = authed_service
    real = hmac.compare_digest
    compared: list[tuple[bytes, bytes]] = []

    def spy(a: Any, b: Any) -> bool:
        compared.append((bytes(a), bytes(b)))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)
    monkeypatch.setattr(secrets, "compare_digest", spy)
    httpx.get(f"{url}/v1/crud/datasets", headers={"X-API-Key": presented}, timeout=10)

    assert sorted(key for _, key in compared) == sorted(k.encode() for k in KEYS)
    assert {given for given, _ in compared} == {presented.encode()}


def test_keys_rotate_through_the_key_file_without_a_restart(
    authed_service: tuple[str, Any], key_file: Path
) -> None:
    url, _ = authed_service
    new_key = "sk_test_" + secrets.token_urlsafe(18)
    datasets = f"{url}/v1/crud/datasets"

    def status_with(key: str) -> int:
        return httpx.get(datasets, headers={"X-API-Key": key}, timeout=10).status_code

    try:
        write_keys(key_file, KEYS[0], KEYS[1], new_key)  # add the new key
        assert wait_for_status(lambda: status_with(new_key), 200)
        assert status_with(KEYS[0]) == 200
        write_keys(key_file, KEYS[1], new_key)  # retire the old one
        assert wait_for_status(lambda: status_with(KEYS[0]), 401)
        assert status_with(new_key) == 200
        assert status_with(KEYS[1]) == 200
    finally:
        write_keys(key_file, *KEYS)
        assert wait_for_status(lambda: status_with(KEYS[0]), 200)


def test_an_emptied_key_file_keeps_the_old_keys(
    authed_service: tuple[str, Any], key_file: Path, caplog: pytest.LogCaptureFixture
) -> None:
    url, _ = authed_service
    caplog.set_level(logging.INFO, logger="chaplab.toolkit.auth")
    try:
        write_keys(key_file)
        deadline = time.monotonic() + ROTATION_WAIT_SECONDS
        while not any(r.getMessage().startswith("auth.reload_failed") for r in caplog.records):
            assert time.monotonic() < deadline, "the emptied key file was never re-read"
            httpx.get(f"{url}/v1/crud/datasets", headers={"X-API-Key": KEYS[0]}, timeout=10)
            time.sleep(0.1)
        for key in KEYS:
            status = httpx.get(f"{url}/v1/crud/datasets", headers={"X-API-Key": key}, timeout=10)
            assert status.status_code == 200
    finally:
        write_keys(key_file, *KEYS)
