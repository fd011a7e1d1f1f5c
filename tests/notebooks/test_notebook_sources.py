"""The committed notebooks are the build of notebooks/sources/: outputs stored only where checked.

A notebook edited in JupyterLab and saved with its outputs, or a source changed without
rebuilding, fails here; `python notebooks/build_notebooks.py` rebuilds (add `--execute` to store
the checked outputs afresh).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import nbformat
import pytest

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


def load_builder() -> ModuleType:
    script = NOTEBOOKS / "build_notebooks.py"
    spec = importlib.util.spec_from_file_location("build_notebooks", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


builder = load_builder()
NOTEBOOK_FILES = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


def test_every_source_has_its_notebook_and_every_notebook_its_source() -> None:
    sources = {path.stem for path in (NOTEBOOKS / "sources").glob("[0-9][0-9]_*.py")}
    assert sources == {path.stem for path in NOTEBOOK_FILES}
    assert len(sources) == 8


def test_committed_notebooks_equal_their_build_from_sources() -> None:
    assert builder.main(["--check"]) == 0


@pytest.mark.parametrize("path", NOTEBOOK_FILES, ids=lambda path: path.stem)
def test_outputs_are_stored_only_on_checked_cells(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    code_cells = [cell for cell in notebook.cells if cell.cell_type == "code"]
    for cell in code_cells:
        if builder.CHECK_MARKER in cell.source:
            assert cell.outputs and cell.execution_count is not None, cell.id
        else:
            assert not cell.outputs and cell.execution_count is None, cell.id
    assert all(output.output_type != "error" for cell in code_cells for output in cell.outputs)


@pytest.mark.parametrize("path", NOTEBOOK_FILES, ids=lambda path: path.stem)
def test_every_notebook_checks_at_least_one_result(path: Path) -> None:
    """Each executed notebook compares some deterministic output, not only that cells ran."""
    notebook = nbformat.read(path, as_version=4)
    assert any(builder.is_checked(cell) for cell in notebook.cells), path.name


def test_percent_source_splits_into_markdown_and_code_cells(tmp_path: Path) -> None:
    source = tmp_path / "07_example.py"
    source.write_text(
        "# %% [markdown]\n# # Title\n#\n# Some *text*.\n\n"
        "# %%\nx = 1\n\nprint(x)\n\n"
        "# %%\n# NBVAL_CHECK_OUTPUT\nprint(2)\n"
    )

    notebook = builder.parse_source(source)

    assert [(cell.cell_type, cell.source) for cell in notebook.cells] == [
        ("markdown", "# Title\n\nSome *text*."),
        ("code", "x = 1\n\nprint(x)"),
        ("code", "# NBVAL_CHECK_OUTPUT\nprint(2)"),
    ]
    assert [cell.id for cell in notebook.cells] == ["07-00", "07-01", "07-02"]
    assert [builder.is_checked(cell) for cell in notebook.cells] == [False, False, True]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("x = 1\n# %%\n", "line 1: text before the first"),
        ("# %% [markdown]\nnot a comment\n", "markdown line does not start with '# '"),
    ],
)
def test_malformed_sources_are_refused_naming_the_line(
    tmp_path: Path, text: str, message: str
) -> None:
    source = tmp_path / "08_broken.py"
    source.write_text(text)

    with pytest.raises(ValueError, match=message):
        builder.parse_source(source)


def test_rebuild_keeps_checked_outputs_only_for_unchanged_cells() -> None:
    built = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell("# NBVAL_CHECK_OUTPUT\nprint(1)", id="09-00"),
            nbformat.v4.new_code_cell("# NBVAL_CHECK_OUTPUT\nprint(3)", id="09-01"),
            nbformat.v4.new_code_cell("print(4)", id="09-02"),
        ]
    )
    executed = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell(
                "# NBVAL_CHECK_OUTPUT\nprint(1)", id="09-00", execution_count=1
            ),
            nbformat.v4.new_code_cell(
                "# NBVAL_CHECK_OUTPUT\nprint(2)", id="09-01", execution_count=2
            ),
            nbformat.v4.new_code_cell("print(4)", id="09-02", execution_count=3),
        ]
    )
    for count, cell in enumerate(executed.cells, start=1):
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=f"{count}\n")]

    builder.keep_checked_outputs(built, executed)

    assert [cell.outputs for cell in built.cells] == [executed.cells[0].outputs, [], []]
    assert [cell.execution_count for cell in built.cells] == [1, None, None]
