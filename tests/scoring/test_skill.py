"""relative_skill(): pairwise ratios on shared targets, geometric means, cluster bootstrap."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chaplab.scoring import relative_skill, score

from .cases import START, normal_actuals, normal_forecasts


def scores_frame(table: dict[str, dict[tuple[str, int, int], float]]) -> pd.DataFrame:
    """A scores frame from {model: {(org unit, split offset, horizon): wis}}."""
    rows = [
        {
            "model": model,
            "org_unit": unit,
            "split_period": START + split,
            "period": START + split + step,
            "wis": value,
        }
        for model, targets in table.items()
        for (unit, split, step), value in targets.items()
    ]
    return pd.DataFrame(rows)


def by_definition(scores: pd.DataFrame, baseline: str, metric: str = "wis") -> dict[str, float]:
    """Relative skill written out: theta for each pair on their shared targets, the geometric
    mean over every model sharing a target (itself included), over the baseline's."""
    keys = ["org_unit", "split_period", "period"]
    models = list(dict.fromkeys(scores["model"].astype(str)))
    logs: dict[str, list[float]] = {model: [] for model in models}
    for a, b in itertools.product(models, models):
        shared = scores[scores["model"] == a][[*keys, metric]].merge(
            scores[scores["model"] == b][[*keys, metric]], on=keys
        )
        if len(shared):
            logs[a].append(np.log(shared[f"{metric}_x"].mean() / shared[f"{metric}_y"].mean()))
    geometric = {model: np.exp(np.mean(values)) for model, values in logs.items()}
    return {model: value / geometric[baseline] for model, value in geometric.items()}


def test_a_small_case_by_hand() -> None:
    # a and b share two targets, a and c one, b and c one
    scores = scores_frame(
        {
            "a": {("X", 0, 1): 2.0, ("X", 0, 2): 4.0, ("Y", 0, 1): 6.0},
            "b": {("X", 0, 1): 1.0, ("X", 0, 2): 1.0, ("Z", 0, 1): 5.0},
            "c": {("Y", 0, 1): 3.0, ("Z", 0, 1): 10.0},
        }
    )
    # theta_ab = 3/1, theta_ac = 6/3, theta_bc = 5/10
    a = (1 * 3 * 2) ** (1 / 3)
    b = ((1 / 3) * 1 * 0.5) ** (1 / 3)
    c = ((1 / 2) * 2 * 1) ** (1 / 3)
    result = relative_skill(scores, baseline="c", n_bootstrap=10).set_index("model")
    assert result["relative_skill"].to_dict() == pytest.approx({"a": a / c, "b": b / c, "c": 1})
    assert result["n_targets"].to_dict() == {"a": 3, "b": 3, "c": 2}
    assert result["mean_score"].to_dict() == pytest.approx({"a": 4.0, "b": 7 / 3, "c": 6.5})
    assert result.loc["c", "baseline"] and not result.loc["a", "baseline"]


def test_a_model_sharing_no_target_has_no_skill() -> None:
    scores = scores_frame(
        {
            "a": {("X", 0, 1): 2.0, ("X", 0, 2): 4.0},
            "b": {("X", 0, 1): 1.0, ("X", 0, 2): 1.0},
            "lonely": {("Y", 0, 1): 3.0},
        }
    )
    result = relative_skill(scores, baseline="b", n_bootstrap=20).set_index("model")
    assert result.loc["a", "relative_skill"] == pytest.approx(3.0)
    assert np.isnan(result.loc["lonely", ["relative_skill", "lower", "upper"]].astype(float)).all()
    assert result.index[-1] == "lonely"  # ranked last


def test_a_baseline_sharing_no_target_is_an_error() -> None:
    scores = scores_frame({"a": {("X", 0, 1): 2.0}, "b": {("Y", 0, 1): 1.0}})
    message = "baseline 'a' shares no forecast target .* with any other model in scores"
    with pytest.raises(ValueError, match=message):
        relative_skill(scores, baseline="a")
    with pytest.raises(ValueError, match=message):  # a baseline alone has nothing to compare
        relative_skill(scores[scores["model"] == "a"], baseline="a")


def test_empty_scores_are_an_error() -> None:
    scores = score({"a": normal_forecasts(2)}, normal_actuals(2)).iloc[:0]
    with pytest.raises(ValueError, match="scores is empty: there is no scored target"):
        relative_skill(scores, baseline="a")


def test_with_shared_targets_skill_is_the_ratio_of_mean_scores() -> None:
    forecasts = {
        "naive": normal_forecasts(5, spread=2.0),
        "good": normal_forecasts(5),
        "biased": normal_forecasts(5, shift=8),
    }
    scores = score(forecasts, normal_actuals(5))
    result = relative_skill(scores, baseline="naive", n_bootstrap=50).set_index("model")
    means = scores.groupby("model", observed=True)["wis"].mean()
    expected = means / means["naive"]
    assert result["relative_skill"].to_dict() == pytest.approx(expected.to_dict())


