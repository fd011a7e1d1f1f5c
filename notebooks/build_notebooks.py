"""Build the notebooks in this folder from their paired sources in ``sources/`` with jupytext.

Each ``NN_name.ipynb`` names its pair, the percent-format script ``sources/NN_name.py``, in its
metadata (``jupytext.formats``; ``jupytext.toml`` holds the filters), so a new notebook made in
this folder is paired with nothing.
A cell whose output documents a result is tagged ``# %% tags=["nbval-check-output"]``: nbval
compares its output with the one stored in the notebook, so the build keeps it; every other
output is cleared.

    python notebooks/build_notebooks.py               # rebuild all, keeping stored checked outputs
    python notebooks/build_notebooks.py --execute 05  # run 05_*.ipynb, store its checked outputs

`tests/notebooks/test_notebook_sources.py` fails when a notebook differs from its build.
Execution uses this interpreter's environment (the kernel runs ``sys.executable``) and a fresh
data folder for the embedded service, so stored outputs do not depend on earlier runs.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

import nbformat
from jupytext.cli import jupytext
from nbformat.notebooknode import NotebookNode

NOTEBOOKS = Path(__file__).resolve().parent
CHECK_TAG = "nbval-check-output"
PAIRING = "ipynb,sources//py:percent"
"""The formats a notebook here is paired in: itself and its percent-format script in sources/."""


def is_checked(cell: NotebookNode) -> bool:
    return cell.cell_type == "code" and CHECK_TAG in cell.metadata.get("tags", [])


def clear_unchecked_outputs(notebook: NotebookNode) -> None:
    """Keep the outputs of checked cells, without per-run metadata; clear all others. Cells keep
    only their tags, as in the source, and the notebook only its kernel, whichever Python ran,
    and its pairing."""
    notebook.metadata = nbformat.from_dict(
        {
            "jupytext": {"formats": PAIRING},
            "kernelspec": notebook.metadata.kernelspec,
            "language_info": {"name": "python"},
        }
    )
    for cell in notebook.cells:
        tags = cell.metadata.get("tags")
        cell.metadata = nbformat.from_dict({"tags": tags} if tags else {})
        if cell.cell_type != "code":
            continue
        if is_checked(cell):
            for output in cell.outputs:
                if "metadata" in output:
                    output.metadata = nbformat.from_dict({})
        else:
            cell.outputs = []
            cell.execution_count = None


def build(source: Path, run: bool = False) -> Path:
    """Write the notebook paired with ``source`` (inputs from the source, stored outputs kept;
    run afresh when ``run``) and return its path."""
    target = source.parent.parent / f"{source.stem}.ipynb"
    _jupytext("--update", "--set-kernel", "python3", "--to", "ipynb", "--output", target, source)
    if run:
        _jupytext("--execute", "--to", "ipynb", "--output", target, target)
    notebook = nbformat.read(target, as_version=4)
    clear_unchecked_outputs(notebook)
    nbformat.validate(notebook)
    nbformat.write(notebook, target)
    return target


def _jupytext(*arguments: str | Path) -> None:
    if jupytext(["--quiet", *map(str, arguments)]) != 0:
        raise SystemExit(f"jupytext {' '.join(map(str, arguments))} failed")


def selected_sources(prefixes: list[str]) -> list[Path]:
    sources = sorted((NOTEBOOKS / "sources").glob("[0-9][0-9]_*.py"))
    unknown = [p for p in prefixes if not any(s.stem.startswith(p) for s in sources)]
    if unknown:
        raise SystemExit(f"no notebook source starts with {', '.join(unknown)}")
    return [s for s in sources if not prefixes or any(s.stem.startswith(p) for p in prefixes)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", help="name prefixes, e.g. 01 05 (default: all)")
    parser.add_argument("--execute", action="store_true", help="run and store checked outputs")
    args = parser.parse_args(argv)
    os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]
    with tempfile.TemporaryDirectory(prefix="chaplab-notebooks-") as data_dir:
        os.environ["CHAPLAB_DATA_DIR"] = data_dir
        for source in selected_sources(args.notebooks):
            build(source, run=args.execute)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
