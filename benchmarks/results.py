"""One row of the benchmark table: a measured figure, its target and whether the target holds.

Every target is a comparison of the measured value with a baseline value:

- ``at_most``: an absolute limit (the baseline is the limit itself), ratio = measured / limit;
- ``within``: at most ``factor`` times a baseline measured in the same run;
- ``faster``: at least ``factor`` times faster than a baseline, ratio = baseline / measured.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Result:
    """A row: ``passed`` is None for a figure reported without a target."""

    figure: str
    measured: float
    unit: str
    target: str
    baseline: float | None
    baseline_label: str
    ratio: float | None
    passed: bool | None
    note: str = ""

    def __post_init__(self) -> None:
        """Plain Python numbers and booleans (numpy's would not go into JSON)."""
        for name in ("measured", "baseline", "ratio"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, float(value))
        if self.passed is not None:
            object.__setattr__(self, "passed", bool(self.passed))

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def at_most(figure: str, measured: float, limit: float, unit: str, note: str = "") -> Result:
    """``measured`` must not exceed the absolute ``limit``."""
    return Result(
        figure,
        measured,
        unit,
        f"<= {limit:g} {unit}",
        limit,
        "target",
        measured / limit,
        measured <= limit,
        note,
    )


def within(
    figure: str,
    measured: float,
    baseline: float,
    factor: float,
    unit: str,
    baseline_label: str,
    note: str = "",
) -> Result:
    """``measured`` must be at most ``factor`` times ``baseline``."""
    ratio = measured / baseline
    return Result(
        figure,
        measured,
        unit,
        f"<= {factor:g}x {baseline_label}",
        baseline,
        baseline_label,
        ratio,
        ratio <= factor,
        note,
    )


def faster(
    figure: str,
    measured: float,
    baseline: float,
    factor: float,
    unit: str,
    baseline_label: str,
    note: str = "",
) -> Result:
    """``measured`` (a time) must be at least ``factor`` times shorter than ``baseline``."""
    ratio = baseline / measured
    return Result(
        figure,
        measured,
        unit,
        f">= {factor:g}x faster than {baseline_label}",
        baseline,
        baseline_label,
        ratio,
        ratio >= factor,
        note,
    )


def reported(
    figure: str,
    measured: float,
    unit: str,
    baseline: float | None = None,
    baseline_label: str = "",
    note: str = "",
) -> Result:
    """A figure shown for context, without a target of its own."""
    ratio = measured / baseline if baseline else None
    return Result(figure, measured, unit, "(reported)", baseline, baseline_label, ratio, None, note)


def failed(figure: str, error: BaseException) -> Result:
    """A figure whose measurement itself failed: counts as a missed target."""
    return Result(
        figure,
        float("nan"),
        "",
        "(ran)",
        None,
        "",
        None,
        False,
        f"{type(error).__name__}: {error}",
    )
