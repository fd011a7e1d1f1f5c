"""Knowing when the panel is shown again: ipywidgets tells the kernel nothing when a view of a
widget is rendered, so a widget of no size counts its views in the browser (a few lines run by
anywidget, as the copy button is)."""

from __future__ import annotations

import anywidget
import traitlets

_COUNT_VIEWS_ESM = """
function render({ model }) {
  model.set("views", model.get("views") + 1);
  model.save_changes();
}
export default { render };
"""


class ViewCounter(anywidget.AnyWidget):
    """Counts the views the browser has rendered of the widget it sits in (``views``): the
    first is the panel's first display, each one after it the panel shown again."""

    _esm = _COUNT_VIEWS_ESM
    views = traitlets.Int(0, help="views rendered so far").tag(sync=True)
