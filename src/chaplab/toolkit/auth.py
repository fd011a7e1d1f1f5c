"""API-key authentication as a pure ASGI middleware (streaming responses pass untouched).

A request outside the unauthenticated paths must carry ``<header_name>: <key>`` with an active
key of the :class:`~chaplab.toolkit.keys.ApiKeyStore`; otherwise it gets a 401 problem. Each
decision is logged on ``chaplab.toolkit.auth`` as ``auth.success``, ``auth.invalid_key`` or
``auth.missing_key``; only a key's first 7 characters are ever logged.
"""

from __future__ import annotations

import logging
import string
from collections.abc import Iterable
from dataclasses import dataclass

from starlette.types import ASGIApp, Receive, Scope, Send

from chaplab.toolkit.keys import ApiKeyStore, key_prefix, logger
from chaplab.toolkit.logs import log_event
from chaplab.toolkit.problems import problem_response

DEFAULT_HEADER = "X-API-Key"
DEFAULT_UNAUTHENTICATED_PATHS: frozenset[str] = frozenset(
    {"/", "/docs", "/redoc", "/openapi.json", "/health", "/health/ready", "/health/probe"}
)
"""Open without a key: the landing page, the API's documentation, and the health and readiness
probes (an orchestrator's probe carries no key)."""
WEBSOCKET_POLICY_VIOLATION = 1008
TOKEN_CHARACTERS = frozenset(string.ascii_letters + string.digits + "!#$%&'*+-.^_`|~")
"""The characters of an RFC 9110 token, the grammar of an HTTP field (header) name."""


def _checked_header_name(header_name: object) -> str:
    """``header_name`` without surrounding whitespace, if it is an RFC 9110 token.

    Checked when the service is configured: any other name could never be sent (spaces, a
    colon) or could not even be encoded (non-ASCII letters), failing every request later.
    """
    if not isinstance(header_name, str):
        raise TypeError(f"header_name must be a string, got {type(header_name).__name__}")
    name = header_name.strip()
    if not name:
        raise ValueError("header_name must name an HTTP header")
    wrong = next((char for char in name if char not in TOKEN_CHARACTERS), None)
    if wrong is not None:
        raise ValueError(
            f"header_name {name!r} is not a valid HTTP header name: it holds {wrong!r}; "
            "a header name (an RFC 9110 token) holds only ASCII letters, digits "
            "and !#$%&'*+-.^_`|~"
        )
    return name


@dataclass(frozen=True)
class AuthPolicy:
    """Which header carries the key and which exact paths need none."""

    header_name: str = DEFAULT_HEADER
    unauthenticated_paths: frozenset[str] = DEFAULT_UNAUTHENTICATED_PATHS

    @classmethod
    def create(cls, header_name: str, unauthenticated_paths: Iterable[str] | None) -> AuthPolicy:
        """``None`` keeps the default paths; a list replaces them (an empty list: none)."""
        name = _checked_header_name(header_name)
        if isinstance(unauthenticated_paths, str):
            raise TypeError("unauthenticated_paths must be a list of paths, not a single string")
        paths = (
            DEFAULT_UNAUTHENTICATED_PATHS
            if unauthenticated_paths is None
            else frozenset(unauthenticated_paths)
        )
        return cls(header_name=name, unauthenticated_paths=paths)

    @property
    def www_authenticate(self) -> str:
        """The ``WWW-Authenticate`` value naming the scheme and the header."""
        return f'ApiKey header="{self.header_name}"'


class ApiKeyMiddleware:
    """Check the API key of every HTTP request and websocket outside the open paths."""

    def __init__(self, app: ASGIApp, store: ApiKeyStore, policy: AuthPolicy) -> None:
        self.app = app
        self.store = store
        self.policy = policy
        self._header = policy.header_name.lower().encode("latin-1")

    def _presented_key(self, scope: Scope) -> bytes | None:
        """The key in the first key header; None without one or when it is empty (blank)."""
        for name, value in scope.get("headers", ()):
            if name.lower() == self._header:
                return value.strip() or None
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        if path in self.policy.unauthenticated_paths:
            await self.app(scope, receive, send)
            return
        self.store.refresh_if_changed()
        method = scope.get("method", "WEBSOCKET")
        presented = self._presented_key(scope)
        if presented is None:
            log_event(logger, logging.WARNING, "auth.missing_key", path=path, method=method)
            await self._reject(
                scope, receive, send, f"Missing authentication header: {self.policy.header_name}"
            )
            return
        prefix = key_prefix(presented.decode("latin-1"))
        if not self.store.match(presented):
            log_event(
                logger,
                logging.WARNING,
                "auth.invalid_key",
                key_prefix=prefix,
                path=path,
                method=method,
            )
            await self._reject(scope, receive, send, "Invalid API key")
            return
        log_event(logger, logging.INFO, "auth.success", key_prefix=prefix, path=path)
        await self.app(scope, receive, send)

    async def _reject(self, scope: Scope, receive: Receive, send: Send, detail: str) -> None:
        if scope["type"] == "websocket":
            await send(
                {"type": "websocket.close", "code": WEBSOCKET_POLICY_VIOLATION, "reason": detail}
            )
            return
        response = problem_response(
            401,
            instance=scope["path"],
            title="Unauthorized",
            detail=detail,
            headers={"WWW-Authenticate": self.policy.www_authenticate},
        )
        await response(scope, receive, send)
