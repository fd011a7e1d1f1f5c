"""The API keys of the reliability tests, their key file and waiting for a key file's change to
take effect: shared by the tests of the app and of ``chaplab serve`` as a process."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

KEYS = ("sk_test_7Qm2vX9pLr4Tz8Nc1Hb6", "sk_test_3Jd8Wq5Ky1Ue7Ra2Mf9S")
WRONG_KEYS = ("sk_test_0000000000000000", KEYS[0][:-1], KEYS[0] + "x", KEYS[0].upper())
ROTATION_WAIT_SECONDS = 10.0
KEY_FILE_HEADER = "# keys of the reliability tests\n"


def write_keys(path: Path, *keys: str) -> None:
    """Write a key file and move its mtime forward, so a change shows even within a second."""
    previous = path.stat().st_mtime_ns if path.exists() else time.time_ns()
    path.write_text(KEY_FILE_HEADER + "\n".join(keys) + "\n", encoding="utf-8")
    bumped = max(time.time_ns(), previous + 2_000_000_000)
    os.utime(path, ns=(bumped, bumped))


def wait_for_status(probe: Any, wanted: int) -> bool:
    """Probe until it answers ``wanted`` (the key file is looked at about once a second)."""
    deadline = time.monotonic() + ROTATION_WAIT_SECONDS
    while time.monotonic() < deadline:
        if probe() == wanted:
            return True
        time.sleep(0.1)
    return False
