"""The step protocol and the retry policy shared by both drivers.

An operation is a generator that yields steps and gets an answer for each:

- ``Send(request)``: the driver sends the request and answers with the ``httpx.Response``
  (body read), or throws the ``httpx.TransportError`` it got into the generator;
- ``Sleep(seconds)``: the driver sleeps and answers ``None``;
- ``Now()``: the driver answers with its monotonic clock, in seconds;
- ``Compute(function, args)``: the driver answers with ``function(*args)``, or throws the
  exception it raised into the generator. CPU-bound work (building a frame) is a step so that
  the async driver can run it in a worker thread and keep the event loop free.

The generator's return value is the operation's result.
"""

from __future__ import annotations

import logging
import random
import socket
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, Generic, TypeVar

import httpx

from chaplab.client._errors import ArgumentError, ChapConnectionError, ChapTimeoutError, scrub

logger = logging.getLogger("chaplab.client")

T = TypeVar("T")


@dataclass(frozen=True)
class Send:
    """Send this request; answered with the response."""

    request: httpx.Request


@dataclass(frozen=True)
class Sleep:
    """Sleep this many seconds; answered with ``None``."""

    seconds: float


@dataclass(frozen=True)
class Now:
    """Ask the driver's monotonic clock; answered with seconds as a float."""


@dataclass(frozen=True)
class Compute:
    """Call ``function(*args)``; answered with its result (its exception is thrown in)."""

    function: Callable[..., Any]
    args: tuple[Any, ...] = ()


Step = Send | Sleep | Now | Compute
Operation = Generator[Step, Any, T]


@dataclass(frozen=True)
class Answer:
    """A driver's answer to a step: its value, or the exception to throw into the operation."""

    value: Any = None
    error: Exception | None = None


@dataclass(frozen=True)
class Finished(Generic[T]):
    """The operation returned ``result``."""

    result: T


def resume(operation: Operation[T], answer: Answer) -> Step | Finished[T]:
    """Hand ``answer`` to the operation (the first ``Answer()`` starts it): its next step, or
    ``Finished`` with what it returned. Both drivers run an operation with this one loop and
    differ only in how they answer a step."""
    try:
        if answer.error is not None:
            return operation.throw(answer.error)
        return operation.send(answer.value)
    except StopIteration as stop:
        return Finished(stop.value)


IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "DELETE", "PUT"})
# Raised before any byte of the request left the client: safe to retry for every method.
_NOT_SENT_ERRORS: tuple[type[httpx.TransportError], ...] = (
    httpx.ConnectError,
    httpx.ConnectTimeout,
    httpx.PoolTimeout,
)
# Retrying these cannot help: the URL or the request itself is wrong.
_PERMANENT_ERRORS: tuple[type[httpx.TransportError], ...] = (
    httpx.UnsupportedProtocol,
    httpx.LocalProtocolError,
)


