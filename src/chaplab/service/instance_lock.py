"""One service per database: a SQLite file's ``flock`` or a PostgreSQL advisory lock.

A service holds its database's lock for as long as it runs, and records its pid and, when
known, its URL with it. A second service on the same database fails to take the lock and refuses
to start, so it never fails the first service's running jobs as "interrupted" nor runs its
queued ones. Both locks end with the holder's process, however it ends (SIGKILL included), so a
crash leaves no stale lock:

- A SQLite file: an exclusive ``flock`` on the sidecar file ``<database>.lock``, which holds the
  owner's pid and URL as JSON. The kernel drops the lock when the process ends; the file stays
  and is harmless. It is never deleted: a new file beside a held one would let a second service
  in.
- A PostgreSQL database: the session-level advisory lock :data:`ADVISORY_LOCK_KEY`, taken with
  ``pg_try_advisory_lock`` on a connection of its own that stays open for the service's life.
  Advisory locks belong to one database of the server, so every database has its own. The
  owner's pid and URL are the connection's ``application_name``. The server ends the session,
  and with it the lock, when the connection closes; the kernel closes it when the process ends.

A PostgreSQL server that restarts (or a network that drops the lock's connection) ends the
session and so the lock while the service runs. The job runner therefore checks the lock
(:meth:`InstanceLock.check`) before it starts jobs: a lost advisory lock is taken back on a new
connection when no other service took it meanwhile; otherwise the service starts no jobs, logs
why and says so in ``/health/ready``, until it holds the lock again. A file's ``flock`` lasts as
long as its open file, so it cannot be lost.

In-memory SQLite and other databases get no lock: there, running one service per database is
the operator's responsibility.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Self

if TYPE_CHECKING:
    from sqlalchemy import Connection, Engine

LOCK_SUFFIX = ".lock"
ADVISORY_LOCK_KEY = int.from_bytes(b"chaplab!", "big")
"""The key of a PostgreSQL database's service lock (the bytes of ``chaplab!``)."""
APPLICATION_NAME_PREFIX = "chaplab-service"
KEEPALIVES = {
    "keepalives": 1,
    "keepalives_idle": 30,
    "keepalives_interval": 10,
    "keepalives_count": 3,
}
"""libpq's TCP keepalives of the lock's connection: a holder that cannot be reached for about a
minute loses its session and lock."""
CONNECT_TIMEOUT_SECONDS = 10
"""How long opening the lock's connection may take: the job runner checks the lock, and takes a
lost one back, between starting jobs, so an unreachable server must not hold it up for long."""
# A lock held only for an instant (a reader checking who serves the file, a new owner between
# taking the lock and writing its pid, or the session of a just-killed holder that the server
# has not ended yet) is waited out for this long before refusing.
BRIEF_HOLD_SECONDS = 0.5
RETRY_INTERVAL_SECONDS = 0.02
logger = logging.getLogger("chaplab.service.instance_lock")


@dataclass(frozen=True)
class LockOwner:
    """The service holding a database's lock, as recorded with it (None: not recorded)."""

    pid: int | None
    url: str | None

    def describe(self) -> str:
        """``pid 1234, http://127.0.0.1:8000`` with "unknown" for what is not recorded."""
        pid = self.pid if self.pid is not None else "unknown"
        return f"pid {pid}, {self.url or 'address unknown'}"


class DatabaseInUseError(RuntimeError):
    """Another chaplab service holds the database's lock."""

    def __init__(self, database: Path | str, owner: LockOwner) -> None:
        super().__init__(
            f"database {database} is in use by another chaplab service ({owner.describe()}); "
            "stop it or choose another --database"
        )
        self.database = database
        self.owner = owner


def sqlite_file(database_url: str) -> Path | None:
    """The file of a SQLite URL; None for an in-memory SQLite database or another backend."""
    from sqlalchemy.engine import make_url  # here: connect() looks up owners without SQLAlchemy

    parsed = make_url(database_url)
    if parsed.get_backend_name() != "sqlite":
        return None
    if not parsed.database or parsed.database == ":memory:":
        return None
    return Path(parsed.database).resolve()


def lock_file(database: Path) -> Path:
    """The sidecar lock file of a SQLite database file."""
    return database.with_name(database.name + LOCK_SUFFIX)


