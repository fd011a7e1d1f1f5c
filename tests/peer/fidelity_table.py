"""Writes the table "Fields compared on both servers" of ``docs/endpoints.md`` from what
``tests/peer/test_fidelity.py`` recorded in its last passing run (``tests/peer/fidelity.json``):
one row per route a DHIS2 client uses, how many fields chap-core 2.5.1's answers held, which of
them ours lacks or types otherwise (none but the deliberate differences listed above it), and
the fields only ours sends.

    python tests/peer/fidelity_table.py           # rewrite the table in docs/endpoints.md
    python tests/peer/fidelity_table.py --check   # exit 1 when the doc differs from the record

``tests/client/test_endpoints_doc.py`` runs the check in ``make test``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))  # run as a file, beside doc_table
from doc_table import replaced, write_or_check  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
RECORD = Path(__file__).with_name("fidelity.json")
DOC = ROOT / "docs" / "endpoints.md"
START = "<!-- fidelity table: written by tests/peer/fidelity_table.py -->"
END = "<!-- end of fidelity table -->"
SHOWN = 6
"""How many of our own extra fields a row names."""


def load(record: Path = RECORD) -> list[dict[str, Any]]:
    """The recorded comparisons, route by route, in the order the routes were called."""
    rows: list[dict[str, Any]] = json.loads(record.read_text())
    return rows


def listed(items: list[str]) -> str:
    """``items`` in code spelling, the first :data:`SHOWN` of them and how many more."""
    if not items:
        return "none"
    shown = ", ".join(f"`{item}`" for item in items[:SHOWN])
    more = len(items) - SHOWN
    return f"{shown} and {more} more" if more > 0 else shown


def render(rows: list[dict[str, Any]]) -> str:
    """The table between the markers (markers included)."""
    lines = [
        START,
        "",
        "| Route | chap-core's fields | ours lacks | other types | only ours sends |",
        "|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| `{row['route']}` | {row['fields']} | {listed(row['missing'])} | "
            f"{listed(row['types'])} | {listed(row['ours_only'])} |"
        )
    return "\n".join([*lines, "", END])


def updated(text: str, table: str) -> str:
    """``text`` with this table replaced."""
    return replaced(text, table, START, END)


def main() -> None:
    write_or_check(DOC, render(load()), START, END, RECORD)


if __name__ == "__main__":
    main()
