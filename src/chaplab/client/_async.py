"""The asyncio driver behind ``AsyncChapClient``: runs the operations with ``httpx.AsyncClient`` and
``asyncio.sleep``; CPU-bound steps (building frames) run in a worker thread
(``asyncio.to_thread``), so the event loop, a notebook kernel's included, keeps running."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
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
    from chaplab.client._client import ChapClient

T = TypeVar("T")


class AsyncDriver(ClientBase):
    """Asynchronous client of the modeling service: the methods of ``ChapClient``, as
    coroutines. ``sleep`` (an async function) and ``clock`` replace ``asyncio.sleep`` and
    ``time.monotonic`` (tests). Use it as an async context manager, or call ``aclose()``.
    """

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8000",
        proxy_prefix: str = "",
        api_key: str | None = None,
        api_key_header: str = "X-API-Key",
        timeout: float | httpx.Timeout | None = 30.0,
        transport: httpx.AsyncBaseTransport | None = None,
        auth: httpx.Auth | tuple[str, str] | None = None,
        retry: RetryPolicy | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        super().__init__(
            base_url, proxy_prefix, api_key, api_key_header, timeout, retry, auth, clock
        )
        self._http = httpx.AsyncClient(
            transport=transport, auth=auth, timeout=timeout, verify=self._verify
        )
        self._sleep = sleep

    async def _drive(self, operation: Operation[T]) -> T:
        """Run an operation to its end, answering its steps with asyncio I/O."""
        with closing(operation):
            state = resume(operation, Answer())
            while not isinstance(state, Finished):
                state = resume(operation, await self._answer(state))
            return state.result

    async def _answer(self, step: Step) -> Answer:
        """Perform one step: send the request, sleep, read the clock or compute."""
        if isinstance(step, Send):
            try:
                return Answer(await self._http.send(step.request))
            except httpx.TransportError as exc:
                return Answer(error=exc)
        if isinstance(step, Sleep):
            await self._sleep(step.seconds)
            return Answer()
        if isinstance(step, Now):
            return Answer(self._clock())
        if isinstance(step, Compute):
            try:
                return Answer(await asyncio.to_thread(step.function, *step.args))
            except Exception as exc:
                return Answer(error=exc)
        raise TypeError(f"unknown step {step!r}")

    def as_sync(self, transport: httpx.BaseTransport | None = None) -> ChapClient:
        """A ``ChapClient`` with this client's settings (URL, prefix, key, auth, time limit,
        retry policy) and its own connections (``transport`` for tests)."""
        from chaplab.client._client import ChapClient

        return ChapClient(**self._settings(), auth=self._auth, transport=transport)

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()
