"""``ChapClient`` and ``AsyncChapClient``: the same methods over every operation, each with
the operation's signature, docstring and result type; a light import."""

from __future__ import annotations

import ast
import inspect
import subprocess
import sys
from pathlib import Path

from chaplab.client import AsyncChapClient, ChapClient
from chaplab.client._async import AsyncDriver
from chaplab.client._driver import operations
from chaplab.client._sync import SyncDriver

EVERY_METHOD_SCRIPT = Path(__file__).parents[1] / "typecheck" / "every_method.py"


def test_import_does_not_load_pandas() -> None:
    code = "import sys, chaplab.client; print('pandas' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"


def _public_methods(cls: type, driver: type) -> set[str]:
    """The public methods a client class adds to its driver."""
    return {name for name in vars(cls) if not name.startswith("_")} - set(dir(driver))


def test_both_clients_have_exactly_the_operations() -> None:
    names = set(operations())
    assert len(names) >= 70
    assert _public_methods(ChapClient, SyncDriver) == names
    assert _public_methods(AsyncChapClient, AsyncDriver) == names


def test_both_drivers_have_every_operation_with_its_signature() -> None:
    for name, entry in operations().items():
        function = entry.function
        sync_method, async_method = getattr(ChapClient, name), getattr(AsyncChapClient, name)
        assert inspect.iscoroutinefunction(async_method)
        assert not inspect.iscoroutinefunction(sync_method)
        assert inspect.signature(sync_method) == inspect.signature(async_method)
        assert sync_method.__doc__ == async_method.__doc__ == function.__doc__
        assert "Operation[" not in str(inspect.signature(sync_method))
        operation = inspect.signature(function)
        result = operation.return_annotation
        assert result.startswith("Operation[") and result.endswith("]")
        assert inspect.signature(sync_method) == operation.replace(
            return_annotation=result[len("Operation[") : -1]
        ), name


def test_the_type_checked_script_calls_every_method_sync_and_async() -> None:
    tree = ast.parse(EVERY_METHOD_SCRIPT.read_text())
    called: dict[str, set[str]] = {}
    for function in tree.body:
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            called[function.name] = {
                node.func.attr
                for node in ast.walk(function)
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            }
    names = set(operations())
    assert names <= called["every_sync_method"]
    assert names <= called["every_async_method"]
