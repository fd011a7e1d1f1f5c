"""The chaplab widget panel for JupyterLab (ipywidgets 8): see :class:`ChapPanel`."""

from __future__ import annotations

from chaplab.widgets.panel import ChapPanel

__all__ = ["ChapPanel"]
