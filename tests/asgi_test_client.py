"""Starlette's test client, which drives an ASGI app in-process, imported once for every test.

Starlette 1.10 notes on import that its test client prefers httpx2 to httpx. httpx is the
project's HTTP library, so the note is silenced here rather than in each test."""

from __future__ import annotations

import warnings

from starlette.exceptions import StarletteDeprecationWarning

with warnings.catch_warnings():
    warnings.simplefilter("ignore", StarletteDeprecationWarning)
    from starlette.testclient import TestClient

__all__ = ["TestClient"]
