"""score(), quantile_loss() and summarise() on tidy frames."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from chaplab.frames import entries_to_frame, with_org_unit_names
from chaplab.scoring import quantile_loss, score, summarise, weighted_interval_score

from .cases import (
    LEVELS,
    START,
    actuals_frame,
    forecast_frame,
    normal_actuals,
    normal_forecasts,
    worked_case,
)


def test_the_worked_case_through_frames() -> None:
    frame, actuals = worked_case()
    row = score({"m": frame}, actuals).iloc[0]
    assert (row["model"], row["org_unit"], row["horizon"], row["month"]) == ("m", "A", 1, 2)
    assert row["wis"] == pytest.approx(7.357142857142857, abs=1e-12)
    assert row["dispersion"] == pytest.approx(4.5)
    assert row["overprediction"] == 0.0
    assert row["underprediction"] == pytest.approx(2.857142857142857)
    assert row["ae_median"] == 10.0
    assert row["bias"] == pytest.approx(-0.8)  # y above the median: under-predicted
    assert (row["interval_coverage_90"], row["interval_coverage_80"]) == (1.0, 1.0)
    assert row["interval_coverage_50"] == 0.0
    losses = quantile_loss({"m": frame}, actuals)
    assert losses["quantile_loss"].tolist() == pytest.approx([2.5, 4, 5, 5, 3.75, 3, 2.5])
    assert losses["quantile_loss"].sum() / 3.5 == pytest.approx(row["wis"])


def test_one_row_per_model_and_target_with_horizon_and_month() -> None:
    forecasts = {"a": normal_forecasts(2, 2, 3), "b": normal_forecasts(2, 2, 3, shift=5)}
    scores = score(forecasts, normal_actuals(2))
    assert len(scores) == 2 * 2 * 2 * 3
    assert list(scores["model"].cat.categories) == ["a", "b"]
    assert sorted(scores["horizon"].unique()) == [1, 2, 3]
    # 1 at the split period, the split's first forecast period
    horizon = (scores["period"] - scores["split_period"]).map(lambda offset: offset.n + 1)
    assert (scores["horizon"] == horizon).all()
    assert (scores["month"] == scores["period"].dt.month).all()
    np.testing.assert_allclose(
        scores["wis"],
        scores["dispersion"] + scores["overprediction"] + scores["underprediction"],
    )


def test_weekly_periods_have_horizons_and_their_thursday_month() -> None:
    split = pd.Period("2024-12-30", "W-SUN")  # ISO week 2025W01
    entries = [
        {"orgUnit": "A", "splitPeriod": "2025W01", "period": period, "quantile": q, "value": 5.0}
        for period in ("2025W01", "2025W02")
        for q in LEVELS
    ]
    actuals = actuals_frame([("A", split, 4.0), ("A", split + 1, 6.0)])
    scores = score({"m": entries_to_frame(entries)}, actuals)
    assert scores["horizon"].tolist() == [1, 2]
    # 2025W01 runs Monday 30 December 2024 to 5 January 2025; its Thursday is 2 January
    assert scores["month"].tolist() == [1, 1]


def test_weekly_errors_name_the_week_as_people_read_it() -> None:
    entries = [
        {"orgUnit": "A", "splitPeriod": "2020W53", "period": period, "quantile": q, "value": 5.0}
        for period in ("2020W53", "2021W01")
        for q in LEVELS
    ]
    week_53 = pd.Period("2020-12-28", "W-SUN")
    twice = actuals_frame([("A", week_53, 4.0), ("A", week_53, 5.0)])
    with pytest.raises(ValueError, match=r"org unit 'A', period 2020-W53$"):
        score({"m": entries_to_frame(entries)}, twice)
    unseen = actuals_frame([("A", week_53, 4.0)])
    with pytest.raises(ValueError, match=r"e\.g\. org unit 'A', period 2021-W01; pass"):
        score({"m": entries_to_frame(entries)}, unseen)


def test_a_frame_with_a_model_column_scores_like_a_mapping() -> None:
    forecasts = {"a": normal_forecasts(3), "b": normal_forecasts(3, spread=2)}
    long = pd.concat([frame.assign(model=name) for name, frame in forecasts.items()])
    shuffled = long.sample(frac=1.0, random_state=3)
    actuals = normal_actuals(3)
    expected = score(forecasts, actuals)
    pd.testing.assert_frame_equal(score(shuffled, actuals), expected)


def test_log_scale_scores_log1p_of_forecasts_and_actuals() -> None:
    frame, actuals = worked_case()
    row = score({"m": frame}, actuals, scale="log").iloc[0]
    expected = weighted_interval_score(
        np.log1p([100.0]),
        np.log1p([[50.0, 60, 80, 90, 95, 130, 150]]),
        np.array([0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95]),
    )
    assert row["scale"] == "log"
    assert row["wis"] == pytest.approx(expected.wis[0])
    assert row["wis"] != pytest.approx(np.log1p(7.357142857142857))


def test_summaries_by_horizon_org_unit_split_and_month() -> None:
    forecasts = {"a": normal_forecasts(3, 3, 2), "b": normal_forecasts(3, 3, 2, shift=20)}
    scores = score(forecasts, normal_actuals(3))
    overall = summarise(scores)
    assert overall["model"].tolist() == ["a", "b"]
    assert overall["n"].tolist() == [18, 18]
    assert overall.loc[0, "wis"] == pytest.approx(scores.loc[scores["model"] == "a", "wis"].mean())
    assert overall.loc[1, "wis"] > overall.loc[0, "wis"]
    for by, groups in (("horizon", 2), ("org_unit", 3), ("split_period", 3), ("month", 4)):
        table = summarise(scores, by=by)
        assert len(table) == 2 * groups
        weighted = (table["wis"] * table["n"]).groupby(table["model"], observed=True).sum()
        np.testing.assert_allclose(weighted / 18, overall["wis"])
    by_two = summarise(scores, by=["horizon", "org_unit"], metrics=["wis"])
    assert list(by_two.columns) == ["model", "scale", "horizon", "org_unit", "n", "wis"]


def test_quantile_losses_summarise_by_level() -> None:
    forecasts = {"a": normal_forecasts(2)}
    table = summarise(quantile_loss(forecasts, normal_actuals(2)), by="quantile")
    assert table["quantile"].tolist() == list(LEVELS)
    assert list(table.columns) == ["model", "scale", "quantile", "n", "quantile_loss"]


def test_unmatched_actuals_are_an_error_or_dropped() -> None:
    frame = normal_forecasts(2, 2, 3)
    actuals = normal_actuals(2, periods=4)  # periods after 2023-04 are not observed
    with pytest.raises(
        ValueError,
        match=r"actuals: 2 of 12 forecast targets of model 'm'"
        r" have no observed value.*unmatched='drop'",
    ):
        score({"m": frame}, actuals)
    kept = score({"m": frame}, actuals, unmatched="drop")
    assert len(kept) == 10
    assert kept["period"].max() == START + 3


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda f, a: ({"m": f.drop(columns="split_period")}, a),
            r"forecasts\['m'\] lacks column\(s\) \['split_period'\]",
        ),
        (
            lambda f, a: ({"m": f}, a.drop(columns="value")),
            r"actuals lacks column\(s\) \['value'\]",
        ),
        (lambda f, a: (f, a), "forecasts has no 'model' column"),
        (lambda f, a: ({"m": f}, pd.concat([a, a])), "more than one value for org unit 'OU0'"),
        (
            lambda f, a: ({"m": f}, a.assign(period=a["period"].astype(str))),
            "actuals: column 'period' is (str|object) but the forecasts' periods are period\\[M\\]",
        ),
        (
            lambda f, a: ({"m": f.iloc[1:]}, a),
            r"org unit 'OU0', split period 2023-02, period 2023-02 has quantile levels "
            r"\[0.25, 0.5, 0.75, 0.9\]",
        ),
        (
            lambda f, a: ({"m": pd.concat([f, f.iloc[:1]])}, a),
            r"period 2023-02 has quantile levels \[0.1, 0.1, 0.25, 0.5, 0.75, 0.9\]",
        ),
        (
            lambda f, a: ({"m": f.assign(value=f["value"].where(f.index != 3))}, a),
            "value is nan for a forecast of model 'm'",
        ),
        (lambda f, a: ({"m": f[f["quantile"] != 0.9]}, a), "0.1 has no partner 0.9"),
        (lambda f, a: ({"m": f.assign(value=f["value"] - 200)}, a), None),
    ],
)
def test_bad_input_is_named(change, message: str | None) -> None:
    forecasts, actuals = change(normal_forecasts(2), normal_actuals(2))
    if message is None:  # negative values are fine on the natural scale, not on the log scale
        score(forecasts, actuals)
        with pytest.raises(ValueError, match="scale='log' takes log1p.*negative forecast values"):
            score(forecasts, actuals, scale="log")
        return
    with pytest.raises(ValueError, match=message):
        score(forecasts, actuals)


def test_bad_arguments_are_named() -> None:
    scores = score({"m": normal_forecasts(2)}, normal_actuals(2))
    with pytest.raises(ValueError, match="scale must be one of natural, log"):
        score({"m": normal_forecasts(2)}, normal_actuals(2), scale="sqrt")
    with pytest.raises(ValueError, match="by: scores has no column 'week'"):
        summarise(scores, by="week")
    with pytest.raises(ValueError, match="by: 'wis' is a metric"):
        summarise(scores, by="wis")
    with pytest.raises(ValueError, match=r"metrics: \['crps'\] are not metric columns"):
        summarise(scores, metrics=["crps"])


def test_models_with_different_levels_score_side_by_side() -> None:
    seven = (0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95)
    forecasts = {"five": normal_forecasts(2), "seven": normal_forecasts(2, levels=seven)}
    scores = score(forecasts, normal_actuals(2))
    five = scores[scores["model"] == "five"]
    assert five["interval_coverage_90"].isna().all()
    assert scores.loc[scores["model"] == "seven", "interval_coverage_90"].notna().all()
    assert summarise(scores)["interval_coverage_90"].isna().tolist() == [True, False]


def test_forecasts_given_as_rows_match_the_rules() -> None:
    rows = [
        ("A", START + 1, START + 1, (1.0, 2.0, 3.0, 4.0, 5.0)),
        ("B", START + 1, START + 1, (0.0, 0.0, 0.0, 1.0, 2.0)),
    ]
    actuals = actuals_frame([("A", START + 1, 6.0), ("B", START + 1, 0.0)])
    scores = score({"m": forecast_frame(rows)}, actuals)
    a, b = scores.iloc[0], scores.iloc[1]
    # A: y above every quantile: (6-5 + 6-4 + 0.5 * 3) / 2.5 under-prediction
    assert a["underprediction"] == pytest.approx(4.5 / 2.5)
    assert a["dispersion"] == pytest.approx((0.1 * 4 + 0.25 * 2) / 2.5)
    assert a["bias"] == -1.0
    # B: y equals the median: no over- or under-prediction, no bias
    assert (b["overprediction"], b["underprediction"], b["bias"]) == (0.0, 0.0, 0.0)


def _named(frame: pd.DataFrame, count: int) -> pd.DataFrame:
    """The frame with the names of its org units OU0, OU1, ... ('Place 0', ...)."""
    return with_org_unit_names(frame, {f"OU{i}": f"Place {i}" for i in range(count)})


def test_scores_of_named_forecasts_keep_the_names_in_every_summary_by_org_unit() -> None:
    forecasts = {"a": _named(normal_forecasts(3), 3), "b": normal_forecasts(3, shift=5.0)}
    actuals = normal_actuals(3)
    scores = score(forecasts, actuals)
    assert scores.columns[:3].tolist() == ["model", "org_unit", "org_unit_name"]
    pairs = scores[["org_unit", "org_unit_name"]].drop_duplicates().astype(str)
    assert sorted(map(tuple, pairs.to_numpy())) == [(f"OU{i}", f"Place {i}") for i in range(3)]
    by_place = summarise(scores, by="org_unit")
    assert by_place.columns[:4].tolist() == ["model", "scale", "org_unit", "org_unit_name"]
    assert len(by_place) == 6 and (by_place["n"] == 12).all()  # the same groups as without
    assert by_place["org_unit_name"].astype(str).tolist()[:3] == ["Place 0", "Place 1", "Place 2"]
    by_name = summarise(scores, by="org_unit_name")
    assert by_name["wis"].tolist() == pytest.approx(by_place["wis"].tolist())
    assert "org_unit_name" not in summarise(scores, by="horizon").columns
    losses = quantile_loss(forecasts, actuals)
    by_level = summarise(losses, by=["org_unit", "quantile"])
    assert set(by_level["org_unit_name"].astype(str)) == {"Place 0", "Place 1", "Place 2"}


def test_names_from_the_actual_cases_and_none_without_names() -> None:
    forecasts = {"a": normal_forecasts(2)}
    named_actuals = _named(normal_actuals(2), 2)
    scores = score(forecasts, named_actuals)
    assert set(scores["org_unit_name"].astype(str)) == {"Place 0", "Place 1"}
    plain = score(forecasts, normal_actuals(2))
    assert "org_unit_name" not in plain.columns
    assert "org_unit_name" not in summarise(plain, by="org_unit").columns
