"""The registry of model services as chap-core 2.5.1 keeps it: servicekit's payload, the
service's own id, the absolute ping URL, expiry, the registration key and 2.5.1's answers."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine

from chaplab.client import (
    AuthenticationError,
    ChapClient,
    NotFoundError,
    UnprocessableEntityError,
)
from chaplab.service import create_app
from chaplab.toolkit import BackgroundServer
from wire_schemas import assert_matches_chap_core

pytestmark = pytest.mark.integration


def service_info(service_id: str, **changes: Any) -> dict[str, Any]:
    """What chapkit sends as a service's info (``MLServiceInfo``)."""
    return {
        "id": service_id,
        "display_name": "Mean model",
        "version": "1.0.0",
        "description": "each place's mean",
        "model_metadata": {"author": "chaplab", "author_assessed_status": "orange"},
        "period_type": "monthly",
        "required_covariates": [],
        **changes,
    }


def register(service_url: str, service_id: str, url: str, **headers: str) -> httpx.Response:
    """Register as servicekit does: ``{"id", "url", "info"}``."""
    body = {"id": service_id, "url": url, "info": service_info(service_id)}
    return httpx.post(f"{service_url}/v2/services/$register", json=body, headers=headers)


def test_servicekit_registers_pings_and_leaves_in_2_5_1_shapes(
    service_url: str, client: ChapClient, unique: str
) -> None:
    service_id = f"mean-{unique}"
    answer = register(service_url, service_id, "http://127.0.0.1:9/")
    assert answer.status_code == 200, answer.text
    registered = answer.json()
    assert_matches_chap_core("POST", "/v2/services/$register", registered)
    assert registered["id"] == service_id and registered["service_url"] == "http://127.0.0.1:9"
    assert registered["ping_url"] == f"{service_url}/v2/services/{service_id}/$ping"
    assert registered["ttl_seconds"] == 30
    listed = httpx.get(f"{service_url}/v2/services").json()
    assert_matches_chap_core("GET", "/v2/services", listed)
    assert service_id in [service["id"] for service in listed["services"]]
    detail = httpx.get(f"{service_url}/v2/services/{service_id}").json()
    assert_matches_chap_core("GET", f"/v2/services/{service_id}", detail)
    assert detail["info"]["model_metadata"]["author"] == "chaplab"
    pinged = httpx.put(registered["ping_url"])
    assert pinged.status_code == 200
    assert_matches_chap_core("PUT", f"/v2/services/{service_id}/$ping", pinged.json())
    assert pinged.json()["expires_at"] >= detail["expires_at"]
    runner = client.get_model_runner(service_id)
    assert (runner.id, runner.url) == (service_id, "http://127.0.0.1:9")
    again = register(service_url, service_id, "http://127.0.0.1:10").json()
    assert again["message"].startswith("Service registration updated")
    assert client.get_model_runner(service_id).url == "http://127.0.0.1:10"
    client.remove_model_runner(service_id)
    for call in (client.get_model_runner, client.ping_model_runner, client.remove_model_runner):
        with pytest.raises(NotFoundError):
            call(service_id)


