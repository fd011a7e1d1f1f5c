"""The registry of external model runners."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx


def test_a_runner_registration_sends_url_and_info(call: Callable[..., Any]) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url.raw_path == b"/v2/services/$register"
        assert request.read() == b'{"url":"http://runner:1","info":{"name":"r"}}'
        return httpx.Response(200, json={"id": 1, "url": "http://runner:1", "status": "stale"})

    assert call(handler, "register_model_runner", "http://runner:1", {"name": "r"}).is_stale
