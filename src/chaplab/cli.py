"""The ``chaplab`` command: ``chaplab serve`` runs the modeling service, ``chaplab lab`` starts
it in the background and opens JupyterLab on the notebooks."""

from __future__ import annotations

import argparse
import ipaddress
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from chaplab.service.instance_lock import InstanceLock

API_KEY_VARIABLES = ("SERVICE_API_KEY_FILE", "SERVICE_API_KEYS")
MIB = 1024 * 1024
EVENT_HANDLER_NAME = "chaplab-serve-events"


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    arguments, unknown = parser.parse_known_args(argv)
    if unknown and arguments.command != "lab":
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    arguments.jupyter_args = unknown
    return int(arguments.run(arguments, parser) or 0)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="chaplab", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="run the modeling service")
    serve.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)"
    )
    serve.add_argument(
        "--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)"
    )
    serve.add_argument(
        "--database", help="SQLite file or SQLAlchemy URL (default: chaplab.db in the data folder)"
    )
    serve.add_argument(
        "--api-key-file", help="file of API keys, one per line; turns authentication on"
    )
    serve.add_argument("--workers", type=int, default=None, help="job worker processes (default 2)")
    serve.add_argument(
        "--max-body-mb",
        type=float,
        default=None,
        help="largest request body in MiB, larger ones get 413 (default 512)",
    )
    serve.add_argument(
        "--no-auth",
        action="store_true",
        help="serve without API keys, also on a non-loopback address",
    )
    serve.add_argument(
        "--no-demo", action="store_true", help="do not store the demo content in a new database"
    )
    serve.add_argument("--ready-file", help=argparse.SUPPRESS)
    serve.add_argument("--exit-with-stdin", action="store_true", help=argparse.SUPPRESS)
    serve.set_defaults(run=_serve)
    lab = commands.add_parser(
        "lab",
        help="start the service in the background and open JupyterLab",
        epilog="Any other option is passed to jupyter lab, e.g. --no-browser --port 8899.",
    )
    lab.add_argument(
        "--notebooks", help="folder to open (default: the repository's notebooks/ or here)"
    )
    lab.set_defaults(run=_lab)
    return parser


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _serve(arguments: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import SQLAlchemyError

    import chaplab.service.lean_imports  # noqa: F401 - before anything imports jsonschema
    from chaplab.service.app import service_database_url
    from chaplab.service.instance_lock import DatabaseInUseError, InstanceLock

    max_body_bytes = _max_body_bytes(arguments, parser)
    _check_auth(arguments, parser)
    _log_toolkit_events_to_stderr()
    database_url = service_database_url(arguments.database)
    try:
        make_url(database_url).get_dialect().import_dbapi()  # the driver, before anything opens
        lock = InstanceLock.for_url(database_url)
        if lock is not None:
            lock.acquire()
    except DatabaseInUseError as error:
        print(f"chaplab serve: {error}", file=sys.stderr)
        return 1
    except (SQLAlchemyError, ImportError) as error:
        print(f"chaplab serve: {unreachable_database(database_url, error)}", file=sys.stderr)
        return 1
    try:
        return _serve_holding(arguments, max_body_bytes, lock)
    except SQLAlchemyError as error:
        print(f"chaplab serve: {unreachable_database(database_url, error)}", file=sys.stderr)
        return 1
    finally:
        if lock is not None:
            lock.release()


def unreachable_database(database_url: str, error: BaseException) -> str:
    """One sentence for a ``--database`` that cannot be opened: the URL (password hidden) and
    the first line of the driver's reason, without SQLAlchemy's wrapping."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError

    try:
        shown = make_url(database_url).render_as_string(hide_password=True)
    except ArgumentError:
        shown = database_url
    reason = str(getattr(error, "orig", None) or error).strip().splitlines()
    detail = reason[0] if reason else type(error).__name__
    if isinstance(error, ImportError):
        detail = f"its driver is not installed ({detail})"
    elif isinstance(error, NoSuchModuleError):
        detail = "no such kind of database here (SQLite, or PostgreSQL with the postgres extra)"
    return f"--database {shown} cannot be opened: {detail}"


def _max_body_bytes(arguments: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """The body limit in bytes from ``--max-body-mb``; also checks ``--workers``."""
    from chaplab.toolkit import DEFAULT_MAX_BODY_BYTES

    if arguments.workers is not None and arguments.workers < 1:
        parser.error(f"--workers must be at least 1, got {arguments.workers}")
    if arguments.max_body_mb is None:
        return DEFAULT_MAX_BODY_BYTES
    if not 0 < arguments.max_body_mb < float("inf"):
        parser.error(f"--max-body-mb must be a positive number, got {arguments.max_body_mb}")
    return int(arguments.max_body_mb * MIB)


def _check_auth(arguments: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """Refuse contradicting options and a non-loopback address without keys; ``--no-auth``
    clears the key variables."""
    from chaplab.service.app import auth_configured

    if arguments.no_auth:
        if arguments.api_key_file:
            parser.error("--no-auth and --api-key-file contradict each other")
        for variable in API_KEY_VARIABLES:
            os.environ.pop(variable, None)
    elif not _is_loopback(arguments.host) and not auth_configured(None, arguments.api_key_file):
        parser.error(
            f"refusing to serve on {arguments.host} without API keys: give --api-key-file "
            "(or set SERVICE_API_KEY_FILE / SERVICE_API_KEYS), or pass --no-auth explicitly"
        )


def _serve_holding(
    arguments: argparse.Namespace, max_body_bytes: int, lock: InstanceLock | None
) -> int:
    """Listen, record the URL in the database's lock (held, or None where none applies), build
    the app and serve until stopped."""
    import uvicorn

    from chaplab.service.app import create_app
    from chaplab.service.db import SchemaVersionError

    listener = _listen(arguments.host, arguments.port)
    if listener is None:
        return 1
    host = f"[{arguments.host}]" if listener.family == socket.AF_INET6 else arguments.host
    url = f"http://{host}:{listener.getsockname()[1]}"
    if lock is not None:
        lock.record(url)
    try:
        app = create_app(
            database_url=arguments.database,
            api_key_file=arguments.api_key_file,
            workers=arguments.workers,
            seed_demo=not arguments.no_demo,
            max_body_bytes=max_body_bytes,
            instance_lock=lock,
        )
    except (SchemaVersionError, FileNotFoundError, ValueError) as error:
        listener.close()
        print(f"chaplab serve: {error}", file=sys.stderr)
        return 1
    _reload_keys_on_sighup(app)
    server = uvicorn.Server(uvicorn.Config(app, log_level="info", timeout_graceful_shutdown=5))
    if arguments.exit_with_stdin:
        threading.Thread(target=_stop_on_stdin_eof, args=(server,), daemon=True).start()
    if arguments.ready_file:
        _write_atomically(Path(arguments.ready_file), url)
    print(f"chaplab service on {url}", flush=True)
    server.run(sockets=[listener])
    return 0


def _listen(host: str, port: int) -> socket.socket | None:
    """A socket bound to ``host:port``, or None after saying why it cannot be."""
    from chaplab.toolkit.server import bound_socket

    try:
        return bound_socket(host, port)
    except OSError as error:
        print(
            f"chaplab serve: cannot listen on {host}:{port}: "
            f"{error.strerror or error} (is another service using this port? try --port 0)",
            file=sys.stderr,
        )
        return None


def _log_toolkit_events_to_stderr() -> None:
    """Write the toolkit's events (``auth.*``, request errors, failing health checks) to stderr
    as JSON lines from INFO up, beside uvicorn's own log, so an operator sees who was refused.

    The records carry key prefixes, never whole keys; uvicorn's access log shows paths and
    statuses, never headers."""
    from chaplab.toolkit import JsonLinesFormatter

    logger = logging.getLogger("chaplab.toolkit")
    logger.setLevel(logging.INFO)
    if any(handler.get_name() == EVENT_HANDLER_NAME for handler in logger.handlers):
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.set_name(EVENT_HANDLER_NAME)
    handler.setFormatter(JsonLinesFormatter())
    logger.addHandler(handler)


def _reload_keys_on_sighup(app: object) -> None:
    """Re-read the API keys on SIGHUP, so an operator rotates keys without a restart.

    The key file is also re-read by itself when it changes; after SIGHUP the next request
    re-reads it whatever its modification time says.
    """
    store = getattr(getattr(app, "state", None), "api_key_store", None)
    if store is not None:
        signal.signal(signal.SIGHUP, lambda _signum, _frame: store.request_reload())


def _stop_on_stdin_eof(server: object) -> None:
    """Stop the server when standard input closes: the parent has exited or asked to stop."""
    while sys.stdin.buffer.read(4096):
        pass
    server.should_exit = True  # type: ignore[attr-defined]


def _write_atomically(path: Path, text: str) -> None:
    partial = path.with_suffix(".partial")
    partial.write_text(text, encoding="utf-8")
    partial.replace(path)


def notebooks_folder() -> Path:
    """The repository's ``notebooks/`` when run from a checkout, else the current folder."""
    for base in (Path.cwd(), Path(__file__).resolve().parents[2]):
        candidate = base / "notebooks"
        if candidate.is_dir():
            return candidate
    return Path.cwd()


def _root_flag(jupyter_args: Sequence[str]) -> list[str]:
    """JupyterLab refuses to start as root (containers, CI machines) unless told it may."""
    if os.name == "posix" and os.geteuid() == 0 and "--allow-root" not in jupyter_args:
        return ["--allow-root"]
    return []


def _lab(arguments: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from chaplab.service.embedded import connect_embedded

    folder = Path(arguments.notebooks) if arguments.notebooks else notebooks_folder()
    if not folder.is_dir():
        parser.error(f"--notebooks {folder} is not a folder")
    service = connect_embedded()
    reused = "" if service.process is not None else "; already running, it stops with its starter"
    print(f"chaplab service on {service.url} (data in {service.data_dir}{reused})", flush=True)
    environment = {**os.environ, "CHAP_URL": service.url}
    command = [
        sys.executable,
        "-m",
        "jupyter",
        "lab",
        f"--notebook-dir={folder}",
        *_root_flag(arguments.jupyter_args),
        *arguments.jupyter_args,
    ]
    try:
        return _run_until_it_ends(command, environment)
    finally:
        service.stop()


def _run_until_it_ends(command: list[str], environment: dict[str, str]) -> int:
    """Run JupyterLab and wait for it to end. A Ctrl-C reaches JupyterLab too, which asks
    whether to stop: it decides, and the service stops only when it has ended."""
    process = subprocess.Popen(command, env=environment)
    while True:
        try:
            return process.wait()
        except KeyboardInterrupt:
            continue
