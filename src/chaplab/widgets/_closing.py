"""Closing widgets that are replaced, so a long session does not pile up dead widgets in the
kernel (each open widget stays registered until it is closed)."""

from __future__ import annotations

from collections.abc import Iterable

import ipywidgets as widgets


def close_tree(widget: widgets.Widget) -> None:
    """Close ``widget`` and every widget inside it."""
    for child in getattr(widget, "children", ()):
        close_tree(child)
    widget.close()


def close_all(items: Iterable[widgets.Widget]) -> None:
    """Close each widget of ``items`` with everything inside it."""
    for item in items:
        close_tree(item)
