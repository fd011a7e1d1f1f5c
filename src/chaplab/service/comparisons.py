"""Comparing an evaluation's aggregate metrics with a reference model's, as chap-core 2.5.1 does.

Every value is oriented so that a positive number means better than the reference and zero
means equal. Scores where lower is better use the skill ratio ``(reference - model) / reference``
(``1 - model / reference``; undefined, None, when the reference scores 0). Coverage has a target
(0.8 for the 10-90 interval, 0.5 for 25-75) that it should reach at least: the value is how much
closer to the target the model's coverage is than the reference's, in proportion (0 for both at
or above the target).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

ComparisonOp = Literal["skill_ratio", "target_distance"]

COMPARISON_DESCRIPTIONS: dict[str, str] = {
    "skill_ratio": (
        "Relative improvement over the reference: 0.2 means 20% better, -0.5 means 50% worse."
    ),
    "target_distance": (
        "How much closer to the metric's target the score is than the reference's, in the "
        "metric's units."
    ),
}


@dataclass(frozen=True)
class MetricKind:
    """A metric of the aggregate metrics and how it is compared with a reference."""

    id: str
    display_name: str
    description: str
    comparison_op: ComparisonOp
    target: float | None = None

    def compare(self, score: float, reference: float) -> float | None:
        """The comparison value of ``score`` against ``reference``; None when undefined."""
        if self.comparison_op == "skill_ratio":
            return None if reference == 0 else (reference - score) / reference
        assert self.target is not None
        return max(self.target - reference, 0.0) - max(self.target - score, 0.0)


def _lower_is_better(metric_id: str, display_name: str, description: str) -> MetricKind:
    return MetricKind(metric_id, display_name, description, "skill_ratio")


def _coverage(low: int, high: int) -> MetricKind:
    target = (high - low) / 100
    return MetricKind(
        f"coverage_{low}_{high}",
        f"Coverage {low}-{high}",
        f"Proportion of observations within {low}th-{high}th percentile (higher is better, up "
        f"to the {target:g} target)",
        "target_distance",
        target,
    )


METRIC_KINDS: tuple[MetricKind, ...] = (
    _lower_is_better(
        "crps", "CRPS", "Continuous Ranked Probability Score - measures calibration and sharpness"
    ),
    _lower_is_better(
        "mae", "MAE", "Mean Absolute Error - measures average absolute prediction error"
    ),
    _lower_is_better(
        "rmse", "RMSE", "Root Mean Squared Error - measures average prediction error magnitude"
    ),
    _coverage(10, 90),
    _coverage(25, 75),
    _lower_is_better(
        "winkler_score_10_90",
        "Winkler Score 10-90",
        "Winkler score for 10th-90th percentile prediction interval",
    ),
    _lower_is_better(
        "winkler_score_25_75",
        "Winkler Score 25-75",
        "Winkler score for 25th-75th percentile prediction interval",
    ),
)
"""The metrics of an evaluation's ``aggregateMetrics``, in the order they are listed."""


def compare_metrics(
    scores: Mapping[str, float | None], reference: Mapping[str, float | None]
) -> dict[str, float | None]:
    """Each metric both have (finite) compared with the reference, keyed by metric id."""
    values: dict[str, float | None] = {}
    for kind in METRIC_KINDS:
        score, base = scores.get(kind.id), reference.get(kind.id)
        if score is None or base is None or not math.isfinite(score) or not math.isfinite(base):
            continue
        values[kind.id] = kind.compare(score, base)
    return values
