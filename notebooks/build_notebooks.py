"""Build the notebooks in this folder from their readable sources in ``sources/``.

Each ``sources/<name>.py`` is a percent-format script: ``# %% [markdown]`` starts a markdown cell
(its lines keep their text after the leading ``# ``), ``# %%`` starts a code cell. The build writes
``<name>.ipynb`` with stable cell ids and every output cleared, except on cells marked
``# NBVAL_CHECK_OUTPUT``: their output documents a result and is compared by nbval, so it is kept.

    python notebooks/build_notebooks.py               # rebuild all, keeping stored checked outputs
    python notebooks/build_notebooks.py --execute 05  # run 05_*.ipynb, store its checked outputs
    python notebooks/build_notebooks.py --check       # fail if a notebook differs from its build

Execution uses this interpreter's environment (the kernel runs ``sys.executable``).
"""

from __future__ import annotations

import argparse
import copy
import os
import sys
from collections.abc import Iterable
from pathlib import Path

import nbformat
from nbformat.notebooknode import NotebookNode

NOTEBOOKS = Path(__file__).resolve().parent
SOURCES = NOTEBOOKS / "sources"
CHECK_MARKER = "# NBVAL_CHECK_OUTPUT"
CELL_MARKER = "# %%"
MARKDOWN_MARKER = "# %% [markdown]"
KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
EXECUTION_TIMEOUT_SECONDS = 600


def _cell_blocks(text: str) -> list[tuple[str, list[str]]]:
    """The (kind, lines) of each cell of a percent-format script, in order."""
    blocks: list[tuple[str, list[str]]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip() == MARKDOWN_MARKER:
            blocks.append(("markdown", []))
        elif line.strip() == CELL_MARKER:
            blocks.append(("code", []))
        elif blocks:
            blocks[-1][1].append(line)
        elif line.strip():
            raise ValueError(f"line {number}: text before the first '{CELL_MARKER}' marker")
    return blocks


def _markdown_text(lines: list[str], source: Path) -> str:
    """Markdown lines without their comment prefix (``# text`` or a bare ``#``)."""
    text = []
    for line in lines:
        if line == "#" or line.startswith("# "):
            text.append(line[2:])
        elif line.strip():
            raise ValueError(f"{source.name}: markdown line does not start with '# ': {line!r}")
        else:
            text.append("")
    return "\n".join(text).strip("\n")


def parse_source(source: Path) -> NotebookNode:
    """The notebook described by a percent-format script, outputs empty, ids stable."""
    cells = []
    for index, (kind, lines) in enumerate(_cell_blocks(source.read_text(encoding="utf-8"))):
        if kind == "markdown":
            cell = nbformat.v4.new_markdown_cell(_markdown_text(lines, source))
        else:
            cell = nbformat.v4.new_code_cell("\n".join(lines).strip("\n"))
        cell.id = f"{source.stem[:2]}-{index:02d}"
        cells.append(cell)
    if not cells:
        raise ValueError(f"{source.name}: no cells")
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = dict(KERNELSPEC)
    notebook.metadata["language_info"] = {"name": "python"}
    return notebook


def is_checked(cell: NotebookNode) -> bool:
    return cell.cell_type == "code" and CHECK_MARKER in cell.source


def _normalised_outputs(outputs: Iterable[NotebookNode]) -> list[NotebookNode]:
    """Outputs without per-run metadata, so that rebuilding changes nothing."""
    kept = []
    for output in outputs:
        output = copy.deepcopy(output)
        if "metadata" in output:
            output["metadata"] = {}
        kept.append(output)
    return kept


def keep_checked_outputs(built: NotebookNode, executed: NotebookNode) -> None:
    """Copy the outputs and execution count of checked cells from ``executed`` to the cell of
    ``built`` with the same id and source (nbval compares only cells that ran); every other cell
    stays cleared."""
    by_id = {cell.get("id"): cell for cell in executed.cells}
    for cell in built.cells:
        other = by_id.get(cell.id)
        if is_checked(cell) and other is not None and other.source == cell.source:
            cell.outputs = _normalised_outputs(other.get("outputs", []))
            cell.execution_count = other.get("execution_count")


def execute(notebook: NotebookNode) -> NotebookNode:
    """Run a copy of ``notebook`` top to bottom in a fresh kernel of this environment."""
    from nbclient import NotebookClient

    os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]
    executed = copy.deepcopy(notebook)
    NotebookClient(
        executed,
        timeout=EXECUTION_TIMEOUT_SECONDS,
        kernel_name=KERNELSPEC["name"],
        resources={"metadata": {"path": str(NOTEBOOKS)}},
    ).execute()
    return executed


def build(source: Path, run: bool) -> NotebookNode:
    """The notebook of ``source``; checked outputs come from a run or from the stored notebook."""
    notebook = parse_source(source)
    target = NOTEBOOKS / f"{source.stem}.ipynb"
    if run:
        keep_checked_outputs(notebook, execute(notebook))
    elif target.exists():
        keep_checked_outputs(notebook, nbformat.read(target, as_version=4))
    nbformat.validate(notebook)
    return notebook


def selected_sources(prefixes: list[str]) -> list[Path]:
    sources = sorted(SOURCES.glob("[0-9][0-9]_*.py"))
    if not prefixes:
        return sources
    chosen = [source for source in sources if any(source.stem.startswith(p) for p in prefixes)]
    unknown = [p for p in prefixes if not any(s.stem.startswith(p) for s in sources)]
    if unknown:
        raise SystemExit(f"no notebook source starts with {', '.join(unknown)}")
    return chosen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", help="name prefixes, e.g. 01 05 (default: all)")
    parser.add_argument("--execute", action="store_true", help="run and store checked outputs")
    parser.add_argument("--check", action="store_true", help="only report stale notebooks")
    args = parser.parse_args(argv)
    stale = []
    for source in selected_sources(args.notebooks):
        target = NOTEBOOKS / f"{source.stem}.ipynb"
        text = nbformat.writes(build(source, run=args.execute and not args.check)) + "\n"
        current = target.read_text(encoding="utf-8") if target.exists() else None
        if text == current:
            continue
        if args.check:
            stale.append(target.name)
        else:
            target.write_text(text, encoding="utf-8")
            print(f"wrote {target.relative_to(NOTEBOOKS.parent)}")
    if stale:
        print("not built from sources/: " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
