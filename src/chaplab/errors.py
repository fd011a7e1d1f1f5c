"""The errors chaplab raises for people, shown in IPython as their class and sentence.

:class:`ShortError` is what they share: in IPython and Jupyter such an error takes its sentence
and a hint instead of a traceback through chaplab's internals; ``CHAPLAB_FULL_TRACEBACKS=1``
brings the traceback back. :class:`ChapError` is the root of every error of the client, and
:class:`ArgumentError` / :class:`ArgumentTypeError` are what any public function of chaplab
raises for an argument it refuses (the client, frames, scoring, plotting, local backtests): one
sentence naming the argument and the reason. :func:`own_frames` picks, from a traceback, the
frames of the caller's own code (a notebook's cells, their modules), for an error about code
chaplab ran for them.

Standard library only, so that every layer can raise them.
"""

from __future__ import annotations

import linecache
import os
import sys
import sysconfig
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

FULL_TRACEBACKS_VARIABLE = "CHAPLAB_FULL_TRACEBACKS"
"""Environment variable: set to ``1`` for IPython to show a chaplab error's full traceback."""


def full_tracebacks_wanted() -> bool:
    """Whether ``CHAPLAB_FULL_TRACEBACKS`` asks for full tracebacks (read at each error, so
    ``os.environ["CHAPLAB_FULL_TRACEBACKS"] = "1"`` in a running notebook takes effect)."""
    return os.environ.get(FULL_TRACEBACKS_VARIABLE, "").strip().lower() in ("1", "true", "yes")


FULL_TRACEBACK_HINT = f"(the full traceback: set {FULL_TRACEBACKS_VARIABLE}=1 in the environment)"


class ShortError(Exception):
    """An error IPython and Jupyter show as its class and sentence and a hint, not the traceback
    through chaplab and the libraries it calls (IPython's ``_render_traceback_`` hook); with
    ``CHAPLAB_FULL_TRACEBACKS=1`` in the environment the hook is absent and IPython shows the
    full traceback."""

    @property
    def _render_traceback_(self) -> Callable[[], list[str]]:
        if full_tracebacks_wanted():
            raise AttributeError("_render_traceback_")  # IPython then shows the full traceback
        return self._short_traceback

    def _short_traceback(self) -> list[str]:
        """The lines IPython shows for this error."""
        return [f"{type(self).__name__}: {self}", FULL_TRACEBACK_HINT]


class ChapError(ShortError):
    """Base class of every error raised by the chaplab client, and of the argument errors of
    every part of chaplab; shown short in IPython (:class:`ShortError`)."""


class ArgumentError(ChapError, ValueError):
    """An argument chaplab refuses (``n_periods must be >= 1, got 0``), before the client sends
    anything or a frame function computes anything.

    A ``ValueError`` (``except ValueError`` catches it), shown in IPython like the client's other
    errors: its class and sentence and the hint, not the traceback through chaplab."""


class ArgumentTypeError(ChapError, TypeError):
    """An argument of the wrong type (``n_periods must be an int, got str '3'``), refused before
    anything is sent or computed; a ``TypeError``, shown in IPython like :class:`ArgumentError`."""


Frame = tuple[str, int, str]
"""Where code ran: its file name, line number and function name (picklable, so a worker
process can say where a model failed)."""


def own_frames(traceback: TracebackType | None) -> list[str]:
    """The frames of ``traceback`` in the caller's own code, formatted as Python formats a
    traceback's frames (a notebook cell's as IPython names it, ``Cell In[3], line 7``): those
    neither in Python's standard library nor in an installed package nor in chaplab, outermost
    first. Empty when the traceback has none."""
    return format_frames(own_frame_list(traceback))


def own_frame_list(traceback: TracebackType | None) -> list[Frame]:
    """The frames :func:`own_frames` formats, as ``(file name, line, function)``: what another
    process sends back for :func:`format_frames` to show where it ran the caller's code."""
    library = _library_folders()
    frames = []
    while traceback is not None:
        code = traceback.tb_frame.f_code
        filename = code.co_filename
        if not filename.startswith("<frozen") and not _inside(filename, library):
            frames.append((filename, traceback.tb_lineno, code.co_name))
        traceback = traceback.tb_next
    return frames


def format_frames(frames: list[Frame]) -> list[str]:
    """``frames`` as Python formats a traceback's frames, each with its line of source where
    this process knows it (a notebook cell's code is known to the kernel that ran it)."""
    lines = []
    for filename, line, function in frames:
        lines.append(f"  {_where(filename)}, line {line}, in {function}")
        source = linecache.getline(filename, line).strip()
        if source:
            lines.append(f"    {source}")
    return lines


def _library_folders() -> tuple[str, ...]:
    """Where code that is not the caller's lives: the standard library, installed packages and
    chaplab itself (an editable install keeps it outside site-packages)."""
    paths = sysconfig.get_paths()
    folders = {paths[name] for name in ("stdlib", "platstdlib", "purelib", "platlib")}
    folders.add(str(Path(__file__).resolve().parent))
    return tuple(str(Path(folder).resolve()) + os.sep for folder in folders)


def _inside(filename: str, folders: tuple[str, ...]) -> bool:
    try:
        resolved = str(Path(filename).resolve())
    except (OSError, ValueError):
        return False
    return resolved.startswith(folders)


def _where(filename: str) -> str:
    """``Cell In[3]`` for a notebook cell's code (IPython's own name for it), else
    ``File "path"``."""
    ipython = sys.modules.get("IPython")
    shell = None if ipython is None else ipython.get_ipython()
    named = None if shell is None else shell.compile.format_code_name(filename)
    return f"{named[0]} {named[1]}" if named else f'File "{filename}"'
