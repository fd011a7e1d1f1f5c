"""BackgroundServer drives a built service over real loopback HTTP."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
import pytest
from fastapi import APIRouter, FastAPI
from fastapi.responses import StreamingResponse

from chaplab.toolkit import BackgroundServer, ServiceBuilder

from .helpers import KEY_A, make_builder


def test_serves_on_a_free_loopback_port_until_stopped() -> None:
    app = make_builder().with_auth(api_keys=[KEY_A]).build()
    with BackgroundServer(app) as server:
        assert server.url.startswith("http://127.0.0.1:") and server.port > 0
        assert httpx.get(server.url + "/health").status_code == 200
        response = httpx.get(server.url + "/v1/items", headers={"X-API-Key": KEY_A})
        assert response.json() == {"ok": "yes"}
        assert httpx.get(server.url + "/v1/items").status_code == 401
    assert not server.running
    with pytest.raises(httpx.ConnectError):
        httpx.get(server.url + "/health")


def test_startup_and_shutdown_of_the_app_run() -> None:
    events: list[str] = []

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        events.append("startup")
        yield
        events.append("shutdown")

    with BackgroundServer(ServiceBuilder(title="S").with_lifespan(lifespan).build()):
        assert events == ["startup"]
    assert events == ["startup", "shutdown"]


def test_a_failing_startup_raises_instead_of_hanging() -> None:
    @asynccontextmanager
    async def broken(app: FastAPI) -> AsyncIterator[None]:
        raise RuntimeError("database unreachable")
        yield

    server = BackgroundServer(ServiceBuilder(title="S").with_lifespan(broken).build())
    with pytest.raises(RuntimeError, match="failed to start"):
        server.start()
    assert not server.running


def test_url_before_start_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="not started"):
        _ = BackgroundServer(ServiceBuilder(title="S").build()).url


def test_streaming_responses_pass_auth_and_limits_unbuffered() -> None:
    released = threading.Event()
    router = APIRouter()

    @router.get("/stream")
    async def stream() -> StreamingResponse:
        async def chunks() -> AsyncIterator[bytes]:
            yield b"first\n"
            seen = await asyncio.to_thread(released.wait, 30)
            yield b"released\n" if seen else b"timed out\n"

        return StreamingResponse(chunks(), media_type="text/plain")

    app = ServiceBuilder(title="S").with_auth(api_keys=[KEY_A]).include_router(router).build()
    with (
        BackgroundServer(app) as server,
        httpx.stream("GET", server.url + "/stream", headers={"X-API-Key": KEY_A}) as response,
    ):
        lines = response.iter_lines()
        assert next(lines) == "first"
        released.set()
        assert next(lines) == "released"


def test_connections_to_a_bound_socket_send_without_waiting_for_acknowledgements() -> None:
    """asyncio sets TCP_NODELAY on connections it accepts only when the listening socket was
    made as IPPROTO_TCP; without it each answer waits for the client's delayed ACK."""
    import socket

    from chaplab.toolkit.server import bound_socket

    async def accepted_nodelay() -> int:
        seen: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            accepted = writer.get_extra_info("socket")
            seen.set_result(accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            writer.close()

        listener = bound_socket("127.0.0.1", 0)
        server = await asyncio.start_server(accept, sock=listener)
        async with server:
            port = listener.getsockname()[1]
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            result = await asyncio.wait_for(seen, 30)
            writer.close()
        return result

    assert asyncio.run(accepted_nodelay()) != 0
