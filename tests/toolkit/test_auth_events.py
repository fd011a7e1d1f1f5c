"""Authentication log events (spec 6) and the rule that no record ever holds a whole key."""

from __future__ import annotations

import json
import logging

import pytest

from chaplab.toolkit import JsonLinesFormatter

from .helpers import KEY_A, KEY_B, all_texts

AUTH_LOGGER = "chaplab.toolkit.auth"


def auth_events(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [
        record
        for record in caplog.records
        if getattr(record, "event", None)
        in {"auth.success", "auth.invalid_key", "auth.missing_key"}
    ]


def test_valid_key_logs_auth_success_with_prefix_and_path(
    authed, caplog: pytest.LogCaptureFixture
) -> None:
    client = authed()
    caplog.set_level(logging.DEBUG)
    client.get("/v1/items", headers={"X-API-Key": KEY_A})
    [record] = auth_events(caplog)
    assert record.event == "auth.success"
    assert record.key_prefix == KEY_A[:7] == "sk_test"
    assert record.path == "/v1/items"


def test_unknown_key_logs_auth_invalid_key_with_prefix_path_and_method(
    authed, caplog: pytest.LogCaptureFixture
) -> None:
    client = authed()
    caplog.set_level(logging.DEBUG)
    client.delete("/v1/items", headers={"X-API-Key": "sk_live_ZZZZZZZZZZZZZZZZ"})
    [record] = auth_events(caplog)
    assert (record.event, record.key_prefix, record.path, record.method) == (
        "auth.invalid_key",
        "sk_live",
        "/v1/items",
        "DELETE",
    )
    assert record.levelno == logging.WARNING


def test_absent_header_logs_auth_missing_key_with_path_and_method(
    authed, caplog: pytest.LogCaptureFixture
) -> None:
    client = authed()
    caplog.set_level(logging.DEBUG)
    client.put("/v1/items")
    [record] = auth_events(caplog)
    assert (record.event, record.path, record.method) == ("auth.missing_key", "/v1/items", "PUT")
    assert not hasattr(record, "key_prefix")


def test_empty_header_logs_auth_missing_key(authed, caplog: pytest.LogCaptureFixture) -> None:
    client = authed()
    caplog.set_level(logging.DEBUG)
    client.get("/v1/items", headers={"X-API-Key": ""})
    [record] = auth_events(caplog)
    assert (record.event, record.path, record.method) == ("auth.missing_key", "/v1/items", "GET")
    assert not hasattr(record, "key_prefix")


def test_unauthenticated_paths_log_no_auth_event(authed, caplog: pytest.LogCaptureFixture) -> None:
    client = authed()
    caplog.set_level(logging.DEBUG)
    client.get("/health")
    assert auth_events(caplog) == []


def test_no_log_record_holds_a_whole_key(
    authed, caplog: pytest.LogCaptureFixture, tmp_path
) -> None:
    caplog.set_level(logging.DEBUG)
    intruder_key = "sk_live_INTRUDERINTRUDER"
    key_file = tmp_path / "keys"
    key_file.write_text(f"{KEY_A}\n{KEY_B}\n")
    client = authed(api_keys=None, api_key_file=key_file)
    client.get("/v1/items", headers={"X-API-Key": KEY_A})
    client.get("/v1/items", headers={"X-API-Key": intruder_key})
    client.get("/v1/nowhere", headers={"X-API-Key": KEY_B})
    client.post("/v1/items/typed", headers={"X-API-Key": KEY_A}, json={"name": KEY_B})
    key_file.write_text("")
    client.app.state.api_key_store.reload()
    assert len(caplog.records) >= 5
    for text in all_texts(caplog.records):
        for key in (KEY_A, KEY_B, intruder_key):
            assert key not in text


def test_short_keys_log_at_most_half_of_the_key(authed, caplog: pytest.LogCaptureFixture) -> None:
    client = authed(api_keys=["abcdef"])
    caplog.set_level(logging.DEBUG)
    client.get("/v1/items", headers={"X-API-Key": "abcdef"})
    [record] = auth_events(caplog)
    assert record.key_prefix == "abc"


def test_json_lines_formatter_writes_the_event_fields(
    authed, caplog: pytest.LogCaptureFixture
) -> None:
    client = authed()
    caplog.set_level(logging.DEBUG)
    client.get("/v1/items", headers={"X-API-Key": "sk_prod_wrongwrongwrong"})
    [record] = auth_events(caplog)
    line = JsonLinesFormatter().format(record)
    assert "\n" not in line
    entry = json.loads(line)
    assert entry["event"] == "auth.invalid_key"
    assert (entry["key_prefix"], entry["path"], entry["method"]) == ("sk_prod", "/v1/items", "GET")
    assert (entry["level"], entry["logger"]) == ("WARNING", AUTH_LOGGER)
