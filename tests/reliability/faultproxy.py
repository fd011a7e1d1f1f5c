"""A fault-injecting HTTP/1.1 proxy on loopback, for testing how clients live through bad networks.

``FaultProxy(upstream_url)`` listens on ``127.0.0.1`` (a free port) in a background thread and
forwards each request to the upstream service over a fresh connection. Rules decide, request by
request, what happens instead of a clean pass-through:

- ``Reset(before_forwarding=True)``: reset the client's connection (TCP RST) without forwarding;
- ``Reset(before_forwarding=False)``: forward, let the upstream act, then reset instead of
  answering;
- ``Delay(seconds)``: forward, then hold the answer for ``seconds`` (a slow service);
- ``Answer(status, retry_after=...)``: answer itself (a 502/503 from a gateway), not forwarding;
- ``Truncate(keep_bytes, honest_length=False)``: forward, then send only the first ``keep_bytes``
  of the body and close. With the upstream's ``Content-Length`` the client sees a body cut short;
  with ``honest_length=True`` the length header matches the cut, so the client receives a
  complete-looking response holding truncated JSON.

Every request the proxy receives is recorded (``received``) with the fault applied to it, and
``forwarded`` lists those that reached the upstream, so a test can prove a POST was sent once.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
import threading
import time
from dataclasses import dataclass, field
from types import TracebackType
from typing import Self
from urllib.parse import urlsplit

import h11

_HOP_BY_HOP = frozenset(
    {
        b"connection",
        b"keep-alive",
        b"transfer-encoding",
        b"content-length",
        b"te",
        b"upgrade",
        b"proxy-connection",
        b"trailer",
    }
)
_READ_CHUNK = 65536


@dataclass(frozen=True)
class Forward:
    """Pass the request through and the answer back unchanged (the default)."""


@dataclass(frozen=True)
class Reset:
    """Reset the client's connection, before or after the upstream got the request."""

    before_forwarding: bool = True


@dataclass(frozen=True)
class Delay:
    """Forward, then hold the upstream's answer for ``seconds`` before sending it."""

    seconds: float


@dataclass(frozen=True)
class Answer:
    """Answer with ``status`` (and ``Retry-After`` when given) without forwarding."""

    status: int
    retry_after: str | None = None
    body: bytes = b"Bad gateway: upstream unavailable"


@dataclass(frozen=True)
class Truncate:
    """Forward, then send only the first ``keep_bytes`` of the body and close."""

    keep_bytes: int
    honest_length: bool = False


