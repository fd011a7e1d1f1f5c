"""``ServiceBuilder``: a fluent builder of FastAPI services with the toolkit's common parts
(landing page, docs, health, API-key auth, problem-details errors, body limit, CORS)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import Any, Self

from fastapi import APIRouter, FastAPI
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware

from chaplab.toolkit.auth import DEFAULT_HEADER, ApiKeyMiddleware, AuthPolicy
from chaplab.toolkit.keys import DEFAULT_ENV_VAR, ApiKeyStore, key_source
from chaplab.toolkit.limits import DEFAULT_MAX_BODY_BYTES, BodySizeLimitMiddleware
from chaplab.toolkit.openapi import add_api_key_security
from chaplab.toolkit.pages import HealthCheck, standard_router
from chaplab.toolkit.problems import UnhandledErrorMiddleware, install_problem_handlers

Lifespan = Callable[[FastAPI], AbstractAsyncContextManager[Any]]
"""A lifespan factory: called with the app, entered at startup and exited at shutdown."""

ExceptionHandler = Callable[..., Any]


@dataclass(frozen=True)
class _AuthSettings:
    api_keys: tuple[str, ...] | None
    api_key_file: str | os.PathLike[str] | None
    env_var: str
    policy: AuthPolicy


def _combine(lifespans: Sequence[Lifespan]) -> Lifespan:
    """One lifespan entering ``lifespans`` in order and leaving them in reverse."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            for factory in lifespans:
                await stack.enter_async_context(factory(app))
            yield

    return lifespan


class ServiceBuilder:
    """Build a FastAPI service: ``ServiceBuilder(title=..., version=...).with_auth().build()``.

    Every built service serves ``/``, ``/docs``, ``/redoc``, ``/openapi.json`` and ``/health``
    and answers every error as RFC 9457 problem details.
    """

    def __init__(self, title: str, version: str = "0.1.0", description: str = "") -> None:
        for name, value in (("title", title), ("version", version), ("description", description)):
            if not isinstance(value, str):
                raise TypeError(f"{name} must be a string, got {type(value).__name__}")
        if not title.strip():
            raise ValueError("title must name the service")
        self.title = title
        self.version = version
        self.description = description
        self._auth: _AuthSettings | None = None
        self._cors: dict[str, Any] | None = None
        self._max_body_bytes = DEFAULT_MAX_BODY_BYTES
        self._health_check: HealthCheck | None = None
        self._routers: list[tuple[APIRouter, dict[str, Any]]] = []
        self._lifespans: list[Lifespan] = []
        self._exception_handlers: list[tuple[type[Exception] | int, ExceptionHandler]] = []

    def with_auth(
        self,
        *,
        api_keys: Iterable[str] | None = None,
        api_key_file: str | os.PathLike[str] | None = None,
        env_var: str = DEFAULT_ENV_VAR,
        header_name: str = DEFAULT_HEADER,
        unauthenticated_paths: Iterable[str] | None = None,
    ) -> Self:
        """Require an API key on every path outside ``unauthenticated_paths``.

        Keys come from the first non-None of ``api_keys``, ``api_key_file`` (one key per line,
        ``#`` comments) and the environment variable ``env_var`` (comma-separated). They are
        loaded by ``build()``, which raises when none is found.
        """
        if isinstance(api_keys, (str, bytes)):
            raise TypeError("api_keys must be a list of strings, not a single string")
        self._auth = _AuthSettings(
            api_keys=None if api_keys is None else tuple(api_keys),
            api_key_file=api_key_file,
            env_var=env_var,
            policy=AuthPolicy.create(header_name, unauthenticated_paths),
        )
        return self

    def with_cors(
        self,
        allow_origins: Sequence[str],
        *,
        allow_methods: Sequence[str] = ("*",),
        allow_headers: Sequence[str] = ("*",),
        allow_credentials: bool = False,
        expose_headers: Sequence[str] = (),
    ) -> Self:
        """Answer CORS requests from ``allow_origins``; preflights need no key."""
        if isinstance(allow_origins, str):
            raise TypeError("allow_origins must be a list of origins, not a single string")
        self._cors = {
            "allow_origins": list(allow_origins),
            "allow_methods": list(allow_methods),
            "allow_headers": list(allow_headers),
            "allow_credentials": allow_credentials,
            "expose_headers": list(expose_headers),
        }
        return self

    def with_limits(self, *, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES) -> Self:
        """Answer 413 to request bodies larger than ``max_body_bytes`` (default 512 MiB)."""
        if isinstance(max_body_bytes, bool) or not isinstance(max_body_bytes, int):
            raise TypeError("max_body_bytes must be an integer number of bytes")
        if max_body_bytes < 0:
            raise ValueError(f"max_body_bytes must be >= 0, got {max_body_bytes}")
        self._max_body_bytes = max_body_bytes
        return self

    def with_health_check(self, check: HealthCheck) -> Self:
        """Run ``check`` on each ``/health``: None/True is healthy, False or an error gives 503."""
        if not callable(check):
            raise TypeError("check must be callable")
        self._health_check = check
        return self

    def with_lifespan(self, lifespan: Lifespan) -> Self:
        """Add a startup/shutdown context (``async with`` around the service's life).

        Several lifespans are entered in the order added and left in reverse.
        """
        self._lifespans.append(lifespan)
        return self

    def with_exception_handler(
        self, exc_class_or_status: type[Exception] | int, handler: ExceptionHandler
    ) -> Self:
        """Add an exception handler; it takes precedence over the toolkit's for its class."""
        self._exception_handlers.append((exc_class_or_status, handler))
        return self

    def include_router(self, router: APIRouter, **kwargs: Any) -> Self:
        """Include ``router`` with FastAPI's ``include_router`` options (``prefix``, ``tags``)."""
        self._routers.append((router, kwargs))
        return self

    def _middleware(self, store: ApiKeyStore | None) -> list[Middleware]:
        """Outermost first: CORS, unexpected errors, auth, body limit."""
        stack: list[Middleware] = []
        if self._cors is not None:
            stack.append(Middleware(CORSMiddleware, **self._cors))
        stack.append(Middleware(UnhandledErrorMiddleware))
        if store is not None and self._auth is not None:
            stack.append(Middleware(ApiKeyMiddleware, store=store, policy=self._auth.policy))
        stack.append(Middleware(BodySizeLimitMiddleware, max_body_bytes=self._max_body_bytes))
        return stack

    def _key_store(self) -> ApiKeyStore | None:
        if self._auth is None:
            return None
        source = key_source(self._auth.api_keys, self._auth.api_key_file, self._auth.env_var)
        return ApiKeyStore(source)

    def build(self) -> FastAPI:
        """The FastAPI app. Raises when auth is enabled and no API key is found.

        With auth, the app's ``state.api_key_store`` is the :class:`ApiKeyStore` (call its
        ``request_reload()`` on SIGHUP).
        """
        store = self._key_store()
        app = FastAPI(
            title=self.title,
            version=self.version,
            description=self.description,
            docs_url="/docs",
            redoc_url="/redoc",
            openapi_url="/openapi.json",
            middleware=self._middleware(store),
            lifespan=_combine(self._lifespans) if self._lifespans else None,
        )
        install_problem_handlers(app)
        for exc_class_or_status, handler in self._exception_handlers:
            app.add_exception_handler(exc_class_or_status, handler)
        app.include_router(
            standard_router(self.title, self.version, self.description, self._health_check)
        )
        for router, kwargs in self._routers:
            app.include_router(router, **kwargs)
        app.state.api_key_store = store
        if self._auth is not None:
            add_api_key_security(app, self._auth.policy)
        return app
