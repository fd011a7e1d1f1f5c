"""Ask whether a chaplab service still answers at a URL, for tests that check cleanup."""

from __future__ import annotations

import time

import httpx


def answers(url: str) -> bool:
    """Whether a service answers /health at `url` with 200."""
    try:
        return httpx.get(f"{url}/health", timeout=5).status_code == 200
    except httpx.TransportError:
        return False


def stops_answering(url: str, timeout_s: float = 30) -> bool:
    """Wait (bounded) until nothing answers at `url`; False if it still answers at the end."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not answers(url):
            return True
        time.sleep(0.2)
    return False
