"""What the panel's first form and chart need, prepared in a worker thread when it starts.

The model form checks the templates' schemas with jsonschema, whose import builds a grammar
(seconds on a busy machine); imported on the kernel's event loop, it would freeze it. The chart
process (:mod:`chaplab.widgets._chart_process`) imports pandas and matplotlib before it can
draw. The :class:`Preloader` starts both from a worker thread, and the form awaits
:meth:`Preloader.ready` before it is built. Nothing but imports, starting the process and one
garbage collection happens in the thread: no widget is touched there.

The collection: an import leaves some hundred thousand new long-lived objects, and once that
many have piled up, Python's collector runs a full collection of the whole heap (100-800 ms on
a busy machine, during which no thread of the kernel runs). Collecting right after the imports,
while the panel is being built, keeps that from happening later, at some moment while the
panel follows jobs.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import sys
from collections.abc import Iterable
from typing import Any

from chaplab.widgets._render import CHART_PROCESS
from chaplab.widgets._tasks import TaskKeeper

SLOW_MODULES = ("jsonschema",)


def import_modules(names: Iterable[str]) -> list[str]:
    """Import each module of ``names`` not imported yet and return those; one that fails is
    left to fail where it is used, with its error shown there."""
    imported = []
    for name in names:
        if name not in sys.modules:
            with contextlib.suppress(ImportError):
                importlib.import_module(name)
                imported.append(name)
    return imported


def prepare() -> None:
    """Start the chart process, import :data:`SLOW_MODULES` and, when that imported any,
    collect garbage."""
    CHART_PROCESS.start()
    if import_modules(SLOW_MODULES):
        gc.collect()


class Preloader:
    """Runs :func:`prepare` once, in a worker thread started on the running loop."""

    def __init__(self, keeper: TaskKeeper) -> None:
        self._keeper = keeper
        self._task: asyncio.Task[Any] | None = None

    def start(self) -> asyncio.Task[Any]:
        """The task of the preparation, started on the first call. Must run on the loop's
        thread."""
        if self._task is None:
            self._task = self._keeper.spawn(asyncio.to_thread(prepare))
        return self._task

    async def ready(self) -> None:
        """Wait until the preparation is done (starting it if need be). A cancelled waiter
        leaves it running for the next one."""
        await asyncio.wait({self.start()})