class InstanceLock(ABC):
    """The lock of one database; ``acquire`` it before touching the jobs.

    ``database`` names what is locked: the SQLite file, or the PostgreSQL URL without its
    password."""

    database: Path | str

    @classmethod
    def for_url(cls, database_url: str) -> InstanceLock | None:
        """The lock of the database at ``database_url``; None where no lock applies (in-memory
        SQLite, backends other than SQLite and PostgreSQL)."""
        from sqlalchemy.engine import make_url

        backend = make_url(database_url).get_backend_name()
        if backend == "postgresql":
            return AdvisoryLock(database_url)
        database = sqlite_file(database_url)
        return None if database is None else FileLock(database)

    @property
    @abstractmethod
    def held(self) -> bool:
        """Whether this object holds the lock."""

    def acquire(self, url: str | None = None) -> None:
        """Take the lock without waiting for another service and record this process with it.

        A lock held only for an instant (a reader checking who serves a SQLite file, or the
        session of a just-killed holder that the server has not ended yet) is waited out for
        :data:`BRIEF_HOLD_SECONDS`. Raises :class:`DatabaseInUseError` naming the owner when
        another service holds it."""
        if self.held:
            raise RuntimeError(f"the lock of {self.database} is already held")
        deadline = time.monotonic() + BRIEF_HOLD_SECONDS
        try:
            while not self._try_acquire():
                if time.monotonic() > deadline:
                    raise DatabaseInUseError(self.database, self._owner())
                time.sleep(RETRY_INTERVAL_SECONDS)
        except BaseException:
            self._give_up()
            raise
        self.record(url)

    def check(self) -> str | None:
        """None while this service holds the lock (taking a lost one back when it can), else
        why it does not hold it now."""
        return None if self.held else f"the lock of {self.database} is not held"

    @abstractmethod
    def record(self, url: str | None) -> None:
        """Record this process's pid and ``url`` (None: not known yet) with the held lock."""

    @abstractmethod
    def release(self) -> None:
        """Let the lock go; nothing happens when it is not held."""

    @abstractmethod
    def _try_acquire(self) -> bool:
        """Try once to take the lock; whether it is now held."""

    @abstractmethod
    def _owner(self) -> LockOwner:
        """The service that holds the lock, as far as it is recorded."""

    @abstractmethod
    def _give_up(self) -> None:
        """Free what the attempts to take the lock opened (they failed or raised)."""

    def __enter__(self) -> Self:
        self.acquire()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()


