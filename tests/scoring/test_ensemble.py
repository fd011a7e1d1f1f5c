"""ensemble(): quantile averaging of members' forecasts, weights, skill from earlier splits only,
and the targets a member lacks."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from chaplab.frames import with_org_unit_names
from chaplab.scoring import ensemble, relative_skill, score
from chaplab.scoring._skill import pairwise_skill

from .cases import START, actuals_frame, forecast_frame, normal_actuals, normal_forecasts


def two_members() -> dict[str, pd.DataFrame]:
    return {"low": normal_forecasts(3, shift=-4), "high": normal_forecasts(3, shift=8, spread=2)}


def test_the_mean_averages_each_level_of_each_target() -> None:
    members = {
        "a": forecast_frame([("X", START + 1, START + 1, (1.0, 2.0, 3.0, 4.0, 5.0))]),
        "b": forecast_frame([("X", START + 1, START + 1, (3.0, 4.0, 7.0, 8.0, 15.0))]),
    }
    combined = ensemble(members)
    assert combined["value"].tolist() == [2.0, 3.0, 5.0, 6.0, 10.0]
    weighted = ensemble(members, weights={"a": 3, "b": 1})
    assert weighted["value"].tolist() == [1.5, 2.5, 4.0, 5.0, 7.5]
    # the frame a member is: same columns, dtypes and order, so scoring and charts take it
    pd.testing.assert_frame_equal(
        combined.drop(columns="value"), members["a"].drop(columns="value")
    )


def test_the_median_of_three_members() -> None:
    members = {
        name: forecast_frame([("X", START + 1, START + 1, tuple(base + np.arange(5.0)))])
        for name, base in (("a", 0.0), ("b", 10.0), ("c", 100.0))
    }
    assert ensemble(members, method="median")["value"].tolist() == [10.0, 11.0, 12.0, 13.0, 14.0]
    assert ensemble(members)["value"].tolist() == pytest.approx(
        [110 / 3, 113 / 3, 116 / 3, 119 / 3, 122 / 3]
    )


def test_a_frame_with_a_model_column_works_like_a_mapping() -> None:
    members = two_members()
    stacked = pd.concat([frame.assign(model=name) for name, frame in members.items()])
    pd.testing.assert_frame_equal(ensemble(stacked), ensemble(members))


def test_a_target_a_member_lacks_is_named_or_dropped() -> None:
    members = two_members()
    members["high"] = members["high"].iloc[5:]  # the first target's five levels
    with pytest.raises(
        ValueError, match=r"member\(s\) 'high' \(1 of 36\) lack targets .*drop=True"
    ):
        ensemble(members)
    combined = ensemble(members, drop=True)
    assert len(combined) == 35 * 5
    assert not ((combined["org_unit"] == "OU0") & (combined["period"] == START + 1)).any()


def test_members_that_share_nothing_or_differ_in_levels_are_refused() -> None:
    a = forecast_frame([("X", START + 1, START + 1, (1.0, 2.0, 3.0, 4.0, 5.0))])
    b = forecast_frame([("Y", START + 1, START + 1, (1.0, 2.0, 3.0, 4.0, 5.0))])
    with pytest.raises(ValueError, match="the members share no target"):
        ensemble({"a": a, "b": b}, drop=True)
    seven = forecast_frame(
        [("X", START + 1, START + 1, tuple(range(7)))], (0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95)
    )
    with pytest.raises(ValueError, match=r"forecasts\['b'\] has quantile levels \[0.05, "):
        ensemble({"a": a, "b": seven})
    with pytest.raises(ValueError, match=r"forecasts\['b'\] lacks some quantile levels"):
        ensemble({"a": pd.concat([a, b]), "b": pd.concat([a, b.iloc[:4]])})
    with pytest.raises(ValueError, match=r"forecasts\['a'\] has more than one value"):
        ensemble({"a": pd.concat([a, a]), "b": a})


def test_bad_weights_and_methods_are_named() -> None:
    members = two_members()
    with pytest.raises(ValueError, match=r"weights must name every member .* missing \['high'\]"):
        ensemble(members, weights={"low": 1.0})
    with pytest.raises(ValueError, match=r"unknown \['other'\]"):
        ensemble(members, weights={"low": 1.0, "high": 1.0, "other": 2.0})
    with pytest.raises(ValueError, match="weights must be finite, >= 0 and not all 0"):
        ensemble(members, weights={"low": -1.0, "high": 2.0})
    with pytest.raises(ValueError, match="method='median' takes none"):
        ensemble(members, weights={"low": 1.0, "high": 1.0}, method="median")
    with pytest.raises(ValueError, match="method must be one of mean, median"):
        ensemble(members, method="max")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="weights='skill' needs actuals="):
        ensemble(members, weights="skill")


def test_skill_weights_come_from_earlier_targets_only() -> None:
    members = two_members()
    actuals = normal_actuals(3)
    combined = ensemble(members, weights="skill", actuals=actuals)
    scores = score(members, actuals)
    low, high = (
        members[name].set_index(["org_unit", "split_period", "period", "quantile"])
        for name in ("low", "high")
    )
    values = combined.set_index(["org_unit", "split_period", "period", "quantile"])["value"]
    # the share of "low" in each split's ensemble, solved from the values
    share = ((values - high["value"]) / (low["value"] - high["value"])).groupby(
        level="split_period"
    )
    for split, shares in share:
        first_forecast = split  # a split is named by its first forecast period
        history = scores[scores["period"] < first_forecast]
        if history.empty:
            expected = 0.5  # nothing observed yet: equal weights
        else:
            skill = pairwise_skill(history)
            expected = (1 / skill["low"]) / (1 / skill["low"] + 1 / skill["high"])
        assert shares.to_numpy() == pytest.approx(np.full(len(shares), expected))
    assert share.mean().iloc[0] == pytest.approx(0.5)
    assert share.mean().iloc[-1] != pytest.approx(0.5)


def test_skill_weights_never_see_the_targets_being_scored() -> None:
    members = two_members()
    actuals = normal_actuals(3)
    last_split = members["low"]["split_period"].max()
    # actual cases from the last split's first forecast period on change wildly
    changed = actuals.assign(
        value=np.where(actuals["period"] >= last_split, actuals["value"] * 50, actuals["value"])
    )
    before = ensemble(members, weights="skill", actuals=actuals)
    after = ensemble(members, weights="skill", actuals=changed)
    last = before["split_period"] == last_split
    pd.testing.assert_frame_equal(before[last], after[last])
    # while the cases observed before it do count
    earlier = actuals.assign(
        value=np.where(actuals["period"] == last_split - 1, actuals["value"] * 50, actuals["value"])
    )
    moved = ensemble(members, weights="skill", actuals=earlier)
    assert not np.allclose(before[last]["value"], moved[last]["value"])


def test_skill_weights_match_relative_skill() -> None:
    """1 / relative skill, normalised, does not depend on the baseline."""
    members = two_members()
    scores = score(members, normal_actuals(3))
    by_low = relative_skill(scores, "low", n_bootstrap=1).set_index("model")["relative_skill"]
    by_high = relative_skill(scores, "high", n_bootstrap=1).set_index("model")["relative_skill"]
    geometric = pairwise_skill(scores)
    for skill in (by_low, by_high, pd.Series(geometric)):
        inverse = 1 / skill
        assert (inverse / inverse.sum())["low"] == pytest.approx(
            (1 / by_low / (1 / by_low).sum())["low"]
        )


def test_the_ensemble_scores_beside_its_members_with_place_names() -> None:
    geojson = {
        "type": "FeatureCollection",
        "features": [
            {
                "type": "Feature",
                "id": f"OU{i}",
                "properties": {"name": f"Place {i}"},
                "geometry": None,
            }
            for i in range(3)
        ],
    }
    members = {
        name: with_org_unit_names(normal_forecasts(3, shift=shift), geojson)
        for name, shift in (("low", -8.0), ("high", 8.0))
    }
    combined = ensemble(members)
    assert combined.columns.tolist() == members["low"].columns.tolist()
    assert combined["org_unit_name"].astype(str).tolist()[:1] == ["Place 0"]
    actuals = actuals_frame([(f"OU{u}", START + p, 100.0) for u in range(3) for p in range(12)])
    scores = score({**members, "ensemble": combined}, actuals)
    assert scores["model"].cat.categories.tolist() == ["low", "high", "ensemble"]
    skill = relative_skill(scores, "low", n_bootstrap=10).set_index("model")
    # the mean of a forecast too low and one as much too high is right
    assert skill.loc["ensemble", "relative_skill"] < skill.loc["high", "relative_skill"]
    assert skill.loc["ensemble", "relative_skill"] < 1
