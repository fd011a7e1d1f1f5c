"""How much of a secret may be shown: shared by the client and the toolkit, with no dependencies
(the client must not import the toolkit, which needs the optional service extra)."""

from __future__ import annotations

PREFIX_LENGTH = 7


def key_prefix(key: str) -> str:
    """The loggable part of a key: its first 7 characters (at most half of a very short key)."""
    return key[: min(PREFIX_LENGTH, len(key) // 2)]