class FileLock(InstanceLock):
    """The exclusive ``flock`` on a SQLite database file's sidecar ``<database>.lock``."""

    def __init__(self, database: Path) -> None:
        self.database: Path = database
        self.path = lock_file(database)
        self._fd: int | None = None
        self._trying: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def _try_acquire(self) -> bool:
        if self._trying is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._trying = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        if not _try_lock(self._trying, fcntl.LOCK_EX):
            return False
        self._fd, self._trying = self._trying, None
        return True

    def _owner(self) -> LockOwner:
        return read_owner(self.path)

    def _give_up(self) -> None:
        if self._trying is not None:
            os.close(self._trying)
            self._trying = None

    def record(self, url: str | None) -> None:
        if self._fd is None:
            raise RuntimeError(f"the lock {self.path} is not held")
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, json.dumps({"pid": os.getpid(), "url": url}).encode(), 0)

    def release(self) -> None:
        """Let the lock go (the file stays); nothing happens when it is not held."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


class AdvisoryLock(InstanceLock):
    """The advisory lock :data:`ADVISORY_LOCK_KEY` of a PostgreSQL database, held by a session
    of its own (the lock's connection) for as long as the service runs."""

    def __init__(self, database_url: str) -> None:
        from sqlalchemy.engine import make_url

        self.database_url = database_url
        self.database: str = make_url(database_url).render_as_string(hide_password=True)
        self._engine: Engine | None = None
        self._connection: Connection | None = None
        self._held = False
        self._url: str | None = None
        self._owned = False
        self._lost = False

    @property
    def held(self) -> bool:
        return self._held

    def _try_acquire(self) -> bool:
        from sqlalchemy import text

        connection = self._open()
        taken = connection.scalar(
            text("SELECT pg_try_advisory_lock(:key)"), {"key": ADVISORY_LOCK_KEY}
        )
        self._held = bool(taken)
        return self._held

    def _open(self) -> Connection:
        """The lock's connection: autocommit (the session, not a transaction, holds the lock,
        and an idle session holds no snapshot), with TCP keepalives so that the server also ends
        the session of a holder whose machine is gone."""
        if self._connection is None:
            from sqlalchemy import create_engine
            from sqlalchemy.pool import NullPool

            self._engine = create_engine(
                self.database_url,
                poolclass=NullPool,
                isolation_level="AUTOCOMMIT",
                connect_args={**KEEPALIVES, "connect_timeout": CONNECT_TIMEOUT_SECONDS},
            )
            self._connection = self._engine.connect()
        return self._connection

    def check(self) -> str | None:
        """None while the lock's session still holds the lock. A lost lock (its session ended:
        the server restarted, or the connection broke) is taken back on a new connection when no
        other service holds it; otherwise why not (another service holds it, named, or the
        server cannot be reached), and the next check tries again."""
        from sqlalchemy.exc import SQLAlchemyError

        if not self._owned:
            return f"the lock of {self.database} is not held"
        if self._still_held():
            return None
        if not self._lost:
            self._lost = True
            logger.warning("lost the lock of %s: its database session ended", self.database)
        self._held = False
        self._close()
        try:
            if self._try_acquire():
                self.record(self._url)
                self._lost = False
                logger.warning("took the lock of %s back", self.database)
                return None
            owner = self._owner()
        except SQLAlchemyError as error:
            self._held = False
            self._close()
            reason = str(error).splitlines()[0]
            return f"the lock of {self.database} is lost and cannot be taken back now: {reason}"
        return (
            f"the lock of {self.database} is lost and another chaplab service holds it "
            f"({owner.describe()})"
        )

    def _still_held(self) -> bool:
        """Whether the lock's session is alive and holds the lock."""
        from sqlalchemy import text
        from sqlalchemy.exc import SQLAlchemyError

        if not self._held or self._connection is None:
            return False
        try:
            held = self._connection.scalar(
                text(
                    "SELECT EXISTS (SELECT FROM pg_locks WHERE locktype = 'advisory' AND granted"
                    " AND pid = pg_backend_pid()"
                    " AND classid::bigint * 4294967296 + objid::bigint = :key)"
                ),
                {"key": ADVISORY_LOCK_KEY},
            )
        except SQLAlchemyError:
            return False
        return bool(held)

    def _owner(self) -> LockOwner:
        from sqlalchemy import text

        connection = self._open()
        names = connection.scalars(
            text(
                "SELECT activity.application_name FROM pg_locks AS locks"
                " JOIN pg_stat_activity AS activity ON activity.pid = locks.pid"
                " WHERE locks.locktype = 'advisory' AND locks.granted"
                " AND locks.database = (SELECT oid FROM pg_database"
                "  WHERE datname = current_database())"
                " AND locks.classid::bigint * 4294967296 + locks.objid::bigint = :key"
            ),
            {"key": ADVISORY_LOCK_KEY},
        ).all()
        return parse_application_name(names[0] if names else None)

    def _give_up(self) -> None:
        self._close()

    def record(self, url: str | None) -> None:
        from sqlalchemy import text

        if not self._held or self._connection is None:
            raise RuntimeError(f"the lock of {self.database} is not held")
        self._url, self._owned = url, True
        self._connection.execute(
            text("SELECT set_config('application_name', :name, false)"),
            {"name": application_name(os.getpid(), url)},
        )

    def release(self) -> None:
        """Let the lock go by ending its session; nothing happens when it is not held."""
        self._owned = False
        if not self._held:
            return
        self._held = False
        self._close()

    def _close(self) -> None:
        connection, self._connection = self._connection, None
        engine, self._engine = self._engine, None
        if connection is not None:
            connection.close()
        if engine is not None:
            engine.dispose()


def application_name(pid: int, url: str | None) -> str:
    """``chaplab-service 1234 http://127.0.0.1:8000``: the owner as the lock's session says it
    (PostgreSQL keeps the first 63 bytes)."""
    return f"{APPLICATION_NAME_PREFIX} {pid}" + (f" {url}" if url else "")


def parse_application_name(name: str | None) -> LockOwner:
    """The owner an ``application_name`` of :func:`application_name` records; unknown fields
    for another name (a session of another program, or one whose name is not visible)."""
    parts = (name or "").split(" ", 2)
    if len(parts) < 2 or parts[0] != APPLICATION_NAME_PREFIX or not parts[1].isdigit():
        return LockOwner(pid=None, url=None)
    return LockOwner(pid=int(parts[1]), url=parts[2] if len(parts) == 3 else None)


@contextmanager
def holding(lock: InstanceLock | None) -> Iterator[None]:
    """Hold ``lock`` for the block; a lock already held stays with whoever took it, and None
    (a database without a lock) holds nothing."""
    if lock is None or lock.held:
        yield
        return
    with lock:
        yield


def current_owner(database: Path) -> LockOwner | None:
    """The service holding the database's lock, or None when no process holds it."""
    try:
        fd = os.open(lock_file(database), os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        free = _try_lock(fd, fcntl.LOCK_SH)
    finally:
        os.close(fd)  # drops the shared lock just taken
    return None if free else read_owner(lock_file(database))


def read_owner(path: Path) -> LockOwner:
    """What a lock file records; unknown fields while it is being written or unreadable."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return LockOwner(pid=None, url=None)
    if not isinstance(record, dict):
        return LockOwner(pid=None, url=None)
    pid, url = record.get("pid"), record.get("url")
    return LockOwner(
        pid=pid if isinstance(pid, int) else None, url=url if isinstance(url, str) else None
    )


def _try_lock(fd: int, operation: int) -> bool:
    """Take ``operation`` (shared or exclusive) on ``fd`` without waiting; whether it was taken."""
    try:
        fcntl.flock(fd, operation | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True
