"""API keys: where they come from (a list, a key file, an environment variable) and the store
that holds the active set, checks presented keys in constant time and reloads them at run time."""

from __future__ import annotations

import hmac
import logging
import os
import threading
import time
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from chaplab._secrets import key_prefix as key_prefix
from chaplab.toolkit.logs import log_event

DEFAULT_ENV_VAR = "SERVICE_API_KEYS"

logger = logging.getLogger("chaplab.toolkit.auth")


def _clean(keys: Iterable[str]) -> tuple[str, ...]:
    """Strip surrounding whitespace, drop blanks and duplicates, keep the order."""
    return tuple(dict.fromkeys(stripped for key in keys if (stripped := key.strip())))


def parse_key_file_text(text: str) -> tuple[str, ...]:
    """Keys of a key file: one per line; ``#`` lines, blank lines and surrounding space ignored."""
    return _clean(line for line in text.splitlines() if not line.strip().startswith("#"))


class KeySource(Protocol):
    """Where keys come from. ``load`` raises when no key is found."""

    @property
    def description(self) -> str:
        """Where the keys come from, as error messages and logs name it."""
        ...

    def load(self) -> tuple[str, ...]:
        """The keys, cleaned (no blanks, no duplicates), in their order."""
        ...

    def version(self) -> Hashable:
        """A value that changes when the keys may have changed (constant if they cannot)."""
        ...


@dataclass(frozen=True)
class StaticKeys:
    """Keys given directly (``api_keys=[...]``); meant for development and tests."""

    keys: tuple[str, ...]
    description: str = "api_keys"

    def load(self) -> tuple[str, ...]:
        keys = _clean(self.keys)
        if not keys:
            raise ValueError("No API keys configured: api_keys holds no key")
        return keys

    def version(self) -> Hashable:
        return None


@dataclass(frozen=True)
class KeyFileKeys:
    """Keys read from a file, one per line; its modification time tells when to re-read."""

    path: Path

    @property
    def description(self) -> str:
        return f"key file {self.path}"

    def load(self) -> tuple[str, ...]:
        keys = parse_key_file_text(self._read())
        if not keys:
            raise ValueError(f"No API keys configured: the key file {self.path} holds no key")
        return keys

    def _read(self) -> str:
        """The file's text; the errors name the file and say what is wrong with it."""
        try:
            return self.path.read_text(encoding="utf-8-sig")  # a byte-order mark is no key
        except FileNotFoundError:
            raise FileNotFoundError(f"API key file not found: {self.path}") from None
        except IsADirectoryError:
            raise ValueError(f"API key file {self.path} is a folder, not a file") from None
        except UnicodeDecodeError as error:
            raise ValueError(
                f"API key file {self.path} is not UTF-8 text (byte {error.start}: {error.reason})"
            ) from None

    def version(self) -> Hashable:
        try:
            stat = self.path.stat()
        except OSError as error:
            return type(error).__name__
        return (stat.st_mtime_ns, stat.st_size, stat.st_ino)


@dataclass(frozen=True)
class EnvironmentKeys:
    """Keys from an environment variable holding comma-separated keys."""

    env_var: str = DEFAULT_ENV_VAR

    @property
    def description(self) -> str:
        return f"environment variable {self.env_var}"

    def load(self) -> tuple[str, ...]:
        keys = _clean(os.environ.get(self.env_var, "").split(","))
        if not keys:
            raise ValueError(f"No API keys found in {self.env_var}")
        return keys

    def version(self) -> Hashable:
        return None


def key_source(
    api_keys: Iterable[str] | None = None,
    api_key_file: str | os.PathLike[str] | None = None,
    env_var: str = DEFAULT_ENV_VAR,
) -> KeySource:
    """The first non-None of ``api_keys``, ``api_key_file``, then the environment variable."""
    if api_keys is not None:
        if isinstance(api_keys, (str, bytes)):
            raise TypeError("api_keys must be a list of strings, not a single string")
        keys = tuple(api_keys)
        wrong = [key for key in keys if not isinstance(key, str)]
        if wrong:
            raise TypeError(f"api_keys must hold strings; got {type(wrong[0]).__name__}")
        return StaticKeys(keys)
    if api_key_file is not None:
        if not os.fspath(api_key_file):
            raise ValueError("API key file path is empty: api_key_file must name a key file")
        return KeyFileKeys(Path(api_key_file))
    if not env_var:
        raise ValueError("env_var must name an environment variable")
    return EnvironmentKeys(env_var)


class ApiKeyStore:
    """The active keys of a service.

    Several keys are active at once so that keys rotate without downtime. ``match`` compares a
    presented key with every active key in constant time. ``reload()`` re-reads the source now;
    ``request_reload()`` (for a SIGHUP handler) has the next request re-read it;
    ``refresh_if_changed()`` re-reads it when asked to or when its version (a key file's mtime)
    changed, checking at most once per ``check_interval`` seconds; ``replace(keys)`` swaps the
    set directly. A reload that finds no key or cannot read the source keeps the old keys and
    logs a warning. Creating the store loads the keys and raises when none is found.
    """

    def __init__(
        self,
        source: KeySource,
        *,
        check_interval: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.source = source
        self.check_interval = check_interval
        self._clock = clock
        self._lock = threading.Lock()
        self._version = source.version()
        self._keys = self._encode(source.load())
        self._last_check = clock()
        self._reload_requested = False
        log_event(
            logger,
            logging.INFO,
            "auth.keys_loaded",
            key_count=len(self._keys),
            source=source.description,
        )

    @staticmethod
    def _encode(keys: Iterable[str]) -> tuple[bytes, ...]:
        return tuple(key.encode("utf-8") for key in keys)

    def __len__(self) -> int:
        return len(self._keys)

    def match(self, presented: bytes) -> bool:
        """Whether ``presented`` is an active key; every key is compared, in constant time."""
        found = False
        for key in self._keys:
            found |= hmac.compare_digest(presented, key)
        return found

    def replace(self, keys: Iterable[str]) -> None:
        """Make ``keys`` the active set; raises ValueError (keeping the old set) if it is empty."""
        encoded = self._encode(_clean(keys))
        if not encoded:
            raise ValueError("No API keys configured: replace() got no key")
        with self._lock:
            self._keys = encoded

    def reload(self) -> bool:
        """Re-read the source. True if the keys were replaced; on failure keep the old ones."""
        with self._lock:
            self._version = self.source.version()
            try:
                keys = self._encode(self.source.load())
            except (OSError, ValueError) as error:
                log_event(
                    logger,
                    logging.WARNING,
                    "auth.reload_failed",
                    source=self.source.description,
                    reason=str(error),
                    key_count=len(self._keys),
                )
                return False
            self._keys = keys
        log_event(
            logger,
            logging.INFO,
            "auth.keys_reloaded",
            key_count=len(keys),
            source=self.source.description,
        )
        return True

    def request_reload(self) -> None:
        """Have the next request re-read the source, whatever its version says.

        Safe in a signal handler: it only sets a flag. A handler that reloaded itself could
        interrupt a reload in progress on the same thread and wait forever for its lock."""
        self._reload_requested = True

    def refresh_if_changed(self) -> bool:
        """Reload if asked to, or if the source changed since the last look (looking at most once
        per ``check_interval``)."""
        if self._reload_requested:
            self._reload_requested = False
            return self.reload()
        now = self._clock()
        if now - self._last_check < self.check_interval:
            return False
        self._last_check = now
        if self.source.version() == self._version:
            return False
        return self.reload()
