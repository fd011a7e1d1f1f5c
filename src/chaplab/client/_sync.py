"""The blocking driver behind ``ChapClient``: runs operations with ``httpx.Client`` and
``time.sleep``."""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import closing
from typing import TYPE_CHECKING, Self, TypeVar

import httpx

from chaplab.client._driver import ClientBase
from chaplab.client._steps import (
    Answer,
    Compute,
    Finished,
    Now,
    Operation,
    RetryPolicy,
    Send,
    Sleep,
    Step,
    resume,
)

if TYPE_CHECKING:
    from chaplab.client._client import AsyncChapClient

T = TypeVar("T")


class SyncDriver(ClientBase):
    """Synchronous client of the modeling service.

    ``base_url`` is where the service answers; ``proxy_prefix`` is prepended to every path
    (a service behind a gateway); ``api_key`` is sent in the ``api_key_header`` header;
    ``auth`` is passed to httpx (gateway credentials); ``timeout`` limits each request
    (seconds); ``transport`` replaces the network (tests); ``retry`` says how failed requests
    are retried. ``clock`` and ``sleep`` replace ``time.monotonic`` and ``time.sleep`` (tests).
    Use it as a context manager, or call ``close()``.
    """

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8000",
        proxy_prefix: str = "",
        api_key: str | None = None,
        api_key_header: str = "X-API-Key",
        timeout: float | httpx.Timeout | None = 30.0,
        transport: httpx.BaseTransport | None = None,
        auth: httpx.Auth | tuple[str, str] | None = None,
        retry: RetryPolicy | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        super().__init__(
            base_url, proxy_prefix, api_key, api_key_header, timeout, retry, auth, clock
        )
        self._http = httpx.Client(
            transport=transport, auth=auth, timeout=timeout, verify=self._verify
        )
        self._sleep = sleep

    def _drive(self, operation: Operation[T]) -> T:
        """Run an operation to its end, answering its steps with blocking I/O."""
        with closing(operation):
            state = resume(operation, Answer())
            while not isinstance(state, Finished):
                state = resume(operation, self._answer(state))
            return state.result

    def _answer(self, step: Step) -> Answer:
        """Perform one step: send the request, sleep, read the clock or compute."""
        if isinstance(step, Send):
            try:
                return Answer(self._http.send(step.request))
            except httpx.TransportError as exc:
                return Answer(error=exc)
        if isinstance(step, Sleep):
            self._sleep(step.seconds)
            return Answer()
        if isinstance(step, Now):
            return Answer(self._clock())
        if isinstance(step, Compute):
            try:
                return Answer(step.function(*step.args))
            except Exception as exc:
                return Answer(error=exc)
        raise TypeError(f"unknown step {step!r}")

    def as_async(self, transport: httpx.AsyncBaseTransport | None = None) -> AsyncChapClient:
        """An ``AsyncChapClient`` with this client's settings (URL, prefix, key, auth, time
        limit, retry policy) and its own connections (``transport`` for tests)."""
        from chaplab.client._client import AsyncChapClient

        return AsyncChapClient(**self._settings(), auth=self._auth, transport=transport)

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
