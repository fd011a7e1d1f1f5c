"""What the sync and async drivers share: configuration, repr, and method generation.

``bind_operations`` turns each public operation into a method of a driver class. Each
generated method has the operation's name, docstring and signature (with the result type in
place of ``Operation[...]``), so ``help()`` and tab completion show the real API.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import httpx

from chaplab.client._errors import public_url
from chaplab.client._ops_catalog import ClientOperations, client_operations
from chaplab.client._steps import Operation, RequestBuilder, RetryPolicy

MethodFactory = Callable[[Callable[..., Operation[Any]]], Callable[..., Any]]


def bind_operations(cls: type, make_method: MethodFactory) -> type:
    """Add one method per public operation to ``cls``; ``make_method`` wraps the generator
    function in a method that drives it (``self._drive``)."""
    for name, function in client_operations().items():
        method = functools.wraps(function)(make_method(function))
        method.__signature__ = _result_signature(function)  # type: ignore[attr-defined]
        method.__qualname__ = f"{cls.__name__}.{name}"
        setattr(cls, name, method)
    return cls


def _result_signature(function: Callable[..., Any]) -> inspect.Signature:
    signature = inspect.signature(function)
    result = signature.return_annotation
    if isinstance(result, str) and result.startswith("Operation[") and result.endswith("]"):
        result = result[len("Operation[") : -1]
    return signature.replace(return_annotation=result)


class ClientBase:
    """Configuration shared by ``ChapClient`` and ``AsyncChapClient``."""

    def __init__(
        self,
        base_url: str,
        proxy_prefix: str,
        api_key: str | None,
        api_key_header: str,
        timeout: float | httpx.Timeout | None,
        retry: RetryPolicy | None,
    ) -> None:
        self._builder = RequestBuilder(
            base_url,
            proxy_prefix=proxy_prefix,
            api_key=api_key,
            api_key_header=api_key_header,
            timeout=timeout,
        )
        self._retry = retry or RetryPolicy()
        self._ops = ClientOperations(self._builder, self._retry)
        self._api_key = api_key
        self._timeout = timeout

    @property
    def base_url(self) -> str:
        """The service's base URL (without the proxy prefix)."""
        return self._builder.base_url

    @property
    def proxy_prefix(self) -> str:
        """The prefix prepended to every path (``""`` when none)."""
        return self._builder.proxy_prefix

    @property
    def has_api_key(self) -> bool:
        """Whether an API key is sent (the key itself is not readable from the client)."""
        return self._api_key is not None

    def _settings(self) -> dict[str, Any]:
        """The constructor arguments shared by both drivers, to build the other kind."""
        return dict(
            base_url=self.base_url,
            proxy_prefix=self.proxy_prefix,
            api_key=self._api_key,
            api_key_header=self._builder.api_key_header,
            timeout=self._timeout,
            retry=self._retry,
        )

    def __repr__(self) -> str:
        """Settings without secrets: no user name or password of the URL, no whole key."""
        url = public_url(httpx.URL(self.base_url))
        key = f", api_key={self._builder.key_prefix!r}" if self._builder.key_prefix else ""
        prefix = f", proxy_prefix={self.proxy_prefix!r}" if self.proxy_prefix else ""
        return f"{type(self).__name__}({url!r}{prefix}{key})"
