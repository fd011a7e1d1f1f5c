"""Request body size limit as a pure ASGI middleware: a declared Content-Length over the limit is
answered with 413 before the application runs; a body without one is counted while it streams."""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from chaplab.toolkit.problems import StartWatchingSend, problem_response

DEFAULT_MAX_BODY_BYTES = 512 * 1024 * 1024


class BodyTooLargeError(HTTPException):
    """Raised from ``receive`` once the streamed body passes the limit.

    It is an HTTPException so that FastAPI's body parsing passes it on unchanged and the
    problem handlers answer it with 413.
    """

    def __init__(self, limit: int) -> None:
        super().__init__(413, detail=_detail(limit))


def _detail(limit: int) -> str:
    return f"The request body exceeds the limit of {limit} bytes"


def _declared_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


class BodySizeLimitMiddleware:
    """Answer 413 problem details for request bodies larger than ``max_body_bytes``."""

    def __init__(self, app: ASGIApp, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES) -> None:
        if max_body_bytes < 0:
            raise ValueError(f"max_body_bytes must be >= 0, got {max_body_bytes}")
        self.app = app
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.max_body_bytes
        declared = _declared_length(scope)
        if declared is not None and declared > limit:
            await problem_response(413, instance=scope["path"], detail=_detail(limit))(
                scope, receive, send
            )
            return
        received = 0
        watched_send = StartWatchingSend(send)

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLargeError(limit)
            return message

        try:
            await self.app(scope, counting_receive, watched_send)
        except BodyTooLargeError:
            if watched_send.started:
                raise
            await problem_response(413, instance=scope["path"], detail=_detail(limit))(
                scope, receive, send
            )
