"""The Python snippets of the docs run as written: every ```python block of a page, in order, in
one namespace (a page's later block may use an earlier one's names), against the embedded
service (``CHAP_URL`` set to it), as a reader pasting them into a notebook would. A snippet that
uses a name it never defines (``pd``, ``dataset``, ``naive``) fails here.

``PAGES`` are the pages whose snippets are a runnable walk-through; the reference pages whose
blocks show a call's shape beside its explanation (the client's, the toolkit's) are checked by
their own tests."""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib
import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = ["backtesting.md"]


def python_blocks(text: str) -> list[str]:
    """The page's ```python blocks, in order."""
    return re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)


@pytest.mark.integration
@pytest.mark.parametrize("page", PAGES)
def test_the_pages_python_snippets_run_as_written(
    page: str, service_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    matplotlib.use("Agg")
    monkeypatch.setenv("CHAP_URL", service_url)
    blocks = python_blocks((DOCS / page).read_text())
    assert blocks, f"{page} has no python snippet"
    namespace: dict[str, object] = {}
    for number, block in enumerate(blocks, start=1):
        exec(compile(block, f"{page}, snippet {number}", "exec"), namespace)