def test_a_service_not_pinged_within_its_ttl_expires_and_registers_again(
    service_url: str, client: ChapClient, unique: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    service_id = f"brief-{unique}"
    monkeypatch.setenv("CHAPLAB_SERVICE_TTL_SECONDS", "1")
    assert register(service_url, service_id, "http://127.0.0.1:9").json()["ttl_seconds"] == 1
    time.sleep(2.1)  # stored times have whole seconds
    assert service_id not in [runner.id for runner in client.list_model_runners()]
    assert httpx.put(f"{service_url}/v2/services/{service_id}/$ping").status_code == 404
    monkeypatch.setenv("CHAPLAB_SERVICE_TTL_SECONDS", "soon")  # a bad setting: the default
    again = register(service_url, service_id, "http://127.0.0.1:9").json()
    assert again["message"].startswith("Service registered successfully")
    assert again["ttl_seconds"] == 30
    client.remove_model_runner(service_id)


def test_with_a_registration_key_only_its_holder_registers_pings_and_leaves(
    service_url: str, unique: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    service_id = f"keyed-{unique}"
    monkeypatch.setenv("SERVICEKIT_REGISTRATION_KEY", "k" * 32)
    refused = register(service_url, service_id, "http://127.0.0.1:9", **{"X-Service-Key": "no"})
    assert refused.status_code == 401 and "X-Service-Key" in refused.text
    assert register(service_url, service_id, "http://127.0.0.1:9").status_code == 401
    key = {"X-Service-Key": "k" * 32}
    assert register(service_url, service_id, "http://127.0.0.1:9", **key).status_code == 200
    ping = f"{service_url}/v2/services/{service_id}/$ping"
    assert httpx.put(ping).status_code == 401
    assert httpx.put(ping, headers=key).status_code == 200
    assert httpx.get(f"{service_url}/v2/services/{service_id}").status_code == 200
    assert httpx.delete(f"{service_url}/v2/services/{service_id}").status_code == 401
    assert httpx.delete(f"{service_url}/v2/services/{service_id}", headers=key).status_code == 204
    with ChapClient(service_url) as client:
        info = service_info(service_id)
        with pytest.raises(AuthenticationError, match="X-Service-Key"):
            client.register_model_runner("http://127.0.0.1:9", info)
        runner = client.register_model_runner("http://127.0.0.1:9", info, service_key="k" * 32)
        assert client.ping_model_runner(runner.id, service_key="k" * 32).id == service_id
        client.remove_model_runner(runner.id, service_key="k" * 32)


@pytest.mark.parametrize("url", ["ftp://host/x", "not a url", "http://", "http://user:pw@host"])
def test_a_service_url_must_be_http_with_a_host(client: ChapClient, url: str) -> None:
    with pytest.raises(UnprocessableEntityError, match="url"):
        client.register_model_runner(url, service_info("bad-url"))


def test_a_registration_needs_the_info_chapkit_sends(service_url: str) -> None:
    url = f"{service_url}/v2/services/$register"
    answer = httpx.post(url, json={"url": "http://x", "info": {"name": "r"}})
    assert answer.status_code == 422 and "display_name" in answer.text
    other = {"id": "one", "url": "http://x", "info": service_info("two")}
    mismatch = httpx.post(url, json=other)
    assert mismatch.status_code == 422 and "'two'" in mismatch.text
    extra = {"url": "http://x", "info": service_info("three"), "colour": "red"}
    answer = httpx.post(url, json=extra)
    assert answer.status_code == 422 and "colour" in answer.text


def test_runners_stored_by_number_are_kept_as_text_and_expired(
    new_database_url: Callable[[str], str],
) -> None:
    """Schema version 4 -> 5: a runner registered under a number keeps it as text, expired
    since its last ping, so a service pinging it registers again under its own id."""
    database = new_database_url("runners_v4")
    create_app(database, seed_demo=False)
    engine = create_engine(database)
    with engine.begin() as connection:
        connection.exec_driver_sql("DROP TABLE model_runners")
        connection.exec_driver_sql(
            "CREATE TABLE model_runners (id INTEGER PRIMARY KEY, url VARCHAR(2000) UNIQUE, "
            "info JSON, registered_at TIMESTAMP, last_ping_at TIMESTAMP, ping_count INTEGER)"
        )
        connection.exec_driver_sql(
            "INSERT INTO model_runners VALUES "
            "(7, 'http://old.example:9000', '{\"name\": \"ewars\"}', "
            "'2026-01-02 03:04:05', '2026-01-02 03:04:05', 3)"
        )
        connection.exec_driver_sql("UPDATE schema_version SET version = 4")
    app = create_app(database, seed_demo=False, workers=1)
    with engine.connect() as connection:
        rows = connection.exec_driver_sql("SELECT id, url, info FROM model_runners").all()
        assert [(row[0], row[1]) for row in rows] == [("7", "http://old.example:9000")]
    engine.dispose()
    with BackgroundServer(app, "127.0.0.1") as server, ChapClient(server.url) as chap:
        assert chap.list_model_runners() == []
        with pytest.raises(NotFoundError):
            chap.ping_model_runner("7")
        assert register(server.url, "ewars", "http://old.example:9000").status_code == 200
        assert [runner.id for runner in chap.list_model_runners()] == ["ewars"]
