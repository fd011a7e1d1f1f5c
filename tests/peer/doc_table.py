"""A table of ``docs/endpoints.md`` between its two markers, written from a record of peer runs:
rewritten by its script, or checked (``--check``) against what the record gives."""

from __future__ import annotations

import sys
from pathlib import Path


def replaced(text: str, table: str, start: str, end: str) -> str:
    """``text`` with the table from marker ``start`` through marker ``end`` replaced."""
    first, last = text.index(start), text.index(end) + len(end)
    return text[:first] + table + text[last:]


def write_or_check(doc: Path, table: str, start: str, end: str, record: Path) -> None:
    """Write ``table`` into ``doc``, or with ``--check`` exit 1 naming the script to run when
    ``doc`` holds another table."""
    text = doc.read_text()
    new = replaced(text, table, start, end)
    if "--check" in sys.argv[1:]:
        if new != text:
            sys.exit(f"{doc} differs from {record}: run python {sys.argv[0]}")
        return
    doc.write_text(new)
