"""The chart process: the panel's charts are drawn in a Python process of their own.

Drawing a chart of a dozen matplotlib panels takes about a second of interpreter time and
creates tens of thousands of objects that live through the draw. In the kernel's process that
stops the kernel's event loop even from a worker thread: the thread holds the interpreter lock
most of the time, and the objects it leaves behind trigger full garbage collections of the
kernel's whole heap (150-900 ms each on a busy machine, the lock held throughout). The chart
process keeps all of that apart: the kernel pickles the chart (its frames and choices) into the
process's input and reads the PNG back, waiting in a thread that holds no lock meanwhile.

The process is started on first use (the panel starts it when it opens), draws one chart at a
time at a lower priority than the kernel (nice +10 where there is ``os.nice``: on a busy
machine the kernel's loop gets a core first), ignores the kernel's interrupts (Jupyter sends
them to the whole process group) and ends when its input closes: when the kernel exits, or when
a failed process is replaced.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import os
import pickle
import signal
import subprocess
import sys
import threading
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from chaplab.widgets._render import Chart, Rendered

# Not ``-m``: the package's __init__ imports this module before runpy would run it as __main__.
COMMAND = "from chaplab.widgets._chart_process import main; main()"
NICENESS = 10


class ChartProcessError(RuntimeError):
    """The chart could not be drawn: the process failed, or drawing raised (its message)."""


class ChartProcess:
    """The kernel's side: starts the process, sends it charts and reads back what it drew.

    :meth:`draw` blocks until the chart is drawn, so call it from a worker thread."""

    def __init__(self) -> None:
        self._child: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()
        atexit.register(self.stop)

    @property
    def pid(self) -> int | None:
        """The process id of the running chart process (None before it is started)."""
        return self._child.pid if self._child is not None else None

    def start(self) -> None:
        """Start the process unless it is running, so it has its imports done when the first
        chart comes."""
        with self._lock:
            self._running()

    def draw(self, chart: Chart) -> Rendered:
        """Draw ``chart`` in the process (in a new one when it has died: once more only);
        ``ChartProcessError`` when it cannot be drawn."""
        with self._lock:
            try:
                reply = self._exchange(chart)
            except ChartProcessError:
                reply = self._exchange(chart)
        if isinstance(reply, str):
            raise ChartProcessError(reply)
        return reply  # type: ignore[no-any-return]

    def stop(self) -> None:
        """End the process (it finishes the chart it is drawing first)."""
        with self._lock:
            self._stop_child()

    def _exchange(self, chart: Chart) -> Any:
        """Send ``chart`` and read the reply; a broken pipe stops the process."""
        child = self._running()
        try:
            _send(chart, child.stdin)
            return pickle.load(child.stdout)  # type: ignore[arg-type]
        except (OSError, EOFError, pickle.UnpicklingError) as error:
            self._stop_child()
            raise ChartProcessError(f"the chart process stopped ({error!r})") from None

    def _running(self) -> subprocess.Popen[bytes]:
        if self._child is None or self._child.poll() is not None:
            self._child = subprocess.Popen(
                [sys.executable, "-c", COMMAND],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env={**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, sys.path))},
            )
        return self._child

    def _stop_child(self) -> None:
        if self._child is None:
            return
        child, self._child = self._child, None
        for stream in (child.stdin, child.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):  # a dead process's pipe is broken
                    stream.close()
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def serve(requests: IO[bytes], replies: IO[bytes]) -> None:
    """The process's side: draw each chart read from ``requests`` and write what was drawn,
    or the problem as a sentence, to ``replies``; return when ``requests`` ends."""
    from chaplab.widgets._render import draw_chart

    while True:
        try:
            chart = pickle.load(requests)
        except EOFError:
            return
        try:
            reply: Any = draw_chart(chart)
        except Exception as error:
            reply = f"drawing the chart failed: {type(error).__name__}: {error}"
        _send(reply, replies)


def _send(item: Any, stream: IO[bytes] | None) -> None:
    """Write ``item`` pickled whole: a pickling error leaves nothing half-written."""
    if stream is None:
        raise OSError("the chart process has no pipe")
    stream.write(pickle.dumps(item, protocol=pickle.HIGHEST_PROTOCOL))
    stream.flush()


def main() -> None:
    """Entry point of the process: replies go to the original stdout; anything printed while
    drawing goes to stderr, so it cannot corrupt them."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(os, "nice"):
        os.nice(NICENESS)
    replies = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    import matplotlib

    matplotlib.use("Agg")  # whatever MPLBACKEND the kernel passed on: charts become PNG bytes
    for name in ("chaplab.plotting", "matplotlib.backends.backend_agg"):
        importlib.import_module(name)  # before the first chart comes

    serve(sys.stdin.buffer, replies)


if __name__ == "__main__":
    main()
