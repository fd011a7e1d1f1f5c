"""Spec sections 5, 6 and 7: API-key authentication of a toolkit-built service, its log events
and its 401 problem details, driven over loopback HTTP."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import APIRouter

from chaplab import ChapClient
from chaplab.toolkit import BackgroundServer, ServiceBuilder

DEFAULT_OPEN_PATHS = ["/", "/docs", "/redoc", "/openapi.json", "/health"]
KEY = "sk_test_q8Zr4LmW2vXn7TbY5kPa"
OTHER_KEY = "sk_test_H3jd9SkeL0pQwmZ1xVcB"
THIRD_KEY = "sk_test_Fw6NbT2rYpLs8QaZe4Hk"
AUTH_LOGGER = "chaplab.toolkit.auth"


def things_router() -> APIRouter:
    """Application routes of the test service: one protected resource, one meant to be open."""
    router = APIRouter()

    @router.get("/v1/things")
    async def things() -> list[str]:
        return ["a", "b"]

    @router.post("/v1/things")
    async def add_thing() -> dict[str, str]:
        return {"added": "yes"}

    @router.get("/v1/public")
    async def public() -> dict[str, str]:
        return {"public": "yes"}

    return router


def build(**auth: Any) -> Any:
    """A toolkit service with the test routes and ``.with_auth(**auth)``."""
    builder = ServiceBuilder(title="Acceptance").with_auth(**auth)
    return builder.include_router(things_router()).build()


@contextmanager
def served(**auth: Any) -> Iterator[httpx.Client]:
    """Serve ``build(**auth)`` on loopback; yield a raw client for it."""
    with BackgroundServer(build(**auth)) as server, httpx.Client(base_url=server.url) as http:
        yield http


def start_failure(**auth: Any) -> BaseException:
    """The error raised while building and starting a service with these settings."""
    with pytest.raises(Exception) as raised, BackgroundServer(build(**auth)):
        pass
    return raised.value


@pytest.fixture
def no_env_keys(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.delenv("SERVICE_API_KEYS", raising=False)
    return monkeypatch


@pytest.fixture(scope="module")
def default_service() -> Iterator[httpx.Client]:
    """A service with two keys and the default unauthenticated paths."""
    with served(api_keys=[KEY, OTHER_KEY]) as http:
        yield http


def accepts(http: httpx.Client, path: str, key: str | None, header: str = "X-API-Key") -> bool:
    headers = {header: key} if key is not None else {}
    status = http.get(path, headers=headers).status_code
    assert status in (200, 401), f"{path}: unexpected {status}"
    return status == 200


# --- section 5: key sources ------------------------------------------------------------------


def test_api_keys_win_over_the_key_file_and_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key_file = tmp_path / "keys"
    key_file.write_text(f"{OTHER_KEY}\n")
    monkeypatch.setenv("SERVICE_API_KEYS", THIRD_KEY)
    with served(api_keys=[KEY], api_key_file=str(key_file)) as http:
        assert accepts(http, "/v1/things", KEY)
        assert not accepts(http, "/v1/things", OTHER_KEY)
        assert not accepts(http, "/v1/things", THIRD_KEY)


def test_key_file_wins_over_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key_file = tmp_path / "keys"
    key_file.write_text(f"{OTHER_KEY}\n")
    monkeypatch.setenv("SERVICE_API_KEYS", THIRD_KEY)
    with served(api_key_file=str(key_file)) as http:
        assert accepts(http, "/v1/things", OTHER_KEY)
        assert not accepts(http, "/v1/things", THIRD_KEY)


def test_environment_variable_holds_comma_separated_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SERVICE_API_KEYS", f"{KEY},{OTHER_KEY}")
    with served() as http:
        assert accepts(http, "/v1/things", KEY)
        assert accepts(http, "/v1/things", OTHER_KEY)
        assert not accepts(http, "/v1/things", f"{KEY},{OTHER_KEY}")


def test_custom_environment_variable(no_env_keys: pytest.MonkeyPatch) -> None:
    no_env_keys.setenv("ACCEPTANCE_KEYS", THIRD_KEY)
    with served(env_var="ACCEPTANCE_KEYS") as http:
        assert accepts(http, "/v1/things", THIRD_KEY)
        assert not accepts(http, "/v1/things", KEY)


def test_key_file_skips_comment_lines(tmp_path: Path, no_env_keys: pytest.MonkeyPatch) -> None:
    key_file = tmp_path / "keys"
    key_file.write_text(f"# production keys\n{KEY}\n#{THIRD_KEY}\n{OTHER_KEY}\n")
    with served(api_key_file=str(key_file)) as http:
        assert accepts(http, "/v1/things", KEY)
        assert accepts(http, "/v1/things", OTHER_KEY)
        assert not accepts(http, "/v1/things", f"#{THIRD_KEY}")
        assert not accepts(http, "/v1/things", THIRD_KEY)
        assert not accepts(http, "/v1/things", "# production keys")


def test_key_file_with_crlf_lines_and_a_hash_inside_a_key(
    tmp_path: Path, no_env_keys: pytest.MonkeyPatch
) -> None:
    hashed = "sk_test_mid#hash_0123456789"
    key_file = tmp_path / "keys"
    key_file.write_bytes(f"# keys\r\n{KEY}\r\n{hashed}\r\n".encode())
    with served(api_key_file=str(key_file)) as http:
        assert accepts(http, "/v1/things", KEY)
        assert accepts(http, "/v1/things", hashed)


def test_header_name_matches_in_any_case() -> None:
    with served(api_keys=[KEY], header_name="X-Service-Key") as http:
        assert accepts(http, "/v1/things", KEY, header="x-service-key")
        assert accepts(http, "/v1/things", KEY, header="X-SERVICE-KEY")


# --- section 5 rule 2: no key, no start ----------------------------------------------------------


def test_empty_key_list_fails_to_start(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SERVICE_API_KEYS", KEY)
    error = start_failure(api_keys=[])
    assert "No API keys configured" in str(error)


def test_missing_key_file_fails_to_start_with_file_not_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SERVICE_API_KEYS", KEY)
    error = start_failure(api_key_file=str(tmp_path / "absent"))
    assert isinstance(error, FileNotFoundError)
    assert "API key file not found" in str(error)


def test_key_file_with_only_comments_fails_to_start(
    tmp_path: Path, no_env_keys: pytest.MonkeyPatch
) -> None:
    key_file = tmp_path / "keys"
    key_file.write_text("# nothing yet\n")
    error = start_failure(api_key_file=str(key_file))
    assert "No API keys configured" in str(error)


def test_unset_environment_variable_fails_to_start(no_env_keys: pytest.MonkeyPatch) -> None:
    error = start_failure()
    assert "No API keys found in SERVICE_API_KEYS" in str(error)


def test_environment_variable_of_only_commas_fails_to_start(
    no_env_keys: pytest.MonkeyPatch,
) -> None:
    no_env_keys.setenv("SERVICE_API_KEYS", ",,")
    error = start_failure()
    assert "No API keys found in SERVICE_API_KEYS" in str(error)


def test_empty_custom_environment_variable_fails_to_start(
    no_env_keys: pytest.MonkeyPatch,
) -> None:
    no_env_keys.setenv("ACCEPTANCE_KEYS", "")
    error = start_failure(env_var="ACCEPTANCE_KEYS")
    assert "No API keys found in ACCEPTANCE_KEYS" in str(error)


# --- section 5 rules 3 to 6: who needs a key ---------------------------------------------


def test_protected_path_needs_a_configured_key(default_service: httpx.Client) -> None:
    assert not accepts(default_service, "/v1/things", None)
    assert not accepts(default_service, "/v1/things", "sk_test_not_a_configured_key")
    assert not accepts(default_service, "/v1/things", "")
    assert accepts(default_service, "/v1/things", KEY)
    assert default_service.get("/v1/things", headers={"X-API-Key": KEY}).json() == ["a", "b"]


def test_every_method_needs_the_key(default_service: httpx.Client) -> None:
    assert default_service.post("/v1/things").status_code == 401
    assert default_service.post("/v1/things", headers={"X-API-Key": KEY}).status_code == 200


def test_several_keys_are_active_at_once(default_service: httpx.Client) -> None:
    assert accepts(default_service, "/v1/things", KEY)
    assert accepts(default_service, "/v1/things", OTHER_KEY)


@pytest.mark.parametrize("path", DEFAULT_OPEN_PATHS)
def test_default_unauthenticated_paths_need_no_key(
    default_service: httpx.Client, path: str
) -> None:
    assert default_service.get(path).status_code == 200


def test_readiness_probes_need_no_key() -> None:
    """An orchestrator's readiness probe carries no key: ``/health/ready`` and ``/health/probe``
    answer without one; other paths under ``/health/`` still need it."""
    probes = APIRouter()

    @probes.get("/health/ready")
    async def ready() -> dict[str, str]:
        return {"status": "ready"}

    @probes.get("/health/probe")
    async def probe() -> dict[str, str]:
        return {"status": "ok"}

    @probes.get("/health/details")
    async def details() -> dict[str, str]:
        return {"status": "secret"}

    service = ServiceBuilder(title="Probes").with_auth(api_keys=[KEY]).include_router(probes)
    with BackgroundServer(service.build()) as server, httpx.Client(base_url=server.url) as http:
        assert http.get("/health/ready").json() == {"status": "ready"}
        assert http.get("/health/probe").json() == {"status": "ok"}
        assert not accepts(http, "/health/details", None)
        assert accepts(http, "/health/details", KEY)


def test_unauthenticated_path_with_a_query_needs_no_key(default_service: httpx.Client) -> None:
    assert default_service.get("/health", params={"probe": "1"}).status_code == 200


def test_health_answers_200_without_a_key(default_service: httpx.Client) -> None:
    assert default_service.get("/health").status_code == 200


@pytest.mark.parametrize(
    "path", ["/health/", "/healthz", "/docs/x", "/openapi.json/", "/v1/public"]
)
def test_matching_is_by_exact_path(default_service: httpx.Client, path: str) -> None:
    assert default_service.get(path).status_code == 401


def test_explicit_list_replaces_the_defaults() -> None:
    with served(api_keys=[KEY], unauthenticated_paths=["/v1/public"]) as http:
        assert accepts(http, "/v1/public", None)
        for path in DEFAULT_OPEN_PATHS:
            assert not accepts(http, path, None), path
            assert accepts(http, path, KEY), path


def test_explicit_list_keeps_defaults_only_when_listed() -> None:
    with served(api_keys=[KEY], unauthenticated_paths=["/health", "/v1/public"]) as http:
        assert accepts(http, "/health", None)
        assert accepts(http, "/v1/public", None)
        assert not accepts(http, "/docs", None)
        assert not accepts(http, "/v1/things", None)


def test_empty_list_requires_a_key_on_every_path() -> None:
    with served(api_keys=[KEY], unauthenticated_paths=[]) as http:
        for path in [*DEFAULT_OPEN_PATHS, "/v1/public"]:
            assert not accepts(http, path, None), path
            assert accepts(http, path, KEY), path


def test_custom_header_name() -> None:
    with served(api_keys=[KEY], header_name="X-Service-Key") as http:
        assert accepts(http, "/v1/things", KEY, header="X-Service-Key")
        response = http.get("/v1/things", headers={"X-API-Key": KEY})
        assert response.status_code == 401
        assert response.json()["detail"] == "Missing authentication header: X-Service-Key"


# --- section 7: 401 problem details --------------------------------------------------------------


def test_missing_key_problem_details(default_service: httpx.Client) -> None:
    response = default_service.get("/v1/things")
    assert response.status_code == 401
    assert response.headers["content-type"].split(";")[0].strip() == "application/problem+json"
    assert response.json() == {
        "type": "urn:service:error:unauthorized",
        "title": "Unauthorized",
        "status": 401,
        "detail": "Missing authentication header: X-API-Key",
        "instance": "/v1/things",
    }


def test_invalid_key_problem_details(default_service: httpx.Client) -> None:
    response = default_service.get("/v1/things", headers={"X-API-Key": "sk_test_wrong_key_123456"})
    assert response.status_code == 401
    assert response.headers["content-type"].split(";")[0].strip() == "application/problem+json"
    assert response.json() == {
        "type": "urn:service:error:unauthorized",
        "title": "Unauthorized",
        "status": 401,
        "detail": "Invalid API key",
        "instance": "/v1/things",
    }


def test_problem_instance_is_the_path_without_the_query(default_service: httpx.Client) -> None:
    body = default_service.get("/v1/unknown/deep", params={"page": 2}).json()
    assert body["status"] == 401
    assert body["instance"] == "/v1/unknown/deep"


# --- section 6: events, and no key in any log --------------------------------------------


def auth_events(caplog: pytest.LogCaptureFixture, event: str) -> list[logging.LogRecord]:
    return [
        record
        for record in caplog.records
        if record.name == AUTH_LOGGER and getattr(record, "event", None) == event
    ]


def test_success_event(default_service: httpx.Client, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger=AUTH_LOGGER):
        default_service.get("/v1/things", headers={"X-API-Key": KEY})
    (record,) = auth_events(caplog, "auth.success")
    assert record.key_prefix == KEY[:7]
    assert record.path == "/v1/things"


def test_event_path_leaves_out_the_query(
    default_service: httpx.Client, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.DEBUG, logger=AUTH_LOGGER):
        default_service.get("/v1/things", params={"page": "2"}, headers={"X-API-Key": OTHER_KEY})
    (record,) = auth_events(caplog, "auth.success")
    assert record.path == "/v1/things"
    assert record.key_prefix == OTHER_KEY[:7]


def test_invalid_key_event(default_service: httpx.Client, caplog: pytest.LogCaptureFixture) -> None:
    wrong = "sk_live_Zx9wVb8UtR7sQ6pO5n"
    with caplog.at_level(logging.DEBUG, logger=AUTH_LOGGER):
        default_service.post("/v1/things", headers={"X-API-Key": wrong})
    (record,) = auth_events(caplog, "auth.invalid_key")
    assert record.key_prefix == wrong[:7]
    assert record.path == "/v1/things"
    assert record.method == "POST"


def test_missing_key_event(default_service: httpx.Client, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger=AUTH_LOGGER):
        default_service.get("/v1/things")
    (record,) = auth_events(caplog, "auth.missing_key")
    assert record.path == "/v1/things"
    assert record.method == "GET"
    assert not hasattr(record, "key_prefix")


def test_only_seven_characters_of_a_key_are_ever_logged(
    caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    wrong = "sk_live_Lm3nB4vC5xZ6aS7dF8"
    with caplog.at_level(logging.DEBUG), served(api_keys=[KEY, OTHER_KEY]) as http:
        http.get("/v1/things", headers={"X-API-Key": KEY})
        http.get("/v1/things", headers={"X-API-Key": wrong})
        http.get("/health", headers={"X-API-Key": OTHER_KEY})
    prefixes = [getattr(r, "key_prefix", None) for r in caplog.records if r.name == AUTH_LOGGER]
    assert KEY[:7] in prefixes and wrong[:7] in prefixes
    for record in caplog.records:
        text = record.getMessage() + " " + " ".join(str(v) for v in vars(record).values())
        for key in (KEY, OTHER_KEY, wrong):
            assert key[:8] not in text, f"{record.name}: {text}"
            for start in range(7, len(key) - 5):
                assert key[start : start + 6] not in text, f"{record.name}: {text}"


# --- the modeling service with keys ------------------------------------------------------------


def test_modeling_service_with_keys(start_service: Callable[..., str]) -> None:
    url = start_service(api_keys=[KEY], seed_demo=False)
    assert httpx.get(f"{url}/v1/crud/datasets").status_code == 401
    for path in DEFAULT_OPEN_PATHS:
        assert httpx.get(f"{url}{path}").status_code == 200, path
    # open, as chap-core 2.5.1's: it is how a client learns that it needs a key
    info = httpx.get(f"{url}/system/info")
    assert info.status_code == 200 and info.json()["auth_required"] is True
    with ChapClient(url, api_key=KEY) as client:
        assert client.system_info().chap_core_version
        assert isinstance(client.list_datasets(), list)
    from chaplab.client import AuthenticationError

    with ChapClient(url, api_key=OTHER_KEY) as client, pytest.raises(AuthenticationError):
        client.list_datasets()


def test_client_never_shows_the_whole_key(start_service: Callable[..., str]) -> None:
    from chaplab.client import AuthenticationError

    url = start_service(api_keys=[KEY], seed_demo=False)
    with ChapClient(url, api_key=OTHER_KEY) as client:
        assert OTHER_KEY[:8] not in repr(client)
        with pytest.raises(AuthenticationError) as raised:
            client.list_datasets()
    assert OTHER_KEY[:8] not in str(raised.value) and OTHER_KEY[:8] not in repr(raised.value)
