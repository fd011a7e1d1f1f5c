"""API keys on ``chaplab serve`` run as a process: the key file is re-read while it runs (on a
change, and on SIGHUP as the toolkit documents), and nothing it logs holds a whole key."""

from __future__ import annotations

import logging
import secrets
import signal
import time
from pathlib import Path

import httpx
import pytest

from .serve_process import ServeProcess
from .test_auth import KEYS, WRONG_KEYS, wait_for_status, write_keys

SIGHUP_WAIT_SECONDS = 5.0


def status_with(url: str, key: str | None) -> int:
    headers = {"X-API-Key": key} if key else {}
    return httpx.get(f"{url}/v1/crud/datasets", headers=headers, timeout=10).status_code


def secrets_in(text: str, keys: list[str]) -> list[str]:
    return [key for key in keys if key in text]


@pytest.fixture
def keyed_process(tmp_path: Path) -> tuple[ServeProcess, Path]:
    key_file = tmp_path / "api-keys"
    write_keys(key_file, *KEYS)
    service = ServeProcess(tmp_path / "chaplab.db", tmp_path, "--no-demo",
                           "--api-key-file", str(key_file))
    return service, key_file


def test_no_log_line_of_the_service_holds_a_whole_key(
    keyed_process: tuple[ServeProcess, Path],
) -> None:
    service, key_file = keyed_process
    rotated = "sk_test_" + secrets.token_urlsafe(18)
    with service:
        service.start(api_key=KEYS[0])
        for key in [*KEYS, *WRONG_KEYS, None]:
            status_with(service.url, key)
        write_keys(key_file, KEYS[0], rotated)
        assert wait_for_status(lambda: status_with(service.url, rotated), 200)
        httpx.get(f"{service.url}/v1/crud/no-such-route", headers={"X-API-Key": rotated})
    log = service.log()
    assert "auth.invalid_key" in log and "auth.success" in log, "the service logged no auth events"
    assert secrets_in(log, [*KEYS, *WRONG_KEYS, rotated]) == []


def test_no_log_record_in_process_holds_a_whole_key(
    caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    from chaplab.service import create_app
    from chaplab.toolkit import BackgroundServer

    caplog.set_level(logging.DEBUG)
    app = create_app(database_url=str(tmp_path / "db.sqlite"), api_keys=list(KEYS), workers=1,
                     seed_demo=False)
    with BackgroundServer(app, log_level="debug") as server:
        for key in [*KEYS, *WRONG_KEYS, None]:
            status_with(server.url, key)
    texts = [record.getMessage() + repr(vars(record)) for record in caplog.records]
    assert any("auth.success" in text for text in texts)
    assert [text for text in texts if secrets_in(text, [*KEYS, *WRONG_KEYS])] == []


def test_sighup_reloads_the_key_file(keyed_process: tuple[ServeProcess, Path]) -> None:
    """The toolkit documents SIGHUP as the signal to re-read the keys; ``chaplab serve`` must
    survive it and serve the new keys at once (without waiting for the mtime check)."""
    service, key_file = keyed_process
    new_key = "sk_test_" + secrets.token_urlsafe(18)
    with service:
        service.start(api_key=KEYS[0])
        key_file.write_text(f"{new_key}\n", encoding="utf-8")
        service.signal(signal.SIGHUP)
        deadline = time.monotonic() + SIGHUP_WAIT_SECONDS
        while service.process is not None and service.process.poll() is None:
            if time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert service.process is not None and service.process.poll() is None, (
            f"chaplab serve ended on SIGHUP (exit {service.process.returncode}) instead of "
            "re-reading its key file"
        )
        assert status_with(service.url, new_key) == 200
        assert status_with(service.url, KEYS[0]) == 401
