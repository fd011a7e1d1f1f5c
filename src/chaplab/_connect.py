"""``chaplab.connect()``: a client for ``$CHAP_URL``, or for an embedded service started on demand.

Without ``CHAP_URL`` the client is for the service on the per-user database (``chaplab.db`` in
``$CHAPLAB_DATA_DIR`` or the per-user data folder), which one service serves at a time. When a
chaplab service already serves it (started by another kernel, say), that service is reused; it
then lives as long as the process that started it. Otherwise the first call starts ``chaplab
serve`` as a child process on a free loopback port; later calls in the same process reuse it,
and it stops when the interpreter exits.
"""

from __future__ import annotations

import atexit
import importlib
import os
import sys
import threading
from typing import TYPE_CHECKING, Literal, overload

if TYPE_CHECKING:
    from chaplab.client import AsyncChapClient, ChapClient
    from chaplab.service.embedded import EmbeddedService

URL_VARIABLE = "CHAP_URL"
API_KEY_VARIABLE = "CHAP_API_KEY"
PROXY_PREFIX_VARIABLE = "CHAP_PROXY_PREFIX"

_lock = threading.Lock()
_embedded: EmbeddedService | None = None


@overload
def connect(
    url: str | None = None,
    api_key: str | None = None,
    *,
    async_: Literal[False] = False,
    check: bool = True,
) -> ChapClient: ...
@overload
def connect(
    url: str | None = None,
    api_key: str | None = None,
    *,
    async_: Literal[True],
    check: bool = True,
) -> AsyncChapClient: ...


def connect(
    url: str | None = None,
    api_key: str | None = None,
    *,
    async_: bool = False,
    check: bool = True,
) -> ChapClient | AsyncChapClient:
    """A client for ``url`` (default ``$CHAP_URL``, with ``$CHAP_API_KEY`` and
    ``$CHAP_PROXY_PREFIX``); without either, for the embedded service: the running chaplab
    service of the per-user database if there is one (it lives as long as the process that
    started it), else a child service of this process. ``async_=True`` gives an
    ``AsyncChapClient``.

    The address is checked once, at once: a service that cannot be reached there raises
    ``ChapConnectionError`` naming the URL and the reason (one ``GET /health``, not retried;
    any HTTP answer counts as reached). ``check=False`` gives the client without asking, and
    the first request says whether the service answers.

    The key (``api_key``, else ``$CHAP_API_KEY``) is sent to the embedded service too: a
    service started with ``chaplab serve --api-key-file`` on the per-user database is reused
    like any other and needs it. Surrounding whitespace of ``$CHAP_API_KEY`` is stripped (a key
    copied with a line end, or read from a file with its newline), and a blank one means no
    key. An ``api_key`` argument is used as given: the client refuses one with surrounding
    whitespace."""
    key = api_key if api_key is not None else _environment_key()
    target = url or os.environ.get(URL_VARIABLE)
    if target:
        prefix = os.environ.get(PROXY_PREFIX_VARIABLE, "")
    else:
        target, prefix = embedded_service().url, ""
        check = False  # started and waited for, or found answering
    from chaplab.client import AsyncChapClient, ChapClient

    if check:
        _check_reachable(target, prefix, key)
    client_type = AsyncChapClient if async_ else ChapClient
    return client_type(target, proxy_prefix=prefix, api_key=key)


def _check_reachable(url: str, proxy_prefix: str, api_key: str | None) -> None:
    """Raise ``ChapConnectionError`` when nothing answers HTTP at ``url`` (one request to its
    liveness route, not retried); an error status is an answer."""
    from chaplab.client import ChapClient, ChapConnectionError, ChapError, RetryPolicy

    with ChapClient(
        url, proxy_prefix=proxy_prefix, api_key=api_key, retry=RetryPolicy(max_retries=0)
    ) as probe:
        try:
            probe.health()
        except ChapConnectionError:
            raise
        except ChapError:
            pass  # an answer, if not a modeling service's: the address is reached


def reaches(url: str, proxy_prefix: str = "") -> bool:
    """Whether ``connect()`` here and now gives a client of ``url`` (behind ``proxy_prefix``):
    ``$CHAP_URL`` names it or, without ``$CHAP_URL``, it is this process's embedded service.
    Code written for a person ("copy code") then says ``chaplab.connect()``, not a port that
    changes with every start."""
    target = os.environ.get(URL_VARIABLE)
    if target:
        here = (target.rstrip("/"), os.environ.get(PROXY_PREFIX_VARIABLE, ""))
        return here == (url.rstrip("/"), proxy_prefix)
    embedded = _embedded
    return not proxy_prefix and embedded is not None and embedded.url.rstrip("/") == url.rstrip("/")


def _import_client_meanwhile() -> None:
    """Import the client in a thread while this one starts or finds the embedded service: the
    service's start-up runs in its own process and this one mostly waits, so the client's
    imports (pydantic, the models) cost no time. Started once the service's own imports are
    done, so that it does not delay starting the service; an import of the client in the
    meantime waits for this one."""
    if "chaplab.client" not in sys.modules:
        threading.Thread(
            target=importlib.import_module,
            args=("chaplab.client",),
            name="chaplab-client-import",
            daemon=True,
        ).start()


def _environment_key() -> str | None:
    """``$CHAP_API_KEY`` without surrounding whitespace; ``None`` when unset or blank."""
    return os.environ.get(API_KEY_VARIABLE, "").strip() or None


def connect_async(
    url: str | None = None, api_key: str | None = None, *, check: bool = True
) -> AsyncChapClient:
    """``connect(..., async_=True)``."""
    return connect(url, api_key, async_=True, check=check)


def embedded_service() -> EmbeddedService:
    """The service on the per-user database: the one already running there, else a child of
    this process started on first use and stopped at exit. Looked up again once it has gone."""
    global _embedded
    with _lock:
        if _embedded is None or not _embedded.running():
            from chaplab.service.embedded import connect_embedded

            _import_client_meanwhile()
            _embedded = connect_embedded()
            atexit.register(_embedded.stop)
        return _embedded
