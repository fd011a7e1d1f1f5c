"""Timing helpers: the median of repeated wall-clock measurements."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any


def times(function: Callable[[], Any], repeats: int, warmup: int = 0) -> list[float]:
    """Wall-clock seconds of ``repeats`` calls of ``function`` after ``warmup`` untimed calls."""
    for _ in range(warmup):
        function()
    measured = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        measured.append(time.perf_counter() - start)
    return measured


def median_time(function: Callable[[], Any], repeats: int, warmup: int = 0) -> float:
    """Median wall-clock seconds of ``repeats`` calls of ``function``."""
    return statistics.median(times(function, repeats, warmup))


def percentile(values: list[float], fraction: float) -> float:
    """The ``fraction`` quantile of ``values`` (linear interpolation between order statistics)."""
    ordered = sorted(values)
    position = fraction * (len(ordered) - 1)
    below = int(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)
