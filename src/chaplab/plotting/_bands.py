"""Which quantile pairs become bands, and the colour families they are drawn in."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
from matplotlib import colormaps

from chaplab.errors import ArgumentError

Band = tuple[float, float]

LEVEL_TOLERANCE = 1e-9
"""Levels this close are the same level: 1 - 0.3 may come back as 0.7000000000000001."""


def derive_bands(
    levels: np.ndarray,
    requested: Sequence[Band] | None = None,
    source: str = "the frame's quantiles",
) -> list[Band]:
    """Nested bands, outermost first, on the quantile levels present.

    By default each level q below 0.5 is paired with 1 - q (0.1 with 0.9, 0.25 with 0.75);
    a level without that partner is left out of the bands (the median line does not need one).
    ``requested`` pairs, checked by ``check_quantile_bands``, must be among the levels present.
    ``source`` names the levels in errors.
    """
    present = [float(level) for level in levels]
    bands = (
        _symmetric(present, source)
        if requested is None
        else [_present_band(present, band, source) for band in requested]
    )
    return sorted(bands, key=lambda band: band[0] - band[1])


def _symmetric(present: list[float], source: str) -> list[Band]:
    """Every level below 0.5 with its mirror 1 - level; ValueError when none has one."""
    bands = [
        (low, high)
        for low in present
        if low < 0.5 - LEVEL_TOLERANCE and (high := _find(present, 1 - low)) is not None
    ]
    if not bands:
        raise ArgumentError(
            f"no quantile band can be drawn: {source} ({_levels_text(present)}) "
            "include no symmetric pair; a band needs a level q below 0.5 and 1 - q above it "
            "(e.g. 0.1 and 0.9), or choose bands with quantile_bands"
        )
    return bands


def _present_band(present: list[float], band: Band, source: str) -> Band:
    """``band`` on the levels present; ValueError naming the levels that are missing."""
    found = [_find(present, level) for level in band]
    missing = [level for level, hit in zip(band, found, strict=True) if hit is None]
    if missing:
        raise ArgumentError(
            f"quantile_bands: level(s) {_levels_text(missing)} of the band "
            f"({_levels_text(band)}) are not among {source} ({_levels_text(present)})"
        )
    low, high = (hit for hit in found if hit is not None)
    return low, high


def _find(present: list[float], level: float) -> float | None:
    """The present level equal to ``level`` within LEVEL_TOLERANCE, if there is one."""
    return next((q for q in present if abs(q - level) <= LEVEL_TOLERANCE), None)


def _levels_text(levels: Sequence[float]) -> str:
    return ", ".join(f"{level:g}" for level in levels)


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
    """Filled bands of one colour family: light to dark from the outside in, the median
    darkest."""

    colormap: str

    def band(self, index: int, count: int) -> tuple[float, ...]:
        """The RGBA colour of band ``index`` (0 = outermost) of ``count`` bands."""
        return _colour(self.colormap, 0.3 + 0.35 * (index + 1) / max(count, 1))

    def band_style(self, index: int, count: int) -> dict[str, Any]:
        """How band ``index`` of ``count`` is drawn (as a filled polygon without an edge)."""
        return {"facecolor": self.band(index, count), "edgecolor": "none", "linewidth": 0}

    def median_style(self) -> dict[str, Any]:
        """How the median line is drawn."""
        return {"color": _colour(self.colormap, 0.9), "linewidth": 1.4}


@dataclass(frozen=True)
class Outline:
    """Bands as outlines, the inner ones hatched, and a dashed median: an evaluation drawn
    over a filled one stays visible and its colour never mixes with the fill beneath."""

    colour: str

    def band_style(self, index: int, count: int) -> dict[str, Any]:
        """The outermost band a dashed outline, inner bands a solid one, hatched."""
        inner = index > 0 or count == 1
        return {
            "facecolor": "none",
            "edgecolor": self.colour,
            "linewidth": 1.3 if inner else 1.1,
            "linestyle": "-" if inner else (0, (4, 2)),
            "hatch": "////" if inner else None,
        }

    def median_style(self) -> dict[str, Any]:
        """A dashed line in the outline's colour."""
        return {"color": self.colour, "linewidth": 1.8, "linestyle": (0, (6, 2))}


Style = Palette | Outline


@cache
def _colour(colormap: str, position: float) -> tuple[float, ...]:
    """A colormap's colour, looked up once: ``colormaps[name]`` is a fresh copy that builds its
    lookup table again on every call."""
    return colormaps[colormap](position)


OKABE_ITO_VERMILLION = "#D55E00"
"""From the Okabe-Ito palette, which people with any common colour vision deficiency tell apart;
against the blues of the first evaluation."""
FORECAST = Palette("Blues")
SECOND = Outline(OKABE_ITO_VERMILLION)
ACTUAL_COLOUR = "black"
SPLIT_COLOUR = "0.45"
