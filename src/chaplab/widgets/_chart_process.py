"""The chart process: the panel's charts are drawn in a Python process of their own.

Drawing a chart of a dozen matplotlib panels takes about a second of interpreter time and
creates tens of thousands of objects that live through the draw. In the kernel's process that
stops the kernel's event loop even from a worker thread: the thread holds the interpreter lock
most of the time, and the objects it leaves behind trigger full garbage collections of the
kernel's whole heap (150-900 ms each on a busy machine, the lock held throughout). The chart
process keeps all of that apart: the loop awaits each chart while the process draws it.

The process is the one worker of a ``concurrent.futures.ProcessPoolExecutor``, started with the
"spawn" method of a multiprocessing context of its own: the embedded service sets the
process-wide forkserver preload (and tests run the service in this process), and the chart
process neither shares that server nor changes it. The worker's initializer lowers its priority
(nice +10 where there is ``os.nice``: on a busy machine the kernel's loop gets a core first),
makes it ignore the kernel's interrupts (Jupyter sends them to the whole process group), selects
matplotlib's Agg backend and imports the plotting code before the first chart comes. The worker
ends when the kernel exits or drops its pool; one that died breaks the pool
(``BrokenProcessPool``), and the chart is drawn again in a new one.
"""

from __future__ import annotations

import asyncio
import atexit
import importlib
import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

if TYPE_CHECKING:
    from chaplab.widgets._render import Rendered

NICENESS = 10
PRELOADED = ("chaplab.plotting", "matplotlib.backends.backend_agg")
START_METHOD = "spawn"
ATTEMPTS = 2  # a chart whose process died is drawn once more, in a new process


class ChartProcessError(RuntimeError):
    """The chart could not be drawn: the process failed, or drawing raised (its message)."""


def prepare_worker() -> None:
    """The initializer of the chart process (runs there, before its first chart)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(os, "nice"):
        os.nice(NICENESS)
    threading.Thread(target=_exit_with_parent, name="chaplab-chart-parent", daemon=True).start()
    import matplotlib

    matplotlib.use("Agg")  # whatever MPLBACKEND the kernel passed on: charts become PNG bytes
    for name in PRELOADED:
        importlib.import_module(name)


def _exit_with_parent() -> None:
    """End the process when the kernel has gone or has dropped its pool (the parent's side of
    the process's sentinel pipe closes), even while it waits for a chart."""
    parent = multiprocessing.parent_process()
    if parent is not None:
        multiprocessing.connection.wait([parent.sentinel])
        os._exit(0)


class ChartProcess:
    """The kernel's side: a pool of one chart process, drawing one chart at a time."""

    def __init__(self, draw: Callable[[Any], Rendered]) -> None:
        """``draw`` runs in the process on each chart (importable by name, as pickle needs)."""
        self._draw = draw
        self._context = multiprocessing.get_context(START_METHOD)
        self._pool: ProcessPoolExecutor | None = None
        self._started: Future[int] | None = None  # the process's first task: its id
        self._lock = threading.Lock()  # the pool is started from a worker thread or the loop
        self._turns: WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock]
        self._turns = WeakKeyDictionary()
        atexit.register(self.stop)

    @property
    def pid(self) -> int | None:
        """The process id of the running chart process (None before it has started)."""
        started = self._started
        if started is None or not started.done() or started.cancelled():
            return None
        return None if started.exception() is not None else started.result()

    def start(self) -> None:
        """Start the process unless it is running; it does its imports while the kernel goes
        on, before it draws the first chart."""
        self._running_pool()

    async def draw(self, chart: Any) -> Rendered:
        """Draw ``chart`` in the process; the loop runs meanwhile. Charts are sent one at a
        time: one cancelled while it waits for its turn is never sent, and one cancelled while
        it is drawn keeps the turn until the process is done with it. ``ChartProcessError``
        when it cannot be drawn."""
        async with self._turn(asyncio.get_running_loop()):
            drawing = asyncio.ensure_future(self.send(chart))
            try:
                return await asyncio.shield(drawing)
            finally:
                if not drawing.done():  # cancelled: the process finishes this chart first
                    await asyncio.wait({drawing})
                    if not drawing.cancelled():
                        drawing.exception()  # nobody awaits it: its problem is not reported

    async def send(self, chart: Any) -> Rendered:
        """Draw ``chart`` in the process now (behind any chart it is drawing), in a new process
        when it has died."""
        loop = asyncio.get_running_loop()
        for _ in range(ATTEMPTS):
            pool = self._running_pool()
            try:
                return await loop.run_in_executor(pool, self._draw, chart)
            except BrokenProcessPool:
                self._drop(pool)
            except Exception as error:
                message = f"drawing the chart failed: {type(error).__name__}: {error}"
                raise ChartProcessError(message) from error
        raise ChartProcessError("the chart process stopped while drawing this chart, twice")

    def stop(self) -> None:
        """End the process (it finishes the chart it is drawing first)."""
        with self._lock:
            pool, self._pool, self._started = self._pool, None, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

    def _turn(self, loop: asyncio.AbstractEventLoop) -> asyncio.Lock:
        """The lock that sends the charts of ``loop`` one at a time."""
        return self._turns.setdefault(loop, asyncio.Lock())

    def _running_pool(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(
                    max_workers=1, mp_context=self._context, initializer=prepare_worker
                )
                self._started = self._pool.submit(os.getpid)  # starts the process now
            return self._pool

    def _drop(self, pool: ProcessPoolExecutor) -> None:
        """Forget a broken pool (its process has died) so that the next chart starts anew."""
        with self._lock:
            if self._pool is pool:
                self._pool, self._started = None, None
        pool.shutdown(wait=False, cancel_futures=True)
