"""Opening the repository's notebooks in JupyterLab writes nothing: the server completes the
language details a kernel would change (chaplab.jupyter_server_extension, so the notebook is not
marked changed and autosaved), and only our notebooks are paired with a source in sources/ (a
new notebook made in notebooks/ is not). The browser gate (tests/browser/
test_notebooks_read_well.py) opens each notebook in JupyterLab and checks it stays unchanged."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import nbformat
import pytest
from jupyter_server.services.contents.filemanager import FileContentsManager
from jupytext.sync_contentsmanager import (
    TextFileContentsManager,
    build_sync_jupytext_contents_manager_class,
)

from chaplab.jupyter_server_extension import (
    BARE_LANGUAGE_INFO,
    completing,
    kernel_language_info,
    with_kernel_language_info,
)

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
NOTEBOOK_FILES = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


def notebook_model(language_info: dict[str, object], language: str = "python") -> dict:
    content = nbformat.v4.new_notebook()
    content.metadata = {
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": language},
        "language_info": language_info,
    }
    return {"type": "notebook", "content": content}


def test_a_kernel_reports_this_pythons_version() -> None:
    details = kernel_language_info()
    assert details is not None
    assert details["name"] == "python"
    assert details["version"] == ".".join(map(str, sys.version_info[:3]))


@pytest.mark.parametrize("path", NOTEBOOK_FILES, ids=lambda path: path.stem)
def test_our_notebooks_are_read_with_what_their_kernel_will_report(path: Path) -> None:
    details = kernel_language_info()
    assert details is not None
    content = nbformat.read(path, as_version=4)
    assert content.metadata.language_info == BARE_LANGUAGE_INFO  # the reader's Python decides

    model = with_kernel_language_info({"type": "notebook", "content": content}, details)

    assert model["content"].metadata.language_info == details


@pytest.mark.parametrize(
    "model",
    [
        notebook_model({"name": "python", "version": "3.9.1"}),  # its own details
        notebook_model(BARE_LANGUAGE_INFO, language="R"),
        {"type": "file", "content": "{}"},
        {"type": "notebook", "content": None},  # listed without its content
    ],
    ids=["own details", "another language", "a file", "no content"],
)
def test_other_notebooks_are_read_as_they_are(model: dict) -> None:
    before = repr(model)
    assert with_kernel_language_info(model, {"name": "python", "version": "3.11.7"}) is model
    assert repr(model) == before


@pytest.mark.parametrize("order", ["completed, then paired", "paired, then completed"])
def test_the_server_reads_our_notebooks_completed_whichever_extension_loads_first(
    order: str,
) -> None:
    details = kernel_language_info()
    assert details is not None
    if order == "completed, then paired":  # jupytext derives its manager from ours
        manager_class = build_sync_jupytext_contents_manager_class(
            completing(FileContentsManager, details)
        )
    else:
        manager_class = completing(TextFileContentsManager, details)
    manager = manager_class(root_dir=str(NOTEBOOKS))

    model = manager.get("01_quickstart.ipynb")

    assert model["content"]["metadata"]["language_info"] == details
    assert model["content"]["metadata"]["jupytext"]["formats"] == "ipynb,sources//py:percent"


def test_every_jupyter_server_of_the_environment_loads_the_extension() -> None:
    from jupyter_core.paths import jupyter_config_path

    enabled = [
        Path(folder) / "jupyter_server_config.d" / "chaplab.json"
        for folder in jupyter_config_path()
    ]
    found = [path for path in enabled if path.exists()]
    assert found, "chaplab.json is not in any jupyter_server_config.d"
    assert '"chaplab.jupyter_server_extension": true' in found[0].read_text()


@pytest.fixture
def notebooks_copy(tmp_path: Path) -> Path:
    """A copy of notebooks/ (notebooks, sources, pairing configuration)."""
    shutil.copytree(NOTEBOOKS, tmp_path / "notebooks", ignore=shutil.ignore_patterns("*.pyc"))
    return tmp_path / "notebooks"


def test_a_new_notebook_is_paired_with_nothing(notebooks_copy: Path) -> None:
    manager = TextFileContentsManager(root_dir=str(notebooks_copy))
    before = sorted(path.name for path in (notebooks_copy / "sources").iterdir())

    created = manager.new_untitled(type="notebook")
    model = manager.get(created["path"])
    model["content"]["cells"] = [nbformat.v4.new_code_cell("1 + 1")]
    manager.save(model, created["path"])

    assert (notebooks_copy / created["path"]).exists()
    assert sorted(path.name for path in (notebooks_copy / "sources").iterdir()) == before


def test_our_notebooks_save_their_source_too(notebooks_copy: Path) -> None:
    manager = TextFileContentsManager(root_dir=str(notebooks_copy))
    source = notebooks_copy / "sources" / "05_configuration_schemas.py"
    model = manager.get("05_configuration_schemas.ipynb")
    model["content"]["cells"].append(nbformat.v4.new_code_cell("print('a new cell')"))

    manager.save(model, "05_configuration_schemas.ipynb")

    assert source.read_text().endswith("# %%\nprint('a new cell')\n")
