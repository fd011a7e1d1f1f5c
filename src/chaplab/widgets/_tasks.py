"""Background work on the kernel's event loop: kept-alive tasks, a debouncer and a coalescer,
and widget handlers that run on that loop.

Every network call runs in an asyncio task on the loop the kernel (or the test) is running;
the tasks are held in a set so they are not garbage-collected half-way, and a task that fails
reports its exception to a callback that shows it in the panel. A panel's action hands its
task back as :class:`Started`: awaitable, and shown as nothing by a notebook cell that ends
with the call. A widget's handlers are made with :func:`on_kernel_loop`, so what a click or an
edit in the browser starts runs on that same loop.
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Awaitable, Callable, Coroutine, Generator
from typing import Any, ParamSpec

P = ParamSpec("P")

ErrorHandler = Callable[[BaseException], None]


def on_kernel_loop(callback: Callable[P, object]) -> Callable[P, None]:
    """``callback`` as a widget's handler (``on_click``, ``observe``) that runs on the loop it
    is made on, the kernel's: at once when called on that loop's thread, else scheduled there.

    JupyterLab 4.4 and later hand widget messages to a kernel subshell where the kernel has them
    (ipykernel 7): a thread with an event loop of its own. Run there, a click's handler would
    update widgets from that thread and start the panel's tasks on that loop, beside the
    panel's client and out of reach of ``await panel.wait_idle()``. Made where no loop runs, the
    handler calls ``callback`` on whichever thread calls it."""
    try:
        loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
    except RuntimeError:
        loop = None
    home = threading.get_ident()

    @functools.wraps(callback)
    def handler(*args: P.args, **kwargs: P.kwargs) -> None:
        if loop is None or threading.get_ident() == home:
            callback(*args, **kwargs)
        else:
            loop.call_soon_threadsafe(functools.partial(callback, *args, **kwargs))

    return handler


class TaskKeeper:
    """Start tasks on the running loop, keep strong references, surface their failures."""

    def __init__(self, on_error: ErrorHandler) -> None:
        self._on_error = on_error
        self._tasks: set[asyncio.Task[Any]] = set()

    def spawn(
        self, coroutine: Coroutine[Any, Any, Any], *, on_error: ErrorHandler | None = None
    ) -> asyncio.Task[Any]:
        """Run ``coroutine`` as a task; its exception (not a cancellation) goes to ``on_error``
        or to the keeper's handler. Must be called on the loop's thread."""
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        handler = on_error or self._on_error

        def finished(done: asyncio.Task[Any]) -> None:
            self._tasks.discard(done)
            if not done.cancelled() and done.exception() is not None:
                handler(done.exception())  # type: ignore[arg-type]

        task.add_done_callback(finished)
        return task

    @property
    def running(self) -> int:
        """How many tasks have not finished yet."""
        return len(self._tasks)

    async def wait(self) -> None:
        """Wait until no task is left, including tasks started while waiting."""
        while self._tasks:
            await asyncio.wait(set(self._tasks))

    def cancel_all(self) -> None:
        """Cancel every task that is still running."""
        for task in list(self._tasks):
            task.cancel()


class Started:
    """An action of the panel running in the background: ``await`` it to wait until it has
    finished (its exception, if any, raised there; the panel shows it too). A notebook cell
    ending with the call shows nothing, where the task itself printed ``<Task pending
    name='Task-60' coro=...>``: the panel shows the action's progress."""

    def __init__(self, task: asyncio.Task[Any]) -> None:
        self.task = task

    def __await__(self) -> Generator[Any, None, Any]:
        return self.task.__await__()

    def done(self) -> bool:
        """Whether the action has finished."""
        return self.task.done()

    def _ipython_display_(self) -> None:
        """Show nothing (IPython's display hook for a cell's value)."""

    def __repr__(self) -> str:
        name = getattr(self.task.get_coro(), "__qualname__", "action")
        return f"<{name}: {'finished' if self.task.done() else 'running'}>"


class Debouncer:
    """Run ``action`` once, ``delay`` seconds after the last :meth:`trigger`.

    A slider dragged across ten positions redraws once, not ten times."""

    def __init__(
        self,
        delay: float,
        action: Callable[[], Awaitable[None]],
        keeper: TaskKeeper,
        on_error: ErrorHandler | None = None,
    ) -> None:
        self.delay = delay
        self._action = action
        self._keeper = keeper
        self._on_error = on_error
        self._pending: asyncio.Task[Any] | None = None

    def trigger(self) -> None:
        """(Re)start the countdown; an earlier pending run is cancelled."""
        if self._pending is not None and not self._pending.done():
            self._pending.cancel()
        self._pending = self._keeper.spawn(self._later(), on_error=self._on_error)

    async def settled(self) -> None:
        """Wait for the pending run, if any (for tests and scripts)."""
        if self._pending is not None:
            await asyncio.wait({self._pending})

    async def _later(self) -> None:
        await asyncio.sleep(self.delay)
        await self._action()


class Coalescer:
    """Run ``action`` at once, unless a run is under way: then once more after it, however
    often it was triggered meanwhile. Ten jobs ending together reload the panel's lists twice,
    not ten times, and every change is still shown (the last run starts after the last
    trigger)."""

    def __init__(self, action: Callable[[], Awaitable[None]], keeper: TaskKeeper) -> None:
        self._action = action
        self._keeper = keeper
        self._running: asyncio.Task[Any] | None = None
        self._again = False

    def trigger(self) -> None:
        """Run now, or once more after the run under way."""
        if self._running is not None and not self._running.done():
            self._again = True
            return
        self._running = self._keeper.spawn(self._run())

    async def _run(self) -> None:
        self._again = True
        while self._again:
            self._again = False
            await self._action()
