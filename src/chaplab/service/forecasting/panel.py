"""A dataset as arrays: one float64 matrix (org units x periods) per feature, NaN = missing."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from chaplab import vocabulary as period_math


@dataclass(frozen=True)
class Panel:
    """Features of consecutive periods for a set of org units.

    Construction checks that the periods are consecutive, of ``period_type`` and canonical,
    that org units are distinct, and that every feature has shape ``(n_org_units, n_periods)``;
    feature arrays are stored as float64 copies.
    """

    period_type: str
    periods: list[str]
    org_units: list[str]
    features: dict[str, np.ndarray]

    def __post_init__(self) -> None:
        if self.period_type not in period_math.PERIOD_TYPES:
            raise ValueError(
                f"period_type {self.period_type!r} is not one of "
                f"{', '.join(period_math.PERIOD_TYPES)}"
            )
        canonical = [period_math.canonical_period(value) for value in self.periods]
        for value in canonical:
            if period_math.period_type_of(value) != self.period_type:
                raise ValueError(f"period {value!r} is not a {self.period_type} period")
        if canonical and canonical != period_math.period_range(canonical[0], canonical[-1]):
            raise ValueError(
                "periods must be consecutive and chronological, without gaps or repeats"
            )
        if len(set(self.org_units)) != len(self.org_units):
            raise ValueError("org_units must be distinct")
        shape = (len(self.org_units), len(canonical))
        arrays: dict[str, np.ndarray] = {}
        for name, values in self.features.items():
            array = np.array(values, dtype=np.float64)
            if array.shape != shape:
                raise ValueError(
                    f"feature {name!r} has shape {array.shape}, "
                    f"expected (n_org_units, n_periods) = {shape}"
                )
            arrays[name] = array
        object.__setattr__(self, "periods", canonical)
        object.__setattr__(self, "org_units", list(self.org_units))
        object.__setattr__(self, "features", arrays)

    @property
    def n_org_units(self) -> int:
        return len(self.org_units)

    @property
    def n_periods(self) -> int:
        return len(self.periods)

    @property
    def season_length(self) -> int:
        """Periods per year: 12 or 52."""
        return period_math.season_length(self.period_type)

    def season_positions(self) -> np.ndarray:
        """Position of every period within its year (0-based month or ISO week, week 53 -> 51)."""
        return np.array(
            [period_math.season_position(value) for value in self.periods], dtype=np.intp
        )

    def feature(self, name: str) -> np.ndarray:
        """A feature's array; ValueError naming it when absent or without any observed value."""
        if name not in self.features:
            raise ValueError(
                f"covariate {name!r} is missing from the dataset "
                f"(it has: {', '.join(sorted(self.features))})"
            )
        values = self.features[name]
        if values.size and np.isnan(values).all():
            raise ValueError(f"covariate {name!r} has no observed values in the dataset")
        return values

    def head(self, n_periods: int) -> Panel:
        """The panel restricted to its first ``n_periods`` periods (history up to a split)."""
        if not 1 <= n_periods <= self.n_periods:
            raise ValueError(f"n_periods={n_periods} must be between 1 and {self.n_periods}")
        return self.window(0, n_periods)

    def window(self, start: int, stop: int) -> Panel:
        """The periods with index ``start`` up to (excluding) ``stop``: a slice of a checked
        panel, so it is not checked again (a backtest takes one per split); its feature arrays
        are copies, as a constructed panel's are."""
        sliced = object.__new__(Panel)
        for name, value in (
            ("period_type", self.period_type),
            ("periods", self.periods[start:stop]),
            ("org_units", list(self.org_units)),
            (
                "features",
                {key: array[:, start:stop].copy() for key, array in self.features.items()},
            ),
        ):
            object.__setattr__(sliced, name, value)
        return sliced

    def periods_after(self, count: int) -> list[str]:
        """The ``count`` periods following the panel's last period."""
        return period_math.periods_after(self.periods[-1], count)