@dataclass(frozen=True)
class RetryPolicy:
    """When and how often a failed request is sent again.

    Idempotent requests (GET, HEAD, OPTIONS, PUT, DELETE) are retried on connection errors,
    dropped connections and the ``retry_statuses``; other requests only when the connection
    could not be opened (the request never left). A refused connection is retried like any
    connection error; a host name that does not resolve is a wrong URL and is not retried. The
    delay before retry ``n`` (1-based) is ``backoff * 2**(n-1)`` capped at ``max_backoff``, with
    full jitter when ``jitter`` is on; a ``Retry-After`` header replaces it, capped at
    ``max_retry_after``.
    """

    max_retries: int = 3
    backoff: float = 0.25
    max_backoff: float = 8.0
    jitter: bool = True
    retry_statuses: tuple[int, ...] = (429, 502, 503, 504)
    max_retry_after: float = 60.0
    rng: random.Random = field(default_factory=random.Random, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.max_retries < 0:
            raise ArgumentError(f"RetryPolicy.max_retries must be >= 0, got {self.max_retries}")
        if self.backoff < 0 or self.max_backoff < 0:
            raise ArgumentError("RetryPolicy.backoff and max_backoff must be >= 0")

    def delay(self, retry_number: int, response: httpx.Response | None = None) -> float:
        """Seconds to wait before retry ``retry_number`` (1-based)."""
        if response is not None:
            retry_after = parse_retry_after(response.headers.get("Retry-After"))
            if retry_after is not None:
                return min(retry_after, self.max_retry_after)
        delay = min(self.max_backoff, self.backoff * 2 ** (retry_number - 1))
        return self.rng.uniform(0, delay) if self.jitter else delay


def parse_retry_after(value: str | None) -> float | None:
    """``Retry-After`` as seconds from now (delta-seconds or an HTTP date), or ``None``."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def send_with_retry(request: httpx.Request, policy: RetryPolicy) -> Operation[httpx.Response]:
    """Send ``request``, retrying per ``policy``; return the last response (any status).

    Transport errors that are not retried (or keep happening) become ``ChapConnectionError``
    (``ChapTimeoutError`` for time-outs), naming the method and path. A DELETE of one resource
    that may have arrived before its connection broke, and whose retry finds the resource gone
    (404), is answered with a 204: the resource is gone either way.
    """
    idempotent = request.method in IDEMPOTENT_METHODS
    retry = 0
    may_have_arrived = False
    while True:
        try:
            response: httpx.Response = yield Send(request)
        except httpx.TransportError as exc:
            if not _retriable(exc, idempotent) or retry >= policy.max_retries:
                raise _connection_error(request, exc, retry) from exc
            may_have_arrived |= not isinstance(exc, _NOT_SENT_ERRORS)
            retry += 1
            delay = policy.delay(retry)
            _log_retry(request, retry, policy, delay, type(exc).__name__)
            yield Sleep(delay)
            continue
        if may_have_arrived and _gone_on_retry(request, response):
            return httpx.Response(204, request=request)
        if not (idempotent and response.status_code in policy.retry_statuses):
            return response
        if retry >= policy.max_retries:
            return response
        retry += 1
        delay = policy.delay(retry, response)
        _log_retry(request, retry, policy, delay, f"HTTP {response.status_code}")
        yield Sleep(delay)


def _retriable(exc: httpx.TransportError, idempotent: bool) -> bool:
    """Whether sending again may help and cannot do anything twice."""
    if isinstance(exc, _PERMANENT_ERRORS) or _unresolvable_host(exc):
        return False
    return idempotent or isinstance(exc, _NOT_SENT_ERRORS)


def _unresolvable_host(exc: BaseException) -> bool:
    """Whether the connection failed because the host name does not resolve (a wrong URL, not
    a passing fault: asking again gets the same answer). A resolver that could not be asked
    (``EAI_AGAIN``, e.g. the network is down) is a passing fault."""
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, socket.gaierror):
            return cause.errno != socket.EAI_AGAIN
        cause = cause.__cause__ or cause.__context__
    return False


def _gone_on_retry(request: httpx.Request, response: httpx.Response) -> bool:
    """A 404 to the retry of a DELETE of one resource (no query: a bulk delete by ids deletes
    nothing when one id is unknown, so its 404 does not show that the others are gone)."""
    gone = request.method == "DELETE" and not request.url.query and response.status_code == 404
    if gone:
        logger.info(
            "%s %s: HTTP 404 on a retry after a broken connection; taken as deleted",
            request.method,
            request.url.path,
        )
    return gone


def _log_retry(
    request: httpx.Request, retry: int, policy: RetryPolicy, delay: float, reason: str
) -> None:
    logger.info(
        "%s %s: %s, retry %d/%d in %.2f s",
        request.method,
        request.url.path,
        reason,
        retry,
        policy.max_retries,
        delay,
    )


def _connection_error(
    request: httpx.Request, exc: httpx.TransportError, retries: int
) -> ChapConnectionError:
    """The error to raise for a transport error; its text is scrubbed of the request's
    credentials (the HTTP library quotes header values it refuses)."""
    tried = f" after {retries} {'retry' if retries == 1 else 'retries'}" if retries else ""
    where = f"{request.method} {request.url.path}"
    reason = scrub(str(exc), request) or type(exc).__name__
    if isinstance(exc, httpx.TimeoutException):
        return ChapTimeoutError(f"{where} timed out{tried}: {reason}")
    if isinstance(exc, httpx.LocalProtocolError):
        return ChapConnectionError(f"{where}: the request could not be formed{tried}: {reason}")
    url = request.url
    server = f"{url.scheme}://{url.host}" + (f":{url.port}" if url.port else "")
    if _unresolvable_host(exc):
        return ChapConnectionError(
            f"{where} could not reach {server}: the host name {url.host!r} does not resolve "
            f"({reason}); check the URL"
        )
    return ChapConnectionError(f"{where} could not reach {server}{tried}: {reason}")
