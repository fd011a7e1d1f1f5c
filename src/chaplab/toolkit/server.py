"""``BackgroundServer``: serve an ASGI app with uvicorn in a daemon thread on a loopback port,
so tests and notebooks can drive a service over real HTTP."""

from __future__ import annotations

import socket
import threading
import time
from typing import Any, Self

import uvicorn


def bound_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` (port 0: a free one), ready for uvicorn to listen on.

    It is created as ``IPPROTO_TCP`` explicitly: asyncio turns on ``TCP_NODELAY`` only for such
    sockets, and without it every response waits about 40 ms for the client's delayed
    acknowledgement. OSError when the address cannot be bound (the socket is closed then)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


class BackgroundServer:
    """Run ``app`` on ``host:port`` (port 0: a free port) until ``stop()``.

    ``start()`` returns once the server accepts connections (after the app's startup ran) and
    raises RuntimeError if it fails to start. Use as a context manager::

        with BackgroundServer(app) as server:
            httpx.get(server.url + "/health")
    """

    def __init__(
        self,
        app: Any,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        log_level: str = "warning",
        startup_timeout: float = 30.0,
    ) -> None:
        self.app = app
        self.host = host
        self.port = port
        self.log_level = log_level
        self.startup_timeout = startup_timeout
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None

    @property
    def url(self) -> str:
        """The base URL, e.g. ``http://127.0.0.1:52345`` (known once started)."""
        if self._server is None:
            raise RuntimeError("the server is not started")
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def running(self) -> bool:
        """Whether the server thread is alive."""
        return self._thread is not None and self._thread.is_alive()

    def _serve(self, server: uvicorn.Server, sock: socket.socket) -> None:
        try:
            server.run(sockets=[sock])
        except BaseException as error:  # reported by start()
            self._error = error
        finally:
            sock.close()

    def start(self) -> Self:
        """Bind, start serving in a daemon thread and wait until connections are accepted."""
        if self.running:
            raise RuntimeError("the server is already running")
        sock = bound_socket(self.host, self.port)
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(self.app, log_level=self.log_level, lifespan="auto")
        self._server = server = uvicorn.Server(config)
        self._error = None
        self._thread = threading.Thread(
            target=self._serve,
            args=(server, sock),
            name=f"BackgroundServer:{self.port}",
            daemon=True,
        )
        self._thread.start()
        deadline = time.monotonic() + self.startup_timeout
        while not server.started:
            if not self._thread.is_alive():
                raise RuntimeError(f"the server failed to start: {self._error or 'see its log'}")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the server did not start within {self.startup_timeout} s")
            time.sleep(0.01)
        return self

    def stop(self, timeout: float = 10.0) -> None:
        """Ask the server to finish (running the app's shutdown) and wait for the thread."""
        if self._server is None or self._thread is None:
            return
        self._server.should_exit = True
        self._thread.join(timeout)
        if self._thread.is_alive():
            self._server.force_exit = True
            self._thread.join(timeout)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
