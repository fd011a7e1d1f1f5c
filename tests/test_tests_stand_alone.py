"""A test module imports no other test module and no conftest: what tests share lives in helper
modules (fixtures in conftests, which pytest alone loads), so every test module runs alone, and in
any order."""

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


def is_test_module(name: str) -> bool:
    """Whether ``name`` is a module pytest collects or loads itself: a test module or a conftest."""
    return name.startswith("test_") or name == "conftest"


def test_no_test_module_imports_another_or_a_conftest() -> None:
    offending = {
        str(path.relative_to(TESTS)): [
            name for name in imported_modules(path) if is_test_module(name)
        ]
        for path in sorted(TESTS.rglob("*.py"))
    }
    assert {path: names for path, names in offending.items() if names} == {}
