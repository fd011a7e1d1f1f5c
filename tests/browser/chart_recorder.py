"""Runs in every kernel a browser test's JupyterLab starts (an IPython startup file): keeps the
figure behind each raster chart a notebook or the panel shows, so a test can ask how it was
drawn and what it draws, from the chart's data, not its pixels.

- A notebook's chart: IPython's ``print_figure`` (the inline backend's PNG, also behind a
  chaplab chart's display) is wrapped to keep the figure under the SHA-1 of the PNG.
- The panel's chart: drawn in the chart process, so the kernel keeps the chart (what it draws
  from) under the SHA-1 of the PNG the process answered, and draws it again when asked.

``chart_facts(sha1)`` answers, as JSON text, how the picture of that SHA-1 was drawn (its
figure's dots per inch, its pixels per dot, its smallest text in points) and what its time
panels draw (``readability.drawn_problems``), or null for a picture it does not know. The
harness's startup file puts tests/ on the kernel's path and imports ``chart_facts`` from here.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.abc
import importlib.util
import json
import sys
from typing import Any

import IPython.core.pylabtools as _pylabtools

from readability import drawn_problems, smallest_text_points

CHART_RECORDS: dict[str, tuple[str, Any, float]] = {}
"""SHA-1 of a PNG -> (its kind, ``figure`` or ``chart``; the figure or the panel's chart; the
PNG's pixels per point of the figure's dots, 2 for a retina PNG)."""


def _record(png: bytes, kind: str, drawn: Any, ratio: float) -> None:
    CHART_RECORDS[hashlib.sha1(png).hexdigest()] = (kind, drawn, ratio)


_print_figure = _pylabtools.print_figure


def _recording_print_figure(fig: Any, fmt: str = "png", *args: Any, **kwargs: Any) -> Any:
    data = _print_figure(fig, fmt, *args, **kwargs)
    if data is not None and fmt in ("png", "retina"):
        raw = base64.b64decode(data) if kwargs.get("base64") else data
        _record(raw, "figure", fig, 2.0 if fmt == "retina" else 1.0)
    return data


_pylabtools.print_figure = _recording_print_figure


def _record_panel_charts(module: Any) -> None:
    """Wrap the chart process's ``draw`` so each chart the panel shows is kept."""
    draw = module.ChartProcess.draw

    async def recording_draw(self: Any, chart: Any) -> Any:
        rendered = await draw(self, chart)
        _record(rendered.png, "chart", chart, 2.0)
        return rendered

    module.ChartProcess.draw = recording_draw


class _AfterImport(importlib.abc.MetaPathFinder):
    """Patches ``chaplab.widgets._chart_process`` when it is first imported."""

    name = "chaplab.widgets._chart_process"

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None:
            return spec
        loader, execute = spec.loader, spec.loader.exec_module

        def exec_module(module: Any) -> None:
            execute(module)
            _record_panel_charts(module)

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


sys.meta_path.insert(0, _AfterImport())


def chart_facts(sha1: str) -> str:
    """How the picture of ``sha1`` was drawn and what its time panels draw, as JSON text (null
    for a picture not recorded here)."""
    record = CHART_RECORDS.get(sha1)
    if record is None:
        return "null"
    kind, drawn, ratio = record
    figure = drawn if kind == "figure" else drawn.draw()
    figure.draw_without_rendering()
    facts = {
        "kind": kind,
        "dpi": figure.dpi,
        "ratio": ratio,
        "smallest_points": smallest_text_points(figure),
        "problems": drawn_problems(figure),
    }
    if kind == "chart":
        import matplotlib.pyplot as plt

        plt.close(figure)
    return json.dumps(facts)
