"""A test module imports no other test module: what tests share lives in helper modules and
conftests, so every test module runs alone, and in any order."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).parent


def imported_modules(path: Path) -> list[str]:
    """The last part of every module ``path`` imports (``test_steps`` of ``.test_steps``)."""
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module.rsplit(".", 1)[-1])
        elif isinstance(node, ast.ImportFrom):  # from . import test_x
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.Import):
            names += [alias.name.rsplit(".", 1)[-1] for alias in node.names]
    return names


def test_no_test_module_imports_another() -> None:
    offending = {
        str(path.relative_to(TESTS)): [
            name for name in imported_modules(path) if name.startswith("test_")
        ]
        for path in sorted(TESTS.rglob("*.py"))
    }
    assert {path: names for path, names in offending.items() if names} == {}
