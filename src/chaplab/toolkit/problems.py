"""RFC 9457 problem details: the one error format of every toolkit-built service.

Routes raise :class:`ProblemError` (or FastAPI's ``HTTPException``); the handlers installed by
:func:`install_problem_handlers` turn those, request validation errors and unexpected exceptions
into ``application/problem+json`` bodies with ``type``, ``title``, ``status``, ``detail`` and
``instance``. ASGI middleware answers with :func:`problem_response` directly.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from http import HTTPStatus
from typing import Any, TypedDict, Unpack

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from chaplab.toolkit.field_hints import hinted

PROBLEM_MEDIA_TYPE = "application/problem+json"
TYPE_PREFIX = "urn:service:error:"

# Stable slugs and titles, independent of the Python version's HTTPStatus phrases.
_KNOWN: dict[int, tuple[str, str]] = {
    400: ("bad-request", "Bad Request"),
    401: ("unauthorized", "Unauthorized"),
    403: ("forbidden", "Forbidden"),
    404: ("not-found", "Not Found"),
    405: ("method-not-allowed", "Method Not Allowed"),
    406: ("not-acceptable", "Not Acceptable"),
    409: ("conflict", "Conflict"),
    413: ("content-too-large", "Content Too Large"),
    415: ("unsupported-media-type", "Unsupported Media Type"),
    422: ("validation", "Unprocessable Content"),
    429: ("too-many-requests", "Too Many Requests"),
    500: ("internal-server-error", "Internal Server Error"),
    503: ("service-unavailable", "Service Unavailable"),
}

error_logger = logging.getLogger("chaplab.toolkit.errors")


def problem_type(slug: str) -> str:
    """The type URI of a problem slug: ``urn:service:error:<slug>``."""
    return f"{TYPE_PREFIX}{slug}"


def _standard(status: int) -> tuple[str, str]:
    """Slug and title of a status code."""
    if status in _KNOWN:
        return _KNOWN[status]
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = "Error"
    return phrase.lower().replace(" ", "-"), phrase


def standard_title(status: int) -> str:
    """The title used for a status code when none is given."""
    return _standard(status)[1]


def problem_body(
    status: int,
    *,
    instance: str,
    title: str | None = None,
    detail: str | None = None,
    type: str | None = None,
    errors: Sequence[Mapping[str, Any]] | None = None,
    extensions: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The JSON object of a problem; missing ``title``/``type`` follow the status code."""
    slug, default_title = _standard(status)
    body: dict[str, Any] = dict(extensions or {})
    body.update(
        type=type or problem_type(slug),
        title=title or default_title,
        status=status,
        detail=detail if detail is not None else (title or default_title),
        instance=instance,
    )
    if errors is not None:
        body["errors"] = [dict(error) for error in errors]
    return body


class ProblemFields(TypedDict, total=False):
    """The optional members of a problem, as :func:`problem_body` takes them."""

    title: str | None
    detail: str | None
    type: str | None
    errors: Sequence[Mapping[str, Any]] | None
    extensions: Mapping[str, Any] | None


def problem_response(
    status: int,
    *,
    instance: str,
    headers: Mapping[str, str] | None = None,
    **fields: Unpack[ProblemFields],
) -> JSONResponse:
    """An ``application/problem+json`` response (also usable as an ASGI app); ``fields`` as in
    :func:`problem_body`."""
    body = problem_body(status, instance=instance, **fields)
    return JSONResponse(body, status_code=status, headers=headers, media_type=PROBLEM_MEDIA_TYPE)


class ProblemError(Exception):
    """Raise from a route to answer with problem details.

    ``title`` defaults to the status's standard title, ``detail`` to the title, ``type`` to
    ``urn:service:error:<slug of the status>``; ``errors`` adds field problems, ``extensions``
    adds further members, ``headers`` are sent with the response.
    """

    def __init__(
        self,
        status: int,
        title: str | None = None,
        detail: str | None = None,
        type: str | None = None,
        errors: Sequence[Mapping[str, Any]] | None = None,
        headers: Mapping[str, str] | None = None,
        extensions: Mapping[str, Any] | None = None,
    ) -> None:
        if not 400 <= status <= 599:
            raise ValueError(f"status must be an HTTP error status (400-599), got {status}")
        self.status = status
        self.title = title or standard_title(status)
        self.detail = detail if detail is not None else self.title
        self.type = type
        self.errors = errors
        self.headers = dict(headers or {})
        self.extensions = dict(extensions or {})
        super().__init__(f"{status} {self.title}: {self.detail}")


