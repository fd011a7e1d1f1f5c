"""How long the reliability tests run: bounded in ``make test``, longer in ``make stress``.

``CHAPLAB_STRESS=1`` (set by ``make stress``) scales the load duration, the number of fuzzing
examples and the crash rounds up; without it every test finishes in seconds to a minute on two
cores.
"""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Bounds:
    """The sizes of the bounded runs."""

    load_seconds: float
    load_sessions: int
    load_evaluations: int
    fuzz_examples: int
    crash_rounds: int


STRESS = os.environ.get("CHAPLAB_STRESS", "") not in ("", "0")

BOUNDS = (
    Bounds(
        load_seconds=120.0, load_sessions=20, load_evaluations=40, fuzz_examples=60, crash_rounds=5
    )
    if STRESS
    else Bounds(
        load_seconds=15.0, load_sessions=20, load_evaluations=10, fuzz_examples=8, crash_rounds=1
    )
)
