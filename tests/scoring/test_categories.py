"""The ranked probability score of forecasts of ordered categories (a hub's pmf output)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scoringrules as sr

from chaplab.errors import ArgumentError
from chaplab.frames import parse_periods
from chaplab.scoring import ranked_probability_score, relative_skill, score_pmf, summarise

LEVELS = ["low", "moderate", "high", "very high"]


def week(label: str) -> pd.Period:
    """The ISO week ``label`` as frames hold it."""
    return parse_periods([label])[0]


def test_worked_case_and_extremes() -> None:
    probabilities = np.array(
        [[0.1, 0.2, 0.3, 0.4], [0.0, 0.0, 1.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.25] * 4]
    )
    observed = np.array([2, 2, 3, 0])
    scores = ranked_probability_score(observed, probabilities)
    # (0.1)^2 + (0.3)^2 + (0.6 - 1)^2 + 0 = 0.26; all on the observed category: 0; all on the
    # farthest category: K - 1 = 3
    np.testing.assert_allclose(scores, [0.26, 0.0, 3.0, 0.75**2 + 0.5**2 + 0.25**2])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_agrees_with_scoringrules(seed: int) -> None:
    rng = np.random.default_rng(seed)
    probabilities = rng.dirichlet(np.ones(5), size=200)
    observed = rng.integers(0, 5, size=200)
    np.testing.assert_allclose(
        ranked_probability_score(observed, probabilities),
        sr.rps_score(observed + 1, probabilities, backend="numpy"),
        rtol=0,
        atol=1e-12,
    )


def pmf_frame(probabilities: dict[str, list[float]]) -> pd.DataFrame:
    rows = [
        (model, "A", "2023W01", "2023W02", category, p)
        for model, values in probabilities.items()
        for category, p in zip(LEVELS, values, strict=True)
    ]
    frame = pd.DataFrame(
        rows, columns=["model", "org_unit", "split_period", "period", "category", "probability"]
    )
    frame["category"] = pd.Categorical(frame["category"], categories=LEVELS, ordered=True)
    for column in ("split_period", "period"):
        frame[column] = pd.PeriodIndex([week("2023W02")] * len(frame))
    frame["split_period"] = week("2023W01")
    return frame


OBSERVED = pd.DataFrame(
    {
        "org_unit": ["A"],
        "period": [week("2023W02")],
        "category": pd.Categorical(["high"], categories=LEVELS, ordered=True),
    }
)


def test_frames_are_scored_per_target_and_rank_with_relative_skill() -> None:
    frame = pmf_frame({"sharp": [0.0, 0.1, 0.8, 0.1], "vague": [0.25, 0.25, 0.25, 0.25]})
    scores = score_pmf(frame, OBSERVED)
    assert list(scores["model"]) == ["sharp", "vague"]
    assert scores["horizon"].tolist() == [2, 2]
    np.testing.assert_allclose(scores["rps"], [0.01 + 0.01, 0.0625 + 0.25 + 0.0625])
    assert summarise(scores)["rps"].tolist() == scores["rps"].tolist()
    skill = relative_skill(scores, baseline="vague", metric="rps", n_bootstrap=10)
    assert skill.set_index("model").loc["sharp", "relative_skill"] < 1


def test_what_cannot_be_scored_is_named() -> None:
    frame = pmf_frame({"m": [0.1, 0.2, 0.3, 0.4]})
    with pytest.raises(ArgumentError, match="has no probability for category 'very high'"):
        score_pmf(frame.iloc[:3], OBSERVED)
    with pytest.raises(ArgumentError, match="add up to 1.5, not 1"):
        score_pmf(frame.assign(probability=frame["probability"] * 1.5), OBSERVED)
    with pytest.raises(ArgumentError, match="must be an ordered categorical"):
        score_pmf(frame.assign(category=frame["category"].astype(str)), OBSERVED)
    elsewhere = OBSERVED.assign(org_unit="B")
    with pytest.raises(ArgumentError, match="observed has no category for org unit 'A'"):
        score_pmf(frame, elsewhere)
    assert score_pmf(frame, elsewhere, unmatched="drop").empty
