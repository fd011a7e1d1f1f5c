"""The connection bar: where the panel is connected, the service's version, whether an API key
is in use (never the key), a refresh button, and errors as readable sentences."""

from __future__ import annotations

import html
import re

import ipywidgets as widgets

from chaplab.client import (
    ArgumentTypeError,
    AsyncChapClient,
    AuthenticationError,
    ChapClient,
    ChapConnectionError,
    ChapError,
    ChapHTTPError,
    JobFailedError,
    PermissionDeniedError,
    ServerError,
)
from chaplab.widgets._markup import message
from chaplab.widgets.tables import uncut_button


def as_async_client(client: AsyncChapClient | ChapClient) -> AsyncChapClient:
    """``client`` itself, or ``ChapClient.as_async()``: an async client with its settings."""
    if isinstance(client, AsyncChapClient):
        return client
    if isinstance(client, ChapClient):
        return client.as_async()
    raise ArgumentTypeError(
        f"ChapPanel: client must be an AsyncChapClient or a ChapClient, got {type(client).__name__}"
    )


def describe_error(error: BaseException) -> str:
    """One readable sentence about ``error`` for the panel, instead of a traceback."""
    if isinstance(error, PermissionDeniedError):  # before its base class, AuthenticationError
        return f"The API key is not allowed to do this (HTTP 403: {error.message})."
    if isinstance(error, AuthenticationError):
        return (
            f"The service refused the API key (HTTP 401: {_sentence(error.message)[:-1]}): "
            "pass one as api_key=... to chaplab.connect() or the client, or set $CHAP_API_KEY."
        )
    if isinstance(error, ChapConnectionError):
        return f"Cannot reach the service: {error}"
    if isinstance(error, JobFailedError):
        return f"Job {error.job_id} ended with {error.status}: {_sentence(error.reason)}"
    if isinstance(error, ServerError):
        return f"The service failed while handling the request: {_sentence(error.message)}"
    if isinstance(error, ChapHTTPError):  # the service's own sentence (a 404, 409, 422, ...)
        return _sentence(error.message)
    if isinstance(error, ChapError):
        return str(error)
    return f"{type(error).__name__}: {error}"


def _sentence(text: str) -> str:
    """``text`` as a sentence, ending in a full stop (its first word may be an argument or a
    URL, so its case is kept)."""
    text = text.strip() or "no details given"
    return text if text.endswith((".", "?", "!")) else text + "."


class ConnectionBar(widgets.VBox):  # type: ignore[misc]  # ipywidgets has no annotations
    """Address, version and key use of the service, a refresh button, and a message line."""

    def __init__(self, address: str, key_in_use: bool) -> None:
        super().__init__()
        self.address = address
        self.key_in_use = key_in_use
        self.version: str | None = None
        self.summary = widgets.HTML()
        self.refresh_button = uncut_button(
            "Refresh", "refresh", "reload everything from the service"
        )
        self.message = widgets.HTML()
        self.summary.layout = widgets.Layout(flex="0 1 auto", min_width="0")
        self.children = [
            widgets.HBox(
                [self.summary, self.refresh_button],
                layout=widgets.Layout(align_items="center", grid_gap="0 12px"),
            ),
            self.message,
        ]
        self._show_summary("connecting…")

    def show_connected(self, version: str | None) -> None:
        """The service answered: show its release (``chaplab 0.1.0``, ``chap-core 2.5.1``) and
        clear any earlier error."""
        self.version = version
        self._show_summary(f"service {version or 'version unknown'}")
        self.message.value = ""

    def show_error(self, error: BaseException) -> None:
        """Show ``error`` as a readable message (in red) under the bar; before the service
        has answered once, the bar says "not connected" instead of "connecting…"."""
        self.message.value = message(describe_error(error), alert=True)
        if self.version is None:
            self._show_summary("not connected")

    @property
    def error_text(self) -> str:
        """The message shown, as plain text (empty when all is well)."""
        return html.unescape(_strip_tags(self.message.value))

    def _show_summary(self, state: str) -> None:
        key = "API key in use" if self.key_in_use else "no API key"
        self.summary.value = (
            f"<b>chaplab</b> · <code>{html.escape(self.address)}</code> · "
            f"{html.escape(state)} · {key}"
        )


def _strip_tags(markup: str) -> str:
    return re.sub(r"<[^>]+>", "", markup)
