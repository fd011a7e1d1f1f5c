"""Text that names things (org units, features, datasets, models): printable, and shown readably;
any text the service stores: storable.

A control character in a name (a NUL byte, an escape sequence) breaks CSV exports, terminals
and logs long after it was stored, so it is refused when it arrives. Free text (a description,
a message) may hold line breaks and tabs but no NUL character, which PostgreSQL's text types
cannot hold.
"""

from __future__ import annotations

import functools
import re

CONTROL_CHARACTER = re.compile("[\x00-\x1f\x7f-\x9f]")
"""Unicode's control characters (general category Cc): exactly C0, DEL and C1 (U+0000-U+001F,
U+007F-U+009F), a set the Unicode stability policy keeps unchanged."""

CHECKED_NAMES = 4096
"""How many distinct printable names :func:`printable` remembers: an upload repeats its few org
units and features in every observation."""


def control_character_problem(text: str) -> str | None:
    """Why ``text`` cannot be stored (its first control character and where), or None."""
    found = CONTROL_CHARACTER.search(text)
    if found is None:
        return None
    return (
        f"contains the control character {found.group()!r} at position {found.start()}; "
        "names must be printable text"
    )


@functools.lru_cache(maxsize=CHECKED_NAMES)
def printable(text: str) -> str:
    """``text`` itself when it has no control character; ValueError saying where otherwise
    (pydantic turns it into a 422 naming the field). A name found printable is remembered, so
    the org unit repeated in every observation of an upload is checked once."""
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


FEATURE_DESCRIPTIONS = {
    "disease_cases": "Reported cases of the disease per org unit and period (the forecast target).",
    "rainfall": "Total rainfall in the period, in millimetres.",
    "mean_temperature": "Mean air temperature in the period, in degrees Celsius.",
    "population": "Number of people living in the org unit.",
}
"""What the features the models commonly read hold."""


def feature_description(name: str) -> str:
    """What the feature ``name`` holds, as far as the service knows."""
    return FEATURE_DESCRIPTIONS.get(name, f"the feature {name!r} as stored in datasets")
