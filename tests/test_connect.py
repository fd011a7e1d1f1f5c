"""``chaplab.connect(url)`` checks the address once, at once: nothing answering there is a
``ChapConnectionError`` naming the URL right away (one request, no retries), not a client that
fails at its first use; any HTTP answer counts as reached; ``check=False`` asks nothing."""

from __future__ import annotations

import asyncio
import http.server
import socket
import threading
from collections.abc import Iterator

import pytest

import chaplab
from chaplab.client import AsyncChapClient, ChapClient, ChapConnectionError


def closed_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def not_a_modeling_service() -> Iterator[str]:
    """An HTTP server that answers every request 404, and how many requests it got."""

    class NotFound(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_error(404)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), NotFound)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("async_", [False, True])
def test_an_address_nothing_answers_is_an_error_at_once(async_: bool) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    with pytest.raises(ChapConnectionError) as raised:
        chaplab.connect(url, async_=async_)
    message = str(raised.value)
    assert message.startswith(f"GET /health could not reach {url}")
    assert "retries" not in message  # asked once, not retried


def test_chap_url_is_checked_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHAP_URL", f"http://127.0.0.1:{closed_port()}")
    with pytest.raises(ChapConnectionError, match="could not reach"):
        chaplab.connect()


def test_a_running_service_gives_a_client(service_url: str) -> None:
    with chaplab.connect(service_url) as client:
        assert isinstance(client, ChapClient) and client.list_datasets()
    client = chaplab.connect(service_url, async_=True)
    assert isinstance(client, AsyncChapClient)
    asyncio.run(client.aclose())


def test_any_http_answer_counts_as_reached(not_a_modeling_service: str) -> None:
    with chaplab.connect(not_a_modeling_service) as client:
        assert client.base_url == not_a_modeling_service


def test_check_false_asks_nothing() -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    with chaplab.connect(url, check=False) as client:
        assert client.base_url == url
        with pytest.raises(ChapConnectionError):
            client.list_datasets()
