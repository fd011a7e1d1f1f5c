"""The committed notebooks are the build of notebooks/sources/: outputs stored only where checked.

A notebook edited in JupyterLab and saved with its outputs, or a source changed without
rebuilding, fails here; `python notebooks/build_notebooks.py` rebuilds (add `--execute` to store
the checked outputs afresh).
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path
from types import ModuleType

import jupytext
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
SOURCE_FILES = sorted((NOTEBOOKS / "sources").glob("[0-9][0-9]_*.py"))


def sources_folder(folder: Path) -> Path:
    """``folder`` laid out as notebooks/ (the pairing configuration, ``sources/``); returns its
    ``sources/``."""
    (folder / "sources").mkdir(exist_ok=True)
    shutil.copy(NOTEBOOKS / "jupytext.toml", folder / "jupytext.toml")
    return folder / "sources"


def paired_copy(folder: Path, source: Path) -> tuple[Path, Path]:
    """Copies of ``source`` and its notebook, laid out as in notebooks/; returns (source,
    notebook) of the copy."""
    sources_folder(folder)
    notebook = NOTEBOOKS / f"{source.stem}.ipynb"
    if notebook.exists():
        shutil.copy(notebook, folder / notebook.name)
    shutil.copy(source, folder / "sources" / source.name)
    return folder / "sources" / source.name, folder / notebook.name


def test_every_source_has_its_notebook_and_every_notebook_its_source() -> None:
    sources = {path.stem for path in SOURCE_FILES}
    assert sources == {path.stem for path in NOTEBOOK_FILES}
    assert len(sources) >= 8


@pytest.mark.parametrize("source", SOURCE_FILES, ids=lambda path: path.stem)
def test_committed_notebook_equals_its_build_from_source(tmp_path: Path, source: Path) -> None:
    copied_source, copied_notebook = paired_copy(tmp_path, source)

    builder.build(copied_source)

    committed = NOTEBOOKS / f"{source.stem}.ipynb"
    assert copied_notebook.read_text(encoding="utf-8") == committed.read_text(encoding="utf-8")


@pytest.mark.parametrize("path", NOTEBOOK_FILES, ids=lambda path: path.stem)
def test_source_written_from_notebook_is_the_committed_source(path: Path) -> None:
    """The pairing round-trips: JupyterLab with jupytext, saving a notebook, writes its source
    unchanged (no header, no cell metadata but tags)."""
    notebook = jupytext.read(path)
    config = jupytext.config.load_jupytext_config(str(NOTEBOOKS))
    assert config is not None
    fmt = {"extension": ".py", "format_name": "percent"}
    config.set_default_format_options(fmt)
    notebook.metadata.setdefault("jupytext", {}).update(
        notebook_metadata_filter=config.notebook_metadata_filter,
        cell_metadata_filter=config.cell_metadata_filter,
    )

    written = jupytext.writes(notebook, fmt=fmt)

    assert written == (NOTEBOOKS / "sources" / f"{path.stem}.py").read_text(encoding="utf-8")


@pytest.mark.parametrize("path", NOTEBOOK_FILES, ids=lambda path: path.stem)
def test_outputs_are_stored_only_on_checked_cells(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    code_cells = [cell for cell in notebook.cells if cell.cell_type == "code"]
    for cell in code_cells:
        if builder.is_checked(cell):
            assert cell.outputs and cell.execution_count is not None, cell.id
        else:
            assert not cell.outputs and cell.execution_count is None, cell.id
    assert all(output.output_type != "error" for cell in code_cells for output in cell.outputs)


@pytest.mark.parametrize("path", NOTEBOOK_FILES, ids=lambda path: path.stem)
def test_every_notebook_checks_at_least_one_result(path: Path) -> None:
    """Each executed notebook compares some deterministic output, not only that cells ran."""
    notebook = nbformat.read(path, as_version=4)
    assert any(builder.is_checked(cell) for cell in notebook.cells), path.name


@pytest.mark.parametrize("path", NOTEBOOK_FILES, ids=lambda path: path.stem)
def test_notebooks_show_no_test_comments(path: Path) -> None:
    """nbval's checks are cell tags, so a reader sees none of its comment markers."""
    notebook = nbformat.read(path, as_version=4)
    assert not [cell.id for cell in notebook.cells if "NBVAL" in cell.source]


def test_a_new_source_builds_a_notebook_with_tagged_checks_and_a_kernel(tmp_path: Path) -> None:
    source = sources_folder(tmp_path) / "97_example.py"
    source.write_text(
        "# %% [markdown]\n# # Title\n#\n# Some *text*.\n\n"
        "# %%\nx = 1\n\nprint(x)\n\n"
        '# %% tags=["nbval-check-output"]\nprint(2)\n'
    )

    notebook = nbformat.read(builder.build(source), as_version=4)

    assert [(cell.cell_type, cell.source) for cell in notebook.cells] == [
        ("markdown", "# Title\n\nSome *text*."),
        ("code", "x = 1\n\nprint(x)"),
        ("code", "print(2)"),
    ]
    assert [builder.is_checked(cell) for cell in notebook.cells] == [False, False, True]
    assert notebook.metadata.kernelspec.name == "python3"


def displayed(text: str, metadata: dict[str, object]) -> nbformat.NotebookNode:
    return nbformat.v4.new_output("display_data", data={"text/plain": text}, metadata=metadata)


def test_rebuild_keeps_checked_outputs_and_clears_the_others(tmp_path: Path) -> None:
    """A notebook saved with every output (as JupyterLab saves it) and an edited source: the
    build keeps the checked cells' outputs (without per-run metadata) and clears the rest."""
    source = sources_folder(tmp_path) / "98_example.py"
    source.write_text(
        '# %% tags=["nbval-check-output"]\nprint(1)\n\n'
        "# %% [markdown]\n# A new paragraph.\n\n"
        "# %%\nprint(4)\n"
    )
    saved = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell(
                "print(1)", id="a", execution_count=1, metadata={"tags": [builder.CHECK_TAG]}
            ),
            nbformat.v4.new_code_cell("print(4)", id="b", execution_count=2),
        ]
    )
    for count, cell in enumerate(saved.cells, start=1):
        cell.outputs = [displayed(str(count), {"run": count})]
        cell.metadata["scrolled"] = True
    nbformat.write(saved, tmp_path / "98_example.ipynb")

    built = nbformat.read(builder.build(source), as_version=4)

    code_cells = [cell for cell in built.cells if cell.cell_type == "code"]
    assert [cell.id for cell in code_cells] == ["a", "b"]
    assert code_cells[0].outputs == [displayed("1", {})]
    assert [cell.execution_count for cell in code_cells] == [1, None]
    assert code_cells[1].outputs == []
    assert [cell.metadata for cell in code_cells] == [{"tags": [builder.CHECK_TAG]}, {}]
    assert built.cells[1].source == "A new paragraph."
