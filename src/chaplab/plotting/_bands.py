"""Which quantile pairs become bands, and the colour families they are drawn in."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
from matplotlib import colormaps

Band = tuple[float, float]


def derive_bands(levels: np.ndarray, requested: Sequence[Band] | None = None) -> list[Band]:
    """Nested bands from the outermost quantile pair inwards.

    By default the levels present are paired from both ends (0.1 with 0.9, 0.25 with 0.75, ...);
    ``requested`` pairs must be among the levels present. Bands are returned outermost first.
    """
    present = [float(level) for level in levels]
    if requested is None:
        bands = [(present[i], present[-1 - i]) for i in range(len(present) // 2)]
    else:
        bands = []
        for pair in requested:
            low, high = sorted(float(q) for q in pair)
            absent = [q for q in (low, high) if not np.isclose(present, q).any()]
            if absent:
                raise ValueError(
                    f"quantile band {pair}: level(s) {absent} are not in the frame, "
                    f"which has quantiles {present}"
                )
            if low == high:
                raise ValueError(f"quantile band {pair} has no width: give two different levels")
            bands.append((_match(present, low), _match(present, high)))
    return sorted(bands, key=lambda band: band[0] - band[1])


def _match(present: list[float], level: float) -> float:
    return present[int(np.argmin(np.abs(np.asarray(present) - level)))]


def median_level(levels: np.ndarray) -> float | None:
    """The 0.5 quantile if the frame has it (the median line is drawn only then)."""
    hits = np.flatnonzero(np.isclose(levels, 0.5))
    return float(levels[hits[0]]) if len(hits) else None


def drawn_levels(bands: Sequence[Band], median: float | None) -> list[float]:
    """The quantile levels the bands and the median line are drawn from."""
    return [level for band in bands for level in band] + ([] if median is None else [median])


def band_label(band: Band) -> str:
    """'10-90%' for the band (0.1, 0.9)."""
    low, high = (f"{100 * q:g}" for q in band)
    return f"{low}\u2013{high}%"


@dataclass(frozen=True)
class Palette:
    """One colour family: bands light to dark from the outside in, the median darkest."""

    colormap: str

    def band(self, index: int, count: int) -> tuple[float, ...]:
        """The RGBA colour of band ``index`` (0 = outermost) of ``count`` bands."""
        return _colour(self.colormap, 0.3 + 0.35 * (index + 1) / max(count, 1))

    @property
    def median(self) -> tuple[float, ...]:
        """The RGBA colour of the median line."""
        return _colour(self.colormap, 0.9)


@cache
def _colour(colormap: str, position: float) -> tuple[float, ...]:
    """A colormap's colour, looked up once: ``colormaps[name]`` is a fresh copy that builds its
    lookup table again on every call."""
    return colormaps[colormap](position)


FORECAST = Palette("Blues")
SECOND = Palette("Oranges")
ACTUAL_COLOUR = "black"
SPLIT_COLOUR = "0.45"