Fault = Forward | Reset | Delay | Answer | Truncate


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the proxy received it, and what the proxy did with it."""

    method: str
    target: str
    headers: tuple[tuple[str, str], ...]
    body: bytes
    fault: Fault
    forwarded: bool

    @property
    def path(self) -> str:
        """The path without the query string."""
        return self.target.split("?", 1)[0]

    def header(self, name: str) -> str | None:
        """The value of a header (names ignore case), or None."""
        wanted = name.lower()
        return next((value for key, value in self.headers if key.lower() == wanted), None)


@dataclass
class Rule:
    """Apply ``fault`` to requests matching ``method`` and ``path`` (None: any), ``times`` times
    (None: for ever)."""

    fault: Fault
    method: str | None = None
    path: str | None = None
    times: int | None = 1

    def matches(self, method: str, path: str) -> bool:
        return (self.times is None or self.times > 0) and (
            (self.method is None or self.method == method)
            and (self.path is None or self.path == path)
        )


@dataclass
class _UpstreamAnswer:
    status: int
    reason: bytes
    headers: list[tuple[bytes, bytes]]
    body: bytes


@dataclass
class _State:
    rules: list[Rule] = field(default_factory=list)
    received: list[RecordedRequest] = field(default_factory=list)


class FaultProxy:
    """An HTTP/1.1 proxy in front of ``upstream`` (``http://127.0.0.1:port``) that injects faults.

    Use as a context manager; ``url`` is the proxy's base URL. ``add(fault, method=, path=,
    times=)`` programs a rule (first matching rule wins; rules are used up after ``times``
    matches). ``received`` and ``forwarded`` record the traffic.
    """

    def __init__(self, upstream: str, *, host: str = "127.0.0.1") -> None:
        parts = urlsplit(upstream)
        if parts.scheme != "http" or parts.hostname is None or parts.port is None:
            raise ValueError(f"upstream must be http://host:port, got {upstream!r}")
        self.upstream_host = parts.hostname
        self.upstream_port = parts.port
        self.host = host
        self.port = 0
        self._state = _State()
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.Server | None = None
        self._handlers: set[asyncio.Task[None]] = set()

    # -- programming and records ----------------------------------------------------------

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def add(
        self,
        fault: Fault,
        *,
        method: str | None = None,
        path: str | None = None,
        times: int | None = 1,
    ) -> Rule:
        """Apply ``fault`` to the next ``times`` matching requests (None: to all of them)."""
        rule = Rule(fault, method=method, path=path, times=times)
        with self._lock:
            self._state.rules.append(rule)
        return rule

    def clear(self) -> None:
        """Forget every rule (records are kept)."""
        with self._lock:
            self._state.rules.clear()

    @property
    def received(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._state.received)

    @property
    def forwarded(self) -> list[RecordedRequest]:
        return [request for request in self.received if request.forwarded]

    def count(self, method: str, path: str, *, forwarded: bool = True) -> int:
        """How many ``method path`` requests were forwarded (or received, ``forwarded=False``)."""
        records = self.forwarded if forwarded else self.received
        return sum(1 for r in records if r.method == method and r.path == path)

    def count_eventually(
        self, method: str, path: str, expected: int, *, forwarded: bool = True, timeout: float = 10
    ) -> int:
        """:meth:`count`, once it has reached ``expected`` or ``timeout`` seconds have passed: a
        request is recorded when upstream has answered it, which may come after the client
        gave up on it (a time limit)."""
        deadline = time.monotonic() + timeout
        while (seen := self.count(method, path, forwarded=forwarded)) < expected:
            if time.monotonic() > deadline:
                break
            time.sleep(0.02)
        return seen

    def _take_fault(self, method: str, path: str) -> Fault:
        with self._lock:
            for rule in self._state.rules:
                if rule.matches(method, path):
                    if rule.times is not None:
                        rule.times -= 1
                    return rule.fault
        return Forward()

    def _record(self, request: h11.Request, body: bytes, fault: Fault, forwarded: bool) -> None:
        record = RecordedRequest(
            method=request.method.decode(),
            target=request.target.decode(),
            headers=tuple((k.decode("latin-1"), v.decode("latin-1")) for k, v in request.headers),
            body=body,
            fault=fault,
            forwarded=forwarded,
        )
        with self._lock:
            self._state.received.append(record)

    # -- life cycle -----------------------------------------------------------------------

    def start(self) -> Self:
        """Start listening; returns once connections are accepted."""
        started = threading.Event()
        self._loop = asyncio.new_event_loop()

        def run() -> None:
            assert self._loop is not None
            asyncio.set_event_loop(self._loop)
            self._server = self._loop.run_until_complete(
                asyncio.start_server(self._handle_client, self.host, 0)
            )
            self.port = self._server.sockets[0].getsockname()[1]
            started.set()
            self._loop.run_forever()

        self._thread = threading.Thread(target=run, name="FaultProxy", daemon=True)
        self._thread.start()
        if not started.wait(10):
            raise RuntimeError("the fault proxy did not start")
        return self

    def stop(self) -> None:
        """Stop listening, cut every open connection and end the thread."""
        if self._loop is None or self._thread is None:
            return
        future = asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop)
        future.result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()
        self._loop = None

    async def _shutdown(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._handlers):
            task.cancel()
        await asyncio.gather(*self._handlers, return_exceptions=True)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    # -- the proxying ---------------------------------------------------------------------

    async def _handle_client(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        connection = h11.Connection(h11.SERVER)
        try:
            while True:
                received = await _read_request(connection, reader)
                if received is None:
                    break
                request, body = received
                keep_open = await self._serve_one(connection, request, body, writer)
                if not keep_open or connection.our_state is h11.MUST_CLOSE:
                    break
                connection.start_next_cycle()
        except (ConnectionError, h11.ProtocolError, asyncio.IncompleteReadError):
            pass
        except asyncio.CancelledError:
            _reset(writer)
        finally:
            writer.close()
            self._handlers.discard(task)

    async def _serve_one(
        self,
        connection: h11.Connection,
        request: h11.Request,
        body: bytes,
        writer: asyncio.StreamWriter,
    ) -> bool:
        """Serve one request with its fault; False when the connection must end."""
        fault = self._take_fault(request.method.decode(), request.target.decode().split("?")[0])
        if isinstance(fault, Reset) and fault.before_forwarding:
            self._record(request, body, fault, forwarded=False)
            _reset(writer)
            return False
        if isinstance(fault, Answer):
            self._record(request, body, fault, forwarded=False)
            headers = [(b"content-type", b"text/plain")]
            if fault.retry_after is not None:
                headers.append((b"retry-after", fault.retry_after.encode()))
            answer = _UpstreamAnswer(fault.status, b"", headers, fault.body)
            await _send_answer(connection, writer, answer)
            return True
        answer = await self._forward(request, body)
        self._record(request, body, fault, forwarded=True)
        if isinstance(fault, Reset):
            _reset(writer)
            return False
        if isinstance(fault, Delay):
            await asyncio.sleep(fault.seconds)
        if isinstance(fault, Truncate):
            await _send_truncated(connection, writer, answer, fault)
            return False
        await _send_answer(connection, writer, answer)
        return True

    async def _forward(self, request: h11.Request, body: bytes) -> _UpstreamAnswer:
        reader, writer = await asyncio.open_connection(self.upstream_host, self.upstream_port)
        try:
            client = h11.Connection(h11.CLIENT)
            headers = [(k, v) for k, v in request.headers if k.lower() not in _HOP_BY_HOP]
            headers += [(b"content-length", str(len(body)).encode()), (b"connection", b"close")]
            outgoing = h11.Request(method=request.method, target=request.target, headers=headers)
            writer.write(
                client.send(outgoing)
                + client.send(h11.Data(data=body))
                + client.send(h11.EndOfMessage())
            )
            await writer.drain()
            return await _read_response(client, reader)
        finally:
            writer.close()


def _reset(writer: asyncio.StreamWriter) -> None:
    """Abort the connection with a TCP RST (SO_LINGER 0), not an orderly close."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


