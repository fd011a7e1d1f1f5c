"""Text that names things (org units, features, datasets, models): printable, and shown readably;
any text the service stores: storable.

A control character in a name (a NUL byte, an escape sequence) breaks CSV exports, terminals
and logs long after it was stored, so it is refused when it arrives. Free text (a description,
a message) may hold line breaks and tabs but no NUL character, which PostgreSQL's text types
cannot hold.
"""

from __future__ import annotations

import unicodedata


def control_character_problem(text: str) -> str | None:
    """Why ``text`` cannot be stored (its first control character and where), or None."""
    for position, character in enumerate(text):
        if unicodedata.category(character) == "Cc":
            return (
                f"contains the control character {character!r} at position {position}; "
                "names must be printable text"
            )
    return None


def printable(text: str) -> str:
    """``text`` itself when it has no control character; ValueError saying where otherwise
    (pydantic turns it into a 422 naming the field)."""
    problem = control_character_problem(text)
    if problem is not None:
        raise ValueError(problem)
    return text


def storable(text: str) -> str:
    """``text`` itself when it has no NUL character; ValueError saying where otherwise (pydantic
    turns it into a 422 naming the field)."""
    position = text.find("\x00")
    if position >= 0:
        raise ValueError(
            f"contains a NUL character at position {position}; text must not contain NUL"
        )
    return text


def display_name(name: str) -> str:
    """``mean_temperature`` -> ``Mean temperature``."""
    return name.replace("_", " ").capitalize()