def validation_errors(raw_errors: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Field problems of a validation error: ``loc``, ``field``, ``msg``, ``type`` (no input)."""
    return [
        {
            "loc": list(error.get("loc", ())),
            "field": ".".join(str(part) for part in error.get("loc", ())),
            "msg": str(error.get("msg", "")),
            "type": str(error.get("type", "")),
        }
        for error in raw_errors
    ]


def validation_detail(errors: Sequence[Mapping[str, Any]], shown: int = 10) -> str:
    """One line naming each invalid field and the reason."""
    parts = [f"{error['field'] or 'request'}: {error['msg']}" for error in errors[:shown]]
    if len(errors) > shown:
        parts.append(f"and {len(errors) - shown} more")
    return "Invalid request: " + "; ".join(parts)


def _http_exception_detail(request: Request, status: int, detail: Any) -> str:
    """A helpful text for Starlette's bare 404/405 details, the given detail otherwise."""
    if detail == HTTPStatus(status).phrase or detail is None:
        if status == 404:
            return f"No resource at {request.url.path}"
        if status == 405:
            return f"Method {request.method} is not allowed on {request.url.path}"
        return standard_title(status)
    return detail if isinstance(detail, str) else str(detail)


async def _handle_problem_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ProblemError)
    return problem_response(
        exc.status,
        instance=request.url.path,
        title=exc.title,
        detail=exc.detail,
        type=exc.type,
        errors=exc.errors,
        extensions=exc.extensions,
        headers=exc.headers,
    )


async def _handle_http_exception(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    return problem_response(
        exc.status_code,
        instance=request.url.path,
        detail=_http_exception_detail(request, exc.status_code, exc.detail),
        headers=exc.headers,
    )


async def _handle_validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = validation_errors(hinted(exc.errors(), _body_model(request)))
    return problem_response(
        422, instance=request.url.path, detail=validation_detail(errors), errors=errors
    )


def _body_model(request: Request) -> Any:
    """The type the request's route reads its body as (None for a route without a body)."""
    body_field = getattr(request.scope.get("route"), "body_field", None)
    field_info = getattr(body_field, "field_info", None)
    return getattr(field_info, "annotation", None)


def install_problem_handlers(app: FastAPI) -> None:
    """Answer ProblemError, HTTPException and validation errors as problem details."""
    app.add_exception_handler(ProblemError, _handle_problem_error)
    app.add_exception_handler(StarletteHTTPException, _handle_http_exception)
    app.add_exception_handler(RequestValidationError, _handle_validation_error)


class StartWatchingSend:
    """An ASGI ``send`` that notes when the response starts: after that an error can no longer
    be answered with a problem, and middleware re-raises it so the server closes the
    connection."""

    def __init__(self, send: Send) -> None:
        self._send = send
        self.started = False

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.started = True
        await self._send(message)


class UnhandledErrorMiddleware:
    """Answer an unexpected exception with a generic 500 problem and log it server-side.

    The exception text never reaches the client. When the response had already started the
    exception is re-raised so that the server closes the connection.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        watched_send = StartWatchingSend(send)
        try:
            await self.app(scope, receive, watched_send)
        except Exception:
            error_logger.exception(
                "Unhandled error on %s %s",
                scope.get("method"),
                scope.get("path"),
                extra={
                    "event": "request.error",
                    "path": scope.get("path"),
                    "method": scope.get("method"),
                },
            )
            if watched_send.started:
                raise
            response = problem_response(
                500,
                instance=scope.get("path", ""),
                detail="The server met an unexpected error; it has been logged.",
            )
            await response(scope, receive, send)
