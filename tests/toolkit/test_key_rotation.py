"""Keys change while the service runs: a re-read key file, ``reload()``, ``replace()``."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from chaplab.toolkit import ApiKeyStore, KeyFileKeys, StaticKeys

from .helpers import KEY_A, KEY_B


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def write_keys(path: Path, text: str, mtime: float) -> None:
    """Write the key file and give it a distinct modification time."""
    path.write_text(text)
    os.utime(path, (mtime, mtime))


@pytest.fixture
def key_file(tmp_path: Path) -> Path:
    path = tmp_path / "keys"
    write_keys(path, KEY_A + "\n", 1_000_000)
    return path


def test_rotating_a_key_in_the_file_takes_effect_without_restart(authed, key_file: Path) -> None:
    client = authed(api_keys=None, api_key_file=key_file)
    store = client.app.state.api_key_store
    store.check_interval = 0.0
    write_keys(key_file, f"{KEY_A}\n{KEY_B}\n", 1_000_010)
    assert client.get("/v1/items", headers={"X-API-Key": KEY_B}).status_code == 200
    write_keys(key_file, f"{KEY_B}\n", 1_000_020)
    assert client.get("/v1/items", headers={"X-API-Key": KEY_A}).status_code == 401
    assert client.get("/v1/items", headers={"X-API-Key": KEY_B}).status_code == 200


def test_the_file_is_looked_at_most_once_per_interval(key_file: Path) -> None:
    clock = FakeClock()
    store = ApiKeyStore(KeyFileKeys(key_file), check_interval=1.0, clock=clock)
    write_keys(key_file, KEY_B, 1_000_010)
    clock.now += 0.5
    assert store.refresh_if_changed() is False
    assert store.match(KEY_A.encode())
    clock.now += 0.6
    assert store.refresh_if_changed() is True
    assert store.match(KEY_B.encode()) and not store.match(KEY_A.encode())


def test_an_unchanged_file_is_not_read_again(key_file: Path) -> None:
    clock = FakeClock()
    store = ApiKeyStore(KeyFileKeys(key_file), clock=clock)
    clock.now += 5
    assert store.refresh_if_changed() is False


def test_a_file_that_becomes_empty_keeps_the_old_keys_and_warns(
    key_file: Path, caplog: pytest.LogCaptureFixture
) -> None:
    clock = FakeClock()
    store = ApiKeyStore(KeyFileKeys(key_file), clock=clock)
    write_keys(key_file, "# all keys revoked?\n", 1_000_010)
    clock.now += 2
    with caplog.at_level(logging.WARNING, logger="chaplab.toolkit.auth"):
        assert store.refresh_if_changed() is False
    assert store.match(KEY_A.encode())
    [warning] = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert warning.event == "auth.reload_failed"
    assert "holds no key" in warning.reason


def test_a_deleted_file_keeps_the_old_keys_and_warns_once(
    key_file: Path, caplog: pytest.LogCaptureFixture
) -> None:
    clock = FakeClock()
    store = ApiKeyStore(KeyFileKeys(key_file), clock=clock)
    key_file.unlink()
    with caplog.at_level(logging.WARNING, logger="chaplab.toolkit.auth"):
        for _ in range(3):
            clock.now += 2
            store.refresh_if_changed()
    assert store.match(KEY_A.encode())
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert [r.event for r in warnings] == ["auth.reload_failed"]
    assert "API key file not found" in warnings[0].reason


def test_a_file_that_is_no_longer_utf8_keeps_the_old_keys_and_warns(
    key_file: Path, caplog: pytest.LogCaptureFixture
) -> None:
    clock = FakeClock()
    store = ApiKeyStore(KeyFileKeys(key_file), clock=clock)
    key_file.write_bytes(KEY_B.encode("utf-16"))
    os.utime(key_file, (1_000_010, 1_000_010))
    clock.now += 2
    with caplog.at_level(logging.WARNING, logger="chaplab.toolkit.auth"):
        assert store.refresh_if_changed() is False
    assert store.match(KEY_A.encode()) and len(store) == 1
    [warning] = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert warning.event == "auth.reload_failed"
    assert warning.reason.startswith(f"API key file {key_file} is not UTF-8 text")


def test_reload_of_a_file_turned_folder_keeps_the_old_keys_and_warns(
    key_file: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = ApiKeyStore(KeyFileKeys(key_file))
    key_file.unlink()
    key_file.mkdir()
    with caplog.at_level(logging.WARNING, logger="chaplab.toolkit.auth"):
        assert store.reload() is False
    assert store.match(KEY_A.encode())
    [warning] = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert warning.reason == f"API key file {key_file} is a folder, not a file"


def test_a_service_keeps_serving_when_its_key_file_turns_unreadable(authed, key_file: Path) -> None:
    client = authed(api_keys=None, api_key_file=key_file)
    client.app.state.api_key_store.check_interval = 0.0
    key_file.unlink()
    key_file.mkdir()  # reading a directory fails with an OSError
    assert client.get("/v1/items", headers={"X-API-Key": KEY_A}).status_code == 200


def test_reload_rereads_the_file_on_demand(key_file: Path) -> None:
    store = ApiKeyStore(KeyFileKeys(key_file), check_interval=3600)
    write_keys(key_file, KEY_B, 1_000_000)  # same mtime: only an explicit reload sees it
    assert store.reload() is True
    assert store.match(KEY_B.encode())


def test_replace_swaps_keys_and_refuses_an_empty_set() -> None:
    store = ApiKeyStore(StaticKeys((KEY_A,)))
    store.replace([KEY_B, " "])
    assert len(store) == 1 and store.match(KEY_B.encode())
    with pytest.raises(ValueError, match="No API keys configured"):
        store.replace(["  "])
    assert store.match(KEY_B.encode())


def test_a_requested_reload_happens_at_the_next_request_whatever_the_mtime(
    authed, key_file: Path
) -> None:
    client = authed(api_keys=None, api_key_file=key_file)
    store = client.app.state.api_key_store
    write_keys(key_file, f"{KEY_B}\n", 1_000_000)  # same modification time as before
    assert client.get("/v1/items", headers={"X-API-Key": KEY_B}).status_code == 401
    store.request_reload()
    assert client.get("/v1/items", headers={"X-API-Key": KEY_B}).status_code == 200
    assert client.get("/v1/items", headers={"X-API-Key": KEY_A}).status_code == 401


def test_a_reload_requested_during_a_reload_does_not_wait_for_it(key_file: Path) -> None:
    """As a SIGHUP arriving while the same thread reloads: the request only sets a flag."""

    class InterruptedKeys(KeyFileKeys):
        def load(self) -> tuple[str, ...]:
            store.request_reload()
            return super().load()

    store = ApiKeyStore(KeyFileKeys(key_file), check_interval=3600.0)
    store.source = InterruptedKeys(key_file)
    assert store.reload() is True
    write_keys(key_file, f"{KEY_B}\n", 1_000_000)
    assert store.refresh_if_changed() is True
    assert store.match(KEY_B.encode())


def test_a_byte_order_mark_is_not_part_of_the_first_key(tmp_path: Path) -> None:
    path = tmp_path / "keys"
    path.write_bytes(b"\xef\xbb\xbf" + KEY_A.encode() + b"\n")
    store = ApiKeyStore(KeyFileKeys(path))
    assert store.match(KEY_A.encode())
