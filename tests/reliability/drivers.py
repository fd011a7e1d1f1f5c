"""Call one client operation through either driver (``ChapClient`` or ``AsyncChapClient``),
recording the pauses the client asked for instead of sleeping through them."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from chaplab.client import AsyncChapClient, ChapClient, RetryPolicy

DRIVERS = ("sync", "async")
FAST_RETRIES = RetryPolicy(max_retries=3, backoff=0.05, max_backoff=0.2, jitter=False)


@dataclass
class Caller:
    """Runs client operations against ``base_url`` with the ``driver`` under test."""

    driver: str
    base_url: str
    retry: RetryPolicy = FAST_RETRIES
    timeout: float = 10.0
    api_key: str | None = None
    pauses: list[float] = field(default_factory=list)

    def __call__(self, operation: str, *args: Any, **kwargs: Any) -> Any:
        if self.driver == "sync":
            with ChapClient(
                self.base_url,
                api_key=self.api_key,
                timeout=self.timeout,
                retry=self.retry,
                sleep=self.pauses.append,
            ) as client:
                return getattr(client, operation)(*args, **kwargs)
        return asyncio.run(self._async_call(operation, *args, **kwargs))

    async def _async_call(self, operation: str, *args: Any, **kwargs: Any) -> Any:
        async def pause(seconds: float) -> None:
            self.pauses.append(seconds)

        async with AsyncChapClient(
            self.base_url, api_key=self.api_key, timeout=self.timeout, retry=self.retry, sleep=pause
        ) as client:
            return await getattr(client, operation)(*args, **kwargs)
