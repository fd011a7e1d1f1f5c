"""Charts in a notebook kernel: the inline backend shows the Figure as an image and ipympl as
an interactive widget, each exactly once: assigned, as a cell's last value, or with ``;``."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

TESTS = Path(__file__).resolve().parents[1]
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def run_cells(*sources: str) -> list[list[dict]]:
    """Run ``sources`` as the cells of a notebook in a fresh kernel of this environment; the
    outputs of each cell."""
    cells = [
        f"import sys\nsys.path.insert(0, {str(TESTS)!r})\n"
        "from plotting.cases import evaluation\n"
        "from chaplab.plotting import fan_chart\n"
        "frame, actuals = evaluation()",
        *sources,
    ]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    NotebookClient(notebook, kernel_name="python3", timeout=120).execute()
    return [list(cell.outputs) for cell in notebook.cells[1:]]


@pytest.fixture(autouse=True)
def kernel_of_this_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ``python3`` kernel runs the interpreter found first on PATH: this one."""
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"])
    monkeypatch.delenv("MPLBACKEND", raising=False)


def test_inline_shows_a_chart_once_as_an_image() -> None:
    (assigned, bare_with_semicolon, bare, shown_again) = run_cells(
        "figure = fan_chart(frame, actuals)",
        "fan_chart(frame, actuals);",
        "fan_chart(frame, actuals)",
        "figure",
    )
    for outputs in (assigned, bare_with_semicolon, bare, shown_again):
        assert [output["output_type"] for output in outputs] == ["display_data"]
        assert outputs[0]["data"]["image/png"]


def test_inline_shows_each_chart_of_a_cell_once() -> None:
    (outputs,) = run_cells("first = fan_chart(frame, actuals)\nfan_chart(frame, actuals)")
    assert [output["output_type"] for output in outputs] == ["display_data"] * 2
    assert all(output["data"]["image/png"] for output in outputs)


def test_ipympl_shows_a_chart_once_as_an_interactive_canvas() -> None:
    (_, assigned, bare, canvas) = run_cells(
        "%matplotlib widget",
        "figure = fan_chart(frame, actuals)",
        "fan_chart(frame, actuals)",
        "print(type(figure.canvas).__module__)",
    )
    for outputs in (assigned, bare):
        assert [output["output_type"] for output in outputs] == ["display_data"]
        assert WIDGET_VIEW in outputs[0]["data"]
    assert canvas[0]["text"].strip() == "ipympl.backend_nbagg"
