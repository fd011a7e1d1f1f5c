"""A Jupyter server extension: opening one of chaplab's notebooks does not mark it changed.

When a notebook's kernel starts, JupyterLab writes the kernel's ``language_info`` (Python's
version, mimetype, lexer) into the notebook's metadata, and a notebook whose stored details
differ becomes "changed": JupyterLab asks to save it and autosaves it, outputs included, into
the file that was only opened. chaplab's notebooks store ``{"name": "python"}`` alone (the
version is the reader's Python, not the author's), so when the server reads a notebook stored so,
this extension fills in what this Python's kernel reports. A notebook with details of its own,
or of another language, is read as it is.

Enabled for every Jupyter server of the environment chaplab is installed in
(``etc/jupyter/jupyter_server_config.d/chaplab.json``).
"""

from __future__ import annotations

import inspect
from typing import Any

BARE_LANGUAGE_INFO = {"name": "python"}
"""The language details chaplab's notebooks store (``notebooks/build_notebooks.py``)."""


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "chaplab.jupyter_server_extension"}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    """Read notebooks through :func:`with_kernel_language_info`: the server's contents manager
    becomes (in place, its state kept) an instance of a subclass of its class whose ``get``
    completes them, and the configured class that subclass, so an extension that derives its
    own contents manager from it later (jupytext does) keeps the completion."""
    details = kernel_language_info()
    if details is None:
        return
    serverapp.contents_manager_class = completing(serverapp.contents_manager_class, details)
    manager = serverapp.contents_manager
    manager.__class__ = completing(type(manager), details)


def kernel_language_info() -> dict[str, Any] | None:
    """What a Python kernel of this environment (ipykernel) reports as its ``language_info``;
    None without ipykernel."""
    try:
        from ipykernel.ipkernel import IPythonKernel
    except ImportError:
        return None
    return dict(IPythonKernel.language_info)


def with_kernel_language_info(model: dict[str, Any], details: dict[str, Any]) -> dict[str, Any]:
    """``model`` (a contents model as the server answers it) with ``details`` as its notebook's
    ``language_info`` when the notebook stores only ``{"name": "python"}`` for it and its kernel
    is a Python one; any other model as it is."""
    content = model.get("content")
    if model.get("type") != "notebook" or not isinstance(content, dict):
        return model
    metadata = content.get("metadata", {})
    language = metadata.get("kernelspec", {}).get("language", "python")
    if metadata.get("language_info") == BARE_LANGUAGE_INFO and language == "python":
        metadata["language_info"] = dict(details)
    return model


def completing(base: type[Any], details: dict[str, Any]) -> type[Any]:
    """A subclass of the contents manager class ``base`` (sync or async) whose ``get`` answers
    its notebooks through :func:`with_kernel_language_info` with ``details``."""
    if inspect.iscoroutinefunction(base.get):

        async def get(self: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
            model = await super(subclass, self).get(*args, **kwargs)
            return with_kernel_language_info(model, details)

    else:

        def get(self: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:  # type: ignore[misc]
            model = super(subclass, self).get(*args, **kwargs)
            return with_kernel_language_info(model, details)

    namespace = {"get": get, "__module__": __name__, "__doc__": base.__doc__}
    metaclass: Any = type(base)  # traitlets' metaclass, as the server's classes have
    subclass: type[Any] = metaclass(f"KernelDetails{base.__name__}", (base,), namespace)
    return subclass
