"""Proper scores of quantile forecasts, on tidy frames from any modeling service.

``score(forecasts, actuals)`` gives one row per model and forecast target with the weighted
interval score and its parts, the absolute error of the median, bias and interval coverage;
``summarise(scores, by=...)`` averages them per model and horizon, org unit, split period or
calendar month; ``relative_skill(scores, baseline=...)`` ranks models with bootstrap intervals;
``coverage``, ``pit_values`` and ``pit_histogram`` show calibration; ``quantile_loss`` scores
every quantile. ``exceedance_probability(entries, thresholds)`` gives the outbreak probability
P(cases > threshold) per target from quantiles or samples, ``endemic_thresholds`` thresholds
from the cases before each target (and split), ``decision_skill`` the hits, misses and false
alarms of alerting at each probability cut-off with the best cut-off by the Peirce skill
score. ``ensemble(forecasts, weights=None, method="mean")`` combines models' forecasts into
one by quantile averaging (equal, given or skill weights from earlier splits only).
``score_pmf(forecasts, observed)`` scores forecasts of ordered categories (a forecast hub's pmf
output) by the ranked probability score. The array functions (``pinball_loss``,
``interval_score``, ``weighted_interval_score``, ``ranked_probability_score``) score plain
numpy arrays. Formulas: docs/scoring.md.
"""

from __future__ import annotations

from chaplab.scoring._calibration import coverage, pit_histogram, pit_values
from chaplab.scoring._categories import ranked_probability_score, score_pmf
from chaplab.scoring._ensemble import ensemble
from chaplab.scoring._exceedance import (
    DecisionSkill,
    decision_skill,
    endemic_thresholds,
    exceedance_probability,
)
from chaplab.scoring._rules import interval_score, pinball_loss, weighted_interval_score
from chaplab.scoring._score import quantile_loss, score, summarise
from chaplab.scoring._skill import relative_skill

__all__ = [
    "DecisionSkill",
    "coverage",
    "decision_skill",
    "endemic_thresholds",
    "ensemble",
    "exceedance_probability",
    "interval_score",
    "pinball_loss",
    "pit_histogram",
    "pit_values",
    "quantile_loss",
    "ranked_probability_score",
    "relative_skill",
    "score",
    "score_pmf",
    "summarise",
    "weighted_interval_score",
]
