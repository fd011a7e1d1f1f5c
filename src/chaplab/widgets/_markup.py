"""The few pieces of HTML the panel writes: coloured messages, escaped once, here."""

from __future__ import annotations

import html

RED = "#b00020"
GREEN = "#1b7a1b"
AMBER = "#8a5a00"
GREY = "#555"  # a note: what is going on, not a problem


def message(text: str, colour: str = RED, *, alert: bool = False) -> str:
    """``text`` escaped, in ``colour``, line breaks kept; ``alert`` makes screen readers
    announce it. An empty text gives an empty string."""
    if not text:
        return ""
    role = ' role="alert"' if alert else ""
    return f'<div{role} style="color:{colour};white-space:pre-wrap">{html.escape(text)}</div>'
