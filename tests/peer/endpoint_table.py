"""Writes the "On each server" table of ``docs/endpoints.md`` from the outcomes that
``tests/peer/test_every_method.py`` recorded (``tests/peer/outcomes/<server>.json``): one row
per client method, one column per server, each cell "works" or what to call instead.

    python tests/peer/endpoint_table.py           # rewrite the table in docs/endpoints.md
    python tests/peer/endpoint_table.py --check   # exit 1 when the doc differs from the outcomes

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
OUTCOMES = Path(__file__).with_name("outcomes")
DOC = ROOT / "docs" / "endpoints.md"
START = "<!-- server table: written by tests/peer/endpoint_table.py -->"
END = "<!-- end of server table -->"


def load(folder: Path = OUTCOMES) -> list[dict[str, Any]]:
    """The recorded outcomes, the embedded service's first, then the others by name."""
    documents = [json.loads(path.read_text()) for path in sorted(folder.glob("*.json"))]
    return sorted(documents, key=lambda d: (not d["server"].startswith("chaplab"), d["server"]))


def cell(calls: list[dict[str, str]] | None) -> str:
    """One method on one server: ``works``, or per call what to use instead."""
    if not calls:
        return "not run"
    if all(call["outcome"] == "works" for call in calls):
        return "works"
    alternatives = {call.get("alternative") for call in calls}
    if all(call["outcome"] == "unsupported" for call in calls) and len(alternatives) == 1:
        return "unsupported; instead: " + calls[0]["alternative"].replace("|", "\\|")
    parts = []
    for call in calls:
        if call["outcome"] == "works":
            parts.append(f"`{call['call']}` works")
        else:
            alternative = call["alternative"].replace("|", "\\|")
            parts.append(f"`{call['call']}` unsupported; instead: {alternative}")
    return "<br>".join(parts)


def render(documents: list[dict[str, Any]]) -> str:
    """The table between the markers (markers included)."""
    servers = [document["server"] for document in documents]
    methods = sorted({name for document in documents for name in document["methods"]})
    lines = [
        START,
        "",
        "| Client method | " + " | ".join(servers) + " |",
        "|---|" + "---|" * len(servers),
    ]
    for name in methods:
        cells = [cell(document["methods"].get(name)) for document in documents]
        lines.append(f"| `{name}` | " + " | ".join(cells) + " |")
    return "\n".join([*lines, "", END])


def updated(text: str, table: str) -> str:
    """``text`` with this table replaced."""
    return replaced(text, table, START, END)


def main() -> None:
    write_or_check(DOC, render(load()), START, END, OUTCOMES)


if __name__ == "__main__":
    main()
