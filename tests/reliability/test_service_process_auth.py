"""API keys on ``chaplab serve`` run as a process: the key file is re-read while it runs (on a
change, and on SIGHUP as the toolkit documents), and nothing it logs holds a whole key."""

from __future__ import annotations

import logging
import os
import re
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from .api_keys import KEY_FILE_HEADER, KEYS, WRONG_KEYS, wait_for_status, write_keys
from .serve_process import ServeProcess

REQUEST_TIMEOUT_SECONDS = 5.0
SIGHUP_RELOAD_SECONDS = 0.5
CHANGE_CHECK_SECONDS = 2.5  # more than twice the once-a-second interval of the change check
SIGHUP_STORM_SECONDS = 5.0
SIGHUP_SENDERS = 2
SIGHUP_SENDER = """
import os, signal, sys, time
pid, end = int(sys.argv[1]), time.monotonic() + float(sys.argv[2])
while time.monotonic() < end:
    try:
        os.kill(pid, signal.SIGHUP)
    except ProcessLookupError:
        break
"""
ERROR_LINE = re.compile(r"^[\w.]+(Error|Exception): .*$", re.MULTILINE)


def status_with(url: str, key: str | None) -> int:
    headers = {"X-API-Key": key} if key else {}
    response = httpx.get(
        f"{url}/v1/crud/datasets", headers=headers, timeout=REQUEST_TIMEOUT_SECONDS
    )
    return response.status_code


def secrets_in(text: str, keys: list[str]) -> list[str]:
    return [key for key in keys if key in text]


@pytest.fixture
def keyed_process(tmp_path: Path) -> tuple[ServeProcess, Path]:
    key_file = tmp_path / "api-keys"
    write_keys(key_file, *KEYS)
    service = ServeProcess(
        tmp_path / "chaplab.db", tmp_path, "--no-demo", "--api-key-file", str(key_file)
    )
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
    app = create_app(
        database_url=str(tmp_path / "db.sqlite"), api_keys=list(KEYS), workers=1, seed_demo=False
    )
    with BackgroundServer(app, log_level="debug") as server:
        for key in [*KEYS, *WRONG_KEYS, None]:
            status_with(server.url, key)
    texts = [record.getMessage() + repr(vars(record)) for record in caplog.records]
    assert any("auth.success" in text for text in texts)
    assert [text for text in texts if secrets_in(text, [*KEYS, *WRONG_KEYS])] == []


def rewrite_unnoticed(path: Path, *keys: str) -> None:
    """Rewrite the key file in place with ``keys`` (as long as the old ones) and put its times
    back: what the once-a-second change check compares (mtime, size, inode) stays the same, so
    only SIGHUP can make the service read the new keys."""
    before = path.stat()
    path.write_text(KEY_FILE_HEADER + "\n".join(keys) + "\n", encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    seen = (after.st_mtime_ns, after.st_size, after.st_ino)
    assert seen == (before.st_mtime_ns, before.st_size, before.st_ino), "the change would show"


def same_length_key(key: str) -> str:
    """A fresh key as long as ``key``, so that the key file keeps its size."""
    fresh = "sk_test_" + secrets.token_hex(len(key))
    return fresh[: len(key)]


def answers_within(url: str, key: str, wanted: int, seconds: float) -> bool:
    """Whether a request with ``key`` answers ``wanted`` within ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if status_with(url, key) == wanted:
            return True
        time.sleep(0.02)
    return False


def keeps_answering(url: str, key: str, seconds: float) -> list[int]:
    """Statuses of requests with ``key`` for ``seconds``; each must answer in time."""
    statuses = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        statuses.append(status_with(url, key))
        time.sleep(0.05)
    return statuses


def test_sighup_reloads_the_key_file(keyed_process: tuple[ServeProcess, Path]) -> None:
    """The toolkit documents SIGHUP as the signal to re-read the keys: ``chaplab serve`` serves
    the new keys within ``SIGHUP_RELOAD_SECONDS`` of the signal. The key file is rewritten so
    that the change check cannot see it, and is shown not to see it before the signal."""
    service, key_file = keyed_process
    new_key = same_length_key(KEYS[0])
    with service:
        service.start(api_key=KEYS[0])
        rewrite_unnoticed(key_file, new_key, KEYS[1])
        unnoticed = keeps_answering(service.url, new_key, CHANGE_CHECK_SECONDS)
        assert set(unnoticed) == {401}, "the change check saw a rewrite it should not see"

        service.signal(signal.SIGHUP)
        assert answers_within(service.url, new_key, 200, SIGHUP_RELOAD_SECONDS), (
            f"the new key was refused {SIGHUP_RELOAD_SECONDS} s after SIGHUP\n{service.log()}"
        )
        assert status_with(service.url, KEYS[0]) == 401, "the removed key still opens"
        assert status_with(service.url, KEYS[1]) == 200
        assert service.process is not None and service.process.poll() is None


def errors_in(log: str) -> list[str]:
    """The distinct exception lines of a log (a traceback's last line), in order."""
    return list(dict.fromkeys(match.group(0) for match in ERROR_LINE.finditer(log)))


def start_sighup_senders(pid: int, seconds: float) -> list[subprocess.Popen[bytes]]:
    """Processes sending SIGHUP to ``pid`` as fast as they can for ``seconds`` (processes, not
    threads, so that the test's own requests do not slow them down)."""
    command = [sys.executable, "-c", SIGHUP_SENDER, str(pid), str(seconds)]
    return [subprocess.Popen(command) for _ in range(SIGHUP_SENDERS)]


def end_senders(senders: list[subprocess.Popen[bytes]]) -> None:
    for sender in senders:
        sender.kill()
        sender.wait(10)


def test_sighups_in_quick_succession_neither_hang_nor_end_the_service(
    keyed_process: tuple[ServeProcess, Path],
) -> None:
    """A SIGHUP may arrive while the reload of the previous one (or of a key-file change) still
    runs, e.g. when an operator's and a supervisor's signals meet: the service must go on
    answering every request in time, and stay up."""
    service, _ = keyed_process
    with service:
        service.start(api_key=KEYS[0])
        senders = start_sighup_senders(service.pid, SIGHUP_STORM_SECONDS)
        try:
            statuses = keeps_answering(service.url, KEYS[0], SIGHUP_STORM_SECONDS)
        except httpx.TransportError as error:
            raise AssertionError(
                f"chaplab serve stopped answering under repeated SIGHUP ({error!r}); it "
                f"logged: {errors_in(service.log())}"
            ) from error
        finally:
            end_senders(senders)
        assert set(statuses) == {200}
        assert service.process is not None and service.process.poll() is None