def test_ranks_run_from_best_to_worst_with_intervals_around_the_estimate() -> None:
    forecasts = {
        "naive": normal_forecasts(8, spread=2.5, missing=0.2, seed=3),
        "good": normal_forecasts(8, missing=0.2, seed=4),
        "biased": normal_forecasts(8, shift=12, missing=0.2, seed=5),
    }
    scores = score(forecasts, normal_actuals(8), unmatched="drop")
    result = relative_skill(scores, baseline="naive", n_bootstrap=300)
    assert result["model"].tolist() == ["good", "naive", "biased"]
    assert result["rank"].tolist() == [1, 2, 3]
    assert (result["lower"] <= result["relative_skill"]).all()
    assert (result["relative_skill"] <= result["upper"]).all()
    baseline = result[result["baseline"]].iloc[0]
    assert (baseline["relative_skill"], baseline["lower"], baseline["upper"]) == (1.0, 1.0, 1.0)
    assert (result["metric"] == "wis").all()


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.floats(0.1, 100.0), min_size=12, max_size=12),
    st.lists(st.booleans(), min_size=12, max_size=12),
    st.sampled_from(["a", "b", "c"]),
)
def test_skill_matches_the_definition_and_the_baseline_is_one(
    values: list[float], kept: list[bool], baseline: str
) -> None:
    targets = [(unit, split, 1) for unit in ("X", "Y") for split in range(2)]
    table = {
        model: {
            target: values[4 * index + position]
            for position, target in enumerate(targets)
            if kept[4 * index + position] or position == 0  # every model has ("X", 0, 1)
        }
        for index, model in enumerate(("a", "b", "c"))
    }
    scores = scores_frame(table)
    result = relative_skill(scores, baseline=baseline, n_bootstrap=5).set_index("model")
    assert result.loc[baseline, "relative_skill"] == pytest.approx(1.0)
    assert result["relative_skill"].to_dict() == pytest.approx(by_definition(scores, baseline))


def test_the_bootstrap_is_seeded() -> None:
    forecasts = {"a": normal_forecasts(6), "b": normal_forecasts(6, spread=1.5, seed=2)}
    scores = score(forecasts, normal_actuals(6))
    first = relative_skill(scores, baseline="a", n_bootstrap=200, seed=7)
    again = relative_skill(scores, baseline="a", n_bootstrap=200, seed=7)
    other = relative_skill(scores, baseline="a", n_bootstrap=200, seed=8)
    pd.testing.assert_frame_equal(first, again)
    assert not np.allclose(first["lower"], other["lower"])


def test_the_bootstrap_resamples_whole_clusters() -> None:
    # Within each (org unit, split period) b scores twice a on the sum, but the periods differ
    # wildly: resampling clusters always gives 2, resampling single targets would not.
    table: dict[str, dict[tuple[str, int, int], float]] = {"a": {}, "b": {}}
    rng = np.random.default_rng(0)
    for unit, split in itertools.product(("X", "Y", "Z"), range(4)):
        first, second = rng.uniform(1, 10, 2)
        table["a"][(unit, split, 1)], table["a"][(unit, split, 2)] = first, second
        table["b"][(unit, split, 1)], table["b"][(unit, split, 2)] = 2 * second, 2 * first
    result = relative_skill(scores_frame(table), baseline="a", n_bootstrap=200)
    b = result.set_index("model").loc["b"]
    assert b[["relative_skill", "lower", "upper"]].tolist() == pytest.approx([2.0, 2.0, 2.0])


def test_bad_arguments_are_named() -> None:
    scores = score({"a": normal_forecasts(2), "b": normal_forecasts(2, shift=1)}, normal_actuals(2))
    with pytest.raises(ValueError, match=r"baseline 'naive' is not among .* \['a', 'b'\]"):
        relative_skill(scores, baseline="naive")
    with pytest.raises(ValueError, match="metric 'bias' is not a score where lower is better"):
        relative_skill(scores, baseline="a", metric="bias")
    with pytest.raises(ValueError, match="metric: scores has no numeric column 'crps'"):
        relative_skill(scores, baseline="a", metric="crps")
    with pytest.raises(ValueError, match="n_bootstrap must be a positive integer"):
        relative_skill(scores, baseline="a", n_bootstrap=0)
    with pytest.raises(ValueError, match="level must be between 0 and 1"):
        relative_skill(scores, baseline="a", level=90)
    both = pd.concat([scores, scores.assign(scale="log")])
    with pytest.raises(ValueError, match=r"the scales \['log', 'natural'\]: select one"):
        relative_skill(both, baseline="a")
    with pytest.raises(ValueError, match="more than one row for a model and target"):
        relative_skill(pd.concat([scores, scores]), baseline="a")
