"""The errors chaplab raises for people, shown in IPython as their class and sentence.

:class:`ChapError` is the root of every error of the client, and :class:`ArgumentError` /
:class:`ArgumentTypeError` are what any public function of chaplab raises for an argument it
refuses (the client, frames, scoring, plotting, local backtests): one sentence naming the
argument and the reason. In IPython and Jupyter such an error takes two lines instead of a
traceback through chaplab's internals; ``CHAPLAB_FULL_TRACEBACKS=1`` brings the traceback back.

Standard library only, so that every layer can raise them.
"""

from __future__ import annotations

import os
from collections.abc import Callable

FULL_TRACEBACKS_VARIABLE = "CHAPLAB_FULL_TRACEBACKS"
"""Environment variable: set to ``1`` for IPython to show a chaplab error's full traceback."""


def full_tracebacks_wanted() -> bool:
    """Whether ``CHAPLAB_FULL_TRACEBACKS`` asks for full tracebacks (read at each error, so
    ``os.environ["CHAPLAB_FULL_TRACEBACKS"] = "1"`` in a running notebook takes effect)."""
    return os.environ.get(FULL_TRACEBACKS_VARIABLE, "").strip().lower() in ("1", "true", "yes")


class ChapError(Exception):
    """Base class of every error raised by the chaplab client, and of the argument errors of
    every part of chaplab.

    In IPython and Jupyter the error shows as its class and sentence and a hint, not the
    traceback through the HTTP library (IPython's ``_render_traceback_`` hook); with
    ``CHAPLAB_FULL_TRACEBACKS=1`` in the environment the hook is absent and IPython shows the
    full traceback.
    """

    @property
    def _render_traceback_(self) -> Callable[[], list[str]]:
        if full_tracebacks_wanted():
            raise AttributeError("_render_traceback_")  # IPython then shows the full traceback
        return self._short_traceback

    def _short_traceback(self) -> list[str]:
        """The lines IPython shows for this error."""
        return [
            f"{type(self).__name__}: {self}",
            f"(the full traceback: set {FULL_TRACEBACKS_VARIABLE}=1 in the environment)",
        ]


class ArgumentError(ChapError, ValueError):
    """An argument chaplab refuses (``n_periods must be >= 1, got 0``), before the client sends
    anything or a frame function computes anything.

    A ``ValueError`` (``except ValueError`` catches it), shown in IPython like the client's other
    errors: its class and sentence and the hint, not the traceback through chaplab."""


class ArgumentTypeError(ChapError, TypeError):
    """An argument of the wrong type (``n_periods must be an int, got str '3'``), refused before
    anything is sent or computed; a ``TypeError``, shown in IPython like :class:`ArgumentError`."""
