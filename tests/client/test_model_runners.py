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


def test_chap_core_runners_have_text_ids_a_wrapped_list_and_status_answers(
    call: Callable[..., Any],
) -> None:
    runner = {"id": "probe-runner", "url": "http://127.0.0.1:9/", "info": {"id": "probe-runner"}}
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(f"{request.method} {request.url.path}")
        if request.method == "GET" and request.url.path == "/v2/services":
            return httpx.Response(200, json={"count": 1, "services": [runner]})
        if request.method == "GET":
            return httpx.Response(200, json=runner)
        if request.method == "DELETE":
            return httpx.Response(204)
        return httpx.Response(200, json={"id": "probe-runner", "status": "alive"})

    [listed] = call(handler, "list_model_runners")
    assert listed.id == "probe-runner"
    assert call(handler, "ping_model_runner", "probe-runner").url == "http://127.0.0.1:9/"
    assert call(handler, "register_model_runner", "http://127.0.0.1:9/", {}).id == "probe-runner"
    call(handler, "remove_model_runner", "probe-runner")
    assert seen == [
        "GET /v2/services",
        "PUT /v2/services/probe-runner/$ping",
        "GET /v2/services/probe-runner",
        "POST /v2/services/$register",
        "GET /v2/services/probe-runner",
        "DELETE /v2/services/probe-runner",
    ]
