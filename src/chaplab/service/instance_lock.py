"""One service per SQLite database file: an exclusive lock on ``<database>.lock``.

A service holds an exclusive ``flock`` on the sidecar file for as long as it runs, and writes
its pid and, when known, its URL into it. A second service on the same file fails to take the
lock and refuses to start, so it never fails the first service's running jobs as "interrupted"
nor runs its queued ones. The kernel drops the lock when the holder's process ends, however it
ends (SIGKILL included), so a crash leaves no stale lock; the file itself stays and is harmless.
The file is never deleted: a new file beside a held one would let a second service in.

In-memory SQLite and other databases (PostgreSQL, ...) get no lock: there, running one service
per database is the operator's responsibility.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Self

LOCK_SUFFIX = ".lock"
# A lock held only for an instant (a reader checking who serves the file, or a new owner
# between taking the lock and writing its pid) is waited out for this long before refusing.
BRIEF_HOLD_SECONDS = 0.5
RETRY_INTERVAL_SECONDS = 0.02


@dataclass(frozen=True)
class LockOwner:
    """The service holding a database's lock, as its lock file says (None: not written yet)."""

    pid: int | None
    url: str | None

    def describe(self) -> str:
        """``pid 1234, http://127.0.0.1:8000`` with "unknown" for what is not recorded."""
        pid = self.pid if self.pid is not None else "unknown"
        return f"pid {pid}, {self.url or 'address unknown'}"


class DatabaseInUseError(RuntimeError):
    """Another chaplab service holds the database's lock."""

    def __init__(self, database: Path, owner: LockOwner) -> None:
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


class InstanceLock:
    """The exclusive lock on one database file; ``acquire`` it before touching the jobs."""

    def __init__(self, database: Path) -> None:
        self.database = database
        self.path = lock_file(database)
        self._fd: int | None = None

    @classmethod
    def for_url(cls, database_url: str) -> InstanceLock | None:
        """The lock of a SQLite file database; None where no lock applies (see the module)."""
        database = sqlite_file(database_url)
        return None if database is None else cls(database)

    @property
    def held(self) -> bool:
        """Whether this object holds the lock."""
        return self._fd is not None

    def acquire(self, url: str | None = None) -> None:
        """Take the lock without waiting for another service and record this process in it.

        Raises :class:`DatabaseInUseError` naming the owner when another service holds it."""
        if self._fd is not None:
            raise RuntimeError(f"the lock {self.path} is already held")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + BRIEF_HOLD_SECONDS
        while not _try_lock(fd, fcntl.LOCK_EX):
            if time.monotonic() > deadline:
                os.close(fd)
                raise DatabaseInUseError(self.database, read_owner(self.path))
            time.sleep(RETRY_INTERVAL_SECONDS)
        self._fd = fd
        self.record(url)

    def record(self, url: str | None) -> None:
        """Write this process's pid and ``url`` (None: not known yet) into the held lock file."""
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

    def __enter__(self) -> Self:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.release()


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
