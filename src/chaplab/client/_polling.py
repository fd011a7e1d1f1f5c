"""The adaptive poll schedule and the status-change notices used by ``wait_for_job``.

The schedule serves servers that ignore ``Prefer: wait``. It starts at 0.25 s and grows by
0.08 s per elapsed second up to 0.6 s during the first 8 s (a job of 1-10 s is noticed about
0.3 s after it ends, median), then backs off by a factor of 3 towards 5 s, so that a 60 s job
costs 30 status requests.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from chaplab.client._errors import ArgumentError, ArgumentTypeError
from chaplab.vocabulary import normalize_status

StatusCallback = Callable[[str], object]


@dataclass
class PollSchedule:
    """Intervals between status requests, as a function of the time already waited.

    ``fixed`` (when given) replaces the adaptive schedule with a constant interval.
    """

    fixed: float | None = None
    first: float = 0.25
    growth_per_second: float = 0.08
    plateau: float = 0.6
    knee: float = 8.0
    backoff: float = 3.0
    ceiling: float = 5.0
    _last: float = 0.0

    def __post_init__(self) -> None:
        if self.fixed is not None and self.fixed <= 0:
            raise ArgumentError(f"poll_interval must be > 0, got {self.fixed!r}")

    def next_interval(self, elapsed: float) -> float:
        """Seconds to sleep before the next status request, ``elapsed`` seconds into the wait."""
        if self.fixed is not None:
            return self.fixed
        if elapsed < self.knee:
            interval = min(self.plateau, self.first + self.growth_per_second * elapsed)
        else:
            interval = min(self.ceiling, max(self.plateau, self._last * self.backoff))
        self._last = interval
        return interval


class StatusChanges:
    """Hands each status that differs from the previous one to ``on_status`` (upper-cased).

    ``wait_for_job`` sees the same status many times while it polls; the callback hears of it
    once per change, in order, on the thread (or event loop) that drives the wait.
    """

    def __init__(self, on_status: StatusCallback | None) -> None:
        if on_status is not None and not callable(on_status):
            raise ArgumentTypeError(
                f"on_status must be a callable taking the status string, got {on_status!r}"
            )
        self._on_status = on_status
        self._last: str | None = None

    def seen(self, status: str) -> None:
        """Report ``status`` when it is new; an exception from the callback propagates."""
        status = normalize_status(status)
        if status == self._last:
            return
        self._last = status
        if self._on_status is not None:
            self._on_status(status)
