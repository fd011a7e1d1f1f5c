"""The slow imports of the panel, done in a worker thread when the panel starts.

The first chart imports matplotlib and :mod:`chaplab.plotting`, the model form jsonschema
(its format checkers build a grammar at import): together a few seconds on a busy machine.
Imported on the kernel's event loop, they would freeze it; the :class:`Preloader` imports them
in a thread instead, and the code that needs them awaits :meth:`Preloader.ready` first. Only
imports happen in the thread: no widget and no figure is touched there.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
from collections.abc import Iterable
from typing import Any

from chaplab.widgets._tasks import TaskKeeper

SLOW_MODULES = (
    "chaplab.frames",
    "chaplab.plotting",
    "matplotlib.backends.backend_agg",
    "jsonschema",
)


def import_modules(names: Iterable[str]) -> None:
    """Import each module of ``names``; one that fails is left to fail where it is used, with
    its error shown there."""
    for name in names:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)


class Preloader:
    """Imports :data:`SLOW_MODULES` once, in a worker thread started on the running loop."""

    def __init__(self, keeper: TaskKeeper) -> None:
        self._keeper = keeper
        self._task: asyncio.Task[Any] | None = None

    def start(self) -> asyncio.Task[Any]:
        """The task of the imports, started on the first call. Must run on the loop's thread."""
        if self._task is None:
            self._task = self._keeper.spawn(asyncio.to_thread(import_modules, SLOW_MODULES))
        return self._task

    async def ready(self) -> None:
        """Wait until the imports are done (starting them if need be). A cancelled waiter
        leaves the imports running for the next one."""
        await asyncio.wait({self.start()})