async def _next_event(connection: h11.Connection, reader: asyncio.StreamReader) -> h11.Event | type:
    while True:
        event = connection.next_event()
        if event is not h11.NEED_DATA:
            return event
        connection.receive_data(await reader.read(_READ_CHUNK))


async def _read_request(
    connection: h11.Connection, reader: asyncio.StreamReader
) -> tuple[h11.Request, bytes] | None:
    """The next request and its whole body, or None when the client closed the connection."""
    event = await _next_event(connection, reader)
    if isinstance(event, h11.ConnectionClosed):
        return None
    if not isinstance(event, h11.Request):
        raise h11.RemoteProtocolError(f"expected a request, got {event!r}")
    chunks: list[bytes] = []
    while not isinstance(data := await _next_event(connection, reader), h11.EndOfMessage):
        if isinstance(data, h11.Data):
            chunks.append(bytes(data.data))
        elif isinstance(data, h11.ConnectionClosed):
            return None
    return event, b"".join(chunks)


async def _read_response(
    connection: h11.Connection, reader: asyncio.StreamReader
) -> _UpstreamAnswer:
    while not isinstance(head := await _next_event(connection, reader), h11.Response):
        if isinstance(head, h11.ConnectionClosed):
            raise ConnectionError("the upstream closed the connection without answering")
    chunks: list[bytes] = []
    while not isinstance(data := await _next_event(connection, reader), h11.EndOfMessage):
        if isinstance(data, h11.Data):
            chunks.append(bytes(data.data))
    headers = [(k, v) for k, v in head.headers if k.lower() not in _HOP_BY_HOP]
    return _UpstreamAnswer(head.status_code, head.reason, headers, b"".join(chunks))


def _head(answer: _UpstreamAnswer, length: int) -> h11.Response:
    headers = [*answer.headers, (b"content-length", str(length).encode())]
    return h11.Response(status_code=answer.status, reason=answer.reason, headers=headers)


async def _send_answer(
    connection: h11.Connection, writer: asyncio.StreamWriter, answer: _UpstreamAnswer
) -> None:
    writer.write(
        connection.send(_head(answer, len(answer.body)))
        + connection.send(h11.Data(data=answer.body))
        + connection.send(h11.EndOfMessage())
    )
    await writer.drain()


async def _send_truncated(
    connection: h11.Connection,
    writer: asyncio.StreamWriter,
    answer: _UpstreamAnswer,
    fault: Truncate,
) -> None:
    kept = answer.body[: fault.keep_bytes]
    declared = len(kept) if fault.honest_length else len(answer.body)
    writer.write(connection.send(_head(answer, declared)) + connection.send(h11.Data(data=kept)))
    await writer.drain()
    writer.close()
