"""The step protocol, the request builder and the retry policy shared by both drivers.

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
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar

import httpx
import orjson

from chaplab._secrets import key_prefix
from chaplab.client._errors import (
    SECRET_HEADERS,
    ChapConnectionError,
    ChapTimeoutError,
    public_url,
    scrub,
)

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


def mask_key(api_key: str | None) -> str | None:
    """The shown part of a key (see ``key_prefix``) and ``...``, for reprs and messages."""
    return None if api_key is None else key_prefix(api_key) + "..."


def check_api_key(api_key: object) -> None:
    """Refuse a key that cannot go in a header as it is. A key read from a file often ends in a
    newline, and the HTTP library would quote the whole value in its error; so the key is
    checked here, and the message names the problem, never the key."""
    if api_key is None:
        return
    if not isinstance(api_key, str) or not api_key.strip():
        raise ValueError("api_key must be a non-empty string or None")
    if api_key != api_key.strip():
        raise ValueError(
            "api_key has surrounding whitespace (a trailing newline from a file?); strip it"
        )
    if not all(" " <= char <= "~" for char in api_key):
        raise ValueError(
            "api_key holds a control or non-ASCII character, which an HTTP header cannot carry"
        )


@dataclass(frozen=True)
class RetryPolicy:
    """When and how often a failed request is sent again.

    Idempotent requests (GET, HEAD, OPTIONS, PUT, DELETE) are retried on connection errors,
    dropped connections and the ``retry_statuses``; other requests only when the connection
    could not be opened (the request never left). The delay before retry ``n`` (1-based) is
    ``backoff * 2**(n-1)`` capped at ``max_backoff``, with full jitter when ``jitter`` is on; a
    ``Retry-After`` header replaces it, capped at ``max_retry_after``.
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
            raise ValueError(f"RetryPolicy.max_retries must be >= 0, got {self.max_retries}")
        if self.backoff < 0 or self.max_backoff < 0:
            raise ValueError("RetryPolicy.backoff and max_backoff must be >= 0")

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


class RequestBuilder:
    """Builds every request: base URL + proxy prefix + path, the key header, the time limit."""

    def __init__(
        self,
        base_url: str,
        *,
        proxy_prefix: str = "",
        api_key: str | None = None,
        api_key_header: str = "X-API-Key",
        timeout: float | httpx.Timeout | None = 30.0,
    ) -> None:
        url = httpx.URL(base_url)
        if url.scheme not in ("http", "https") or not url.host:
            shown = public_url(url)
            raise ValueError(f"base_url must be an http(s) URL with a host, got {shown!r}")
        check_api_key(api_key)
        if not api_key_header:
            raise ValueError("api_key_header must be a header name, got an empty value")
        self.base_url = str(url).rstrip("/")
        self.proxy_prefix = normalize_prefix(proxy_prefix)
        self.api_key_header = api_key_header
        self._headers = {"Accept": "application/json"}
        self._extensions: dict[str, Any] = {}
        if api_key is not None:
            self._headers[api_key_header] = api_key
            self._extensions[SECRET_HEADERS] = (api_key_header,)
        self.key_prefix = mask_key(api_key)
        self.timeout = timeout if isinstance(timeout, httpx.Timeout) else httpx.Timeout(timeout)

    def url(self, path: str) -> str:
        """The full URL of an API path (``/v1/...``), with the proxy prefix."""
        return f"{self.base_url}{self.proxy_prefix}{path}"

    def build(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | Sequence[tuple[str, Any]] | None = None,
        json: Any = None,
        headers: Mapping[str, str] | None = None,
        extra_read_timeout: float = 0.0,
    ) -> httpx.Request:
        """A ready-to-send request; ``extra_read_timeout`` lengthens the read limit (long polls)."""
        timeout = self.timeout
        if extra_read_timeout and timeout.read is not None:
            timeout = httpx.Timeout(
                connect=timeout.connect,
                read=timeout.read + extra_read_timeout,
                write=timeout.write,
                pool=timeout.pool,
            )
        body_headers = {} if json is None else {"Content-Type": "application/json"}
        return httpx.Request(
            method,
            self.url(path),
            params=params,
            content=None if json is None else encode_body(json),
            headers={**self._headers, **body_headers, **(headers or {})},
            extensions={**self._extensions, "timeout": timeout.as_dict()},
        )


def encode_body(value: Any) -> bytes:
    """A request body as JSON bytes. numpy numbers and arrays (option values and coordinates
    taken from a frame) are written as plain numbers and lists; NaN is written as null, which
    JSON can carry, where ``json.dumps`` would write a ``NaN`` no JSON parser accepts."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SERIALIZE_NUMPY)
    except orjson.JSONEncodeError as error:
        raise TypeError(f"the request body cannot be written as JSON: {error}") from None


def normalize_prefix(prefix: str) -> str:
    """``"chap/"`` -> ``"/chap"``; ``""`` and ``"/"`` -> ``""``."""
    stripped = prefix.strip().strip("/")
    return f"/{stripped}" if stripped else ""


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
    if isinstance(exc, _PERMANENT_ERRORS):
        return False
    return idempotent or isinstance(exc, _NOT_SENT_ERRORS)


def _gone_on_retry(request: httpx.Request, response: httpx.Response) -> bool:
    """A 404 to the retry of a DELETE of one resource (no query: a bulk delete by ids deletes
    nothing when one id is unknown, so its 404 does not show that the others are gone)."""
    gone = request.method == "DELETE" and not request.url.query and response.status_code == 404
    if gone:
        logger.info(
            "%s %s: HTTP 404 on a retry after a broken connection; taken as deleted",
            request.method, request.url.path,
        )
    return gone


def _log_retry(
    request: httpx.Request, retry: int, policy: RetryPolicy, delay: float, reason: str
) -> None:
    logger.info(
        "%s %s: %s, retry %d/%d in %.2f s",
        request.method, request.url.path, reason, retry, policy.max_retries, delay,
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
    host = request.url.host + (f":{request.url.port}" if request.url.port else "")
    return ChapConnectionError(f"{where} could not reach {host}{tried}: {reason}")
