"""Outbreak probabilities from quantiles and samples, endemic thresholds from the cases before
each split, and the decision skill of alerting at a probability cut-off: hand-computed cases,
a brute-force comparison with samples, and bad input named."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
import pytest

from chaplab.frames import entries_to_frame
from chaplab.scoring import decision_skill, endemic_thresholds, exceedance_probability

from .cases import LEVELS, START, actuals_frame, forecast_frame, normal_forecasts, wire

VALUES = (10.0, 20.0, 30.0, 40.0, 60.0)  # at LEVELS 0.1, 0.25, 0.5, 0.75, 0.9


def one_target(values: Sequence[float] = VALUES) -> pd.DataFrame:
    return forecast_frame([("A", START + 1, START + 1, values)])


@pytest.mark.parametrize(
    ("threshold", "probability", "lower", "upper"),
    [
        (25.0, 0.625, 0.625, 0.625),  # F = 0.25 + 0.25 x (25 - 20) / 10 = 0.375
        (30.0, 0.5, 0.5, 0.5),  # on a value: its level
        (50.0, 0.175, 0.175, 0.175),  # F = 0.75 + 0.15 x (50 - 40) / 20 = 0.825
        (5.0, 0.95, 0.9, 1.0),  # below the lowest value: in [1 - 0.1, 1]
        (60.0, 0.05, 0.0, 0.1),  # at or above the highest: in [0, 1 - 0.9]
        (1e6, 0.05, 0.0, 0.1),
    ],
)
def test_the_probability_interpolates_the_quantiles_and_bounds_the_tails(
    threshold: float, probability: float, lower: float, upper: float
) -> None:
    result = exceedance_probability(one_target(), threshold)
    row = result.iloc[0]
    assert row["probability"] == pytest.approx(probability)
    assert (row["probability_lower"], row["probability_upper"]) == (
        pytest.approx(lower),
        pytest.approx(upper),
    )
    assert row["threshold"] == threshold
    assert list(result.columns) == [
        "org_unit",
        "split_period",
        "period",
        "threshold",
        "probability",
        "probability_lower",
        "probability_upper",
    ]


def test_tied_values_count_their_whole_mass_at_or_below_the_threshold() -> None:
    # the three lowest levels all say zero cases: P(cases > 0) = 1 - 0.5
    zeros = exceedance_probability(one_target((0.0, 0.0, 0.0, 10.0, 20.0)), 0.0)
    assert zeros["probability"].iloc[0] == pytest.approx(0.5)
    # crossing quantiles are sorted first, as for the PIT
    crossed = exceedance_probability(one_target((20.0, 10.0, 30.0, 60.0, 40.0)), 25.0)
    assert crossed["probability"].iloc[0] == pytest.approx(0.625)


def test_thresholds_per_org_unit_and_period_or_per_split() -> None:
    entries = forecast_frame(
        [
            ("A", START + 1, START + 1, VALUES),
            ("A", START + 1, START + 2, VALUES),
            ("B", START + 1, START + 1, tuple(2 * v for v in VALUES)),
            ("A", START + 2, START + 2, VALUES),
        ]
    )
    by_period = pd.DataFrame(
        {
            "org_unit": ["A", "B", "A"],
            "period": [wire(START + 1), "2023-02", wire(START + 2)],
            "threshold": [25.0, 50.0, 50.0],
        }
    )
    result = exceedance_probability(entries, by_period)
    assert result["probability"].tolist() == pytest.approx([0.625, 0.175, 0.175, 0.625])
    by_split = pd.DataFrame(
        {
            "org_unit": ["A"],
            "split_period": [START + 2],
            "period": [START + 2],
            "threshold": [30.0],
        }
    )
    split_result = exceedance_probability(entries, by_split)
    # targets by org unit, split period and period: only (A, 2023-03, 2023-03) has a threshold
    assert split_result["probability"].iloc[2] == pytest.approx(0.5)
    assert split_result["probability"].drop(index=2).isna().all()


def test_names_are_kept_for_maps_and_tiles() -> None:
    entries = one_target().assign(org_unit_name="Alpha")
    result = exceedance_probability(entries, 25.0)
    assert result["org_unit_name"].tolist() == ["Alpha"]


def sample_frame(samples: dict[tuple[str, int], Sequence[float]]) -> pd.DataFrame:
    """An evaluation's samples: (org unit, periods after START) -> sample values."""
    rows = [
        {
            "org_unit": unit,
            "split_period": START,
            "period": START + step,
            "sample": index,
            "value": value,
        }
        for (unit, step), values in samples.items()
        for index, value in enumerate(values)
    ]
    frame = pd.DataFrame(rows)
    frame["org_unit"] = frame["org_unit"].astype("category")
    return frame


def test_samples_give_the_share_above_the_threshold() -> None:
    rng = np.random.default_rng(3)
    draws = {("A", 1): rng.gamma(4, 10, 500), ("B", 1): rng.gamma(2, 30, 500)}
    result = exceedance_probability(sample_frame(draws), 45.0)
    brute = [float(np.mean(draws[key] > 45.0)) for key in (("A", 1), ("B", 1))]
    assert result["probability"].tolist() == brute
    assert (result["probability_lower"] == result["probability_upper"]).all()


def test_many_quantiles_agree_with_the_samples_they_summarise() -> None:
    rng = np.random.default_rng(11)
    draws = rng.lognormal(3.5, 0.6, 200_000)
    levels = np.round(np.arange(0.01, 1.0, 0.01), 2)
    entries = entries_to_frame(
        [
            {
                "orgUnit": "A",
                "splitPeriod": wire(START),
                "period": wire(START + 1),
                "quantile": float(level),
                "value": float(value),
            }
            for level, value in zip(levels, np.quantile(draws, levels), strict=True)
        ]
    )
    for threshold in (20.0, 33.0, 50.0, 90.0):
        from_quantiles = exceedance_probability(entries, threshold)["probability"].iloc[0]
        assert from_quantiles == pytest.approx(np.mean(draws > threshold), abs=0.006)


def monthly_actuals(cases: dict[str, float] | None = None) -> pd.DataFrame:
    """Org unit A, 2019-01 to 2022-12: month x (year - 2018), so December is 12, 24, 36, 48."""
    periods = pd.period_range("2019-01", "2022-12", freq="M")
    values = [float(p.month * (p.year - 2018)) for p in periods]
    frame = actuals_frame([("A", p, v) for p, v in zip(periods, values, strict=True)])
    for period, value in (cases or {}).items():
        frame.loc[frame["period"] == pd.Period(period, "M"), "value"] = value
    return frame


def december_forecasts() -> pd.DataFrame:
    """Forecasts of 2022-12 made after 2021-11 (split 2021-12, horizon 13) and after 2022-01
    (split 2022-02, horizon 11)."""
    december = pd.Period("2022-12", "M")
    return forecast_frame(
        [
            ("A", pd.Period("2021-12", "M"), december, VALUES),
            ("A", pd.Period("2022-02", "M"), december, VALUES),
        ]
    )


def test_endemic_thresholds_use_only_the_cases_before_each_split() -> None:
    seasonal = endemic_thresholds(
        december_forecasts(), monthly_actuals(), "seasonal", std_multiplier=1.0
    )
    # made at 2021-11: Decembers 2019 and 2020 (12, 24): 18 + sqrt(72);
    # made at 2022-01: 2019-2021 (12, 24, 36): 24 + 12
    assert seasonal["threshold"].tolist() == pytest.approx([18 + math.sqrt(72), 36.0])
    assert list(seasonal.columns) == ["org_unit", "split_period", "period", "threshold"]
    percentile = endemic_thresholds(
        december_forecasts(), monthly_actuals(), "percentile", quantile=0.75, baseline_years=2
    )
    # 2020 and 2021 are the two years before 2022, but only 2020 precedes 2021-11
    assert percentile["threshold"].tolist() == pytest.approx([24.0, 24 + 0.75 * 12])
    # what happened in and after a split's month never moves its thresholds
    changed = monthly_actuals({"2021-11": 1e4, "2021-12": 1e4, "2022-06": 1e4})
    again = endemic_thresholds(december_forecasts(), changed, "seasonal", std_multiplier=1.0)
    assert again["threshold"].iloc[0] == seasonal["threshold"].iloc[0]
    assert again["threshold"].iloc[1] != seasonal["threshold"].iloc[1]  # 2021-12 is before 2022-01


def test_endemic_thresholds_of_weeks_group_iso_weeks() -> None:
    periods = pd.period_range("2019-12-30", "2021-12-26", freq="W-SUN")  # 2020W01 to 2021W52
    actuals = actuals_frame(
        [
            ("A", p, float(week + 100 * (year - 2020)))
            for p in periods
            for year, week, _ in [p.start_time.isocalendar()]
        ]
    )
    entries = entries_to_frame(
        [
            {"orgUnit": "A", "period": period, "quantile": level, "value": value}
            for period in ("2022W01", "2021W52")
            for level, value in zip(LEVELS, VALUES, strict=True)
        ]
    )
    result = endemic_thresholds(entries, actuals, "percentile", quantile=0.5, baseline_years=None)
    # 2022W01 from 2020W01 (1) and 2021W01 (101); 2021W52 from 2020's weeks 52 and 53
    assert dict(zip(result["period"].astype(str), result["threshold"], strict=True)) == {
        "2022-W01": 51.0,
        "2021-W52": 52.5,
    }


def sampled_evaluation(probabilities: Sequence[float]) -> pd.DataFrame:
    """One target per probability, for org units T0, T1, ...: ten samples, that share above 100."""
    return sample_frame(
        {
            (f"T{index}", 1): [150.0] * round(10 * p) + [50.0] * (10 - round(10 * p))
            for index, p in enumerate(probabilities)
        }
    )


def test_decision_skill_counts_hits_misses_and_false_alarms_per_cut_off() -> None:
    probabilities = [0.9, 0.6, 0.4, 0.1, 0.7, 0.2]
    observed = [120.0, 101.0, 80.0, 10.0, 100.0, 130.0]  # outbreaks: > 100
    entries = sampled_evaluation(probabilities)
    actuals = actuals_frame(
        [(f"T{i}", START + 1, v) for i, v in enumerate(observed)] + [("T9", START + 1, 500.0)]
    )
    skill = decision_skill(entries, actuals, 100.0, cutoffs=[0.8, 0.15, 0.5, 0.65])
    assert skill.criterion.startswith("Peirce skill score")
    table = skill.table.set_index("cutoff")
    assert table.index.tolist() == [0.15, 0.5, 0.65, 0.8]
    assert table[["hits", "misses", "false_alarms", "correct_negatives"]].values.tolist() == [
        [3, 0, 2, 1],
        [2, 1, 1, 2],
        [1, 2, 1, 2],
        [1, 2, 0, 3],
    ]
    assert table["hit_rate"].tolist() == pytest.approx([1, 2 / 3, 1 / 3, 1 / 3])
    assert table["false_alarm_rate"].tolist() == pytest.approx([2 / 3, 1 / 3, 1 / 3, 0])
    assert table["peirce_skill"].tolist() == pytest.approx([1 / 3, 1 / 3, 0, 1 / 3])
    # three cut-offs share the best score; the largest gives it with the fewest alerts
    assert skill.cutoff == 0.8 and skill.best["hits"] == 1
    assert len(skill.targets) == 6 and skill.targets["outbreak"].sum() == 3


def test_decision_skill_leaves_out_targets_without_a_case_or_threshold() -> None:
    entries = sampled_evaluation([0.9, 0.1, 0.5])
    actuals = actuals_frame([("T0", START + 1, 200.0), ("T1", START + 1, 20.0)])
    thresholds = pd.DataFrame(
        {
            "org_unit": ["T0", "T1", "T2"],
            "period": [START + 1] * 3,
            "threshold": [100.0, np.nan, 100.0],
        }
    )
    skill = decision_skill(entries, actuals, thresholds)
    assert skill.targets["org_unit"].astype(str).tolist() == ["T0"]
    assert skill.table["cutoff"].tolist() == pytest.approx(np.arange(0.05, 0.951, 0.05))


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: exceedance_probability(one_target().drop(columns="value"), 1.0), "value"),
        (lambda: exceedance_probability(one_target().assign(sample=1), 1.0), "exactly one"),
        (lambda: exceedance_probability(one_target(), "high"), "thresholds must be"),
        (lambda: exceedance_probability(one_target(), float("nan")), "finite"),
        (
            lambda: exceedance_probability(one_target(), pd.DataFrame({"org_unit": ["A"]})),
            "threshold",
        ),
        (
            lambda: exceedance_probability(
                one_target(),
                pd.DataFrame({"org_unit": ["Z"], "period": [START + 1], "threshold": [1.0]}),
            ),
            "no threshold for any",
        ),
        (
            lambda: exceedance_probability(
                one_target(),
                pd.DataFrame(
                    {"org_unit": ["A", "A"], "period": [START + 1] * 2, "threshold": [1.0, 2.0]}
                ),
            ),
            "more than one",
        ),
        (
            lambda: exceedance_probability(december_forecasts().iloc[:-1], 1.0),
            "same quantile levels",
        ),
        (
            lambda: exceedance_probability(pd.concat([one_target(), one_target().iloc[:1]]), 1.0),
            "exactly once",
        ),
        (
            lambda: decision_skill(
                one_target().drop(columns="split_period"), monthly_actuals(), 1.0
            ),
            "split_period",
        ),
        (lambda: decision_skill(one_target(), monthly_actuals(), 1.0, cutoffs=[1.5]), "cutoffs"),
        (lambda: endemic_thresholds(one_target(), monthly_actuals(), "median"), "strategy"),
        (
            lambda: endemic_thresholds(one_target(), monthly_actuals(), "percentile", quantile=1.5),
            "quantile",
        ),
        (
            lambda: endemic_thresholds(
                one_target(), monthly_actuals(), "percentile", baseline_years=0
            ),
            "baseline_years",
        ),
        (
            lambda: endemic_thresholds(one_target(), monthly_actuals().drop(columns="value")),
            "actuals",
        ),
    ],
)
def test_bad_input_is_named(call: object, message: str) -> None:
    with pytest.raises((ValueError, TypeError), match=message):
        call()  # type: ignore[operator]


def test_decision_skill_on_an_evaluation_with_thresholds_from_before_each_split() -> None:
    entries = normal_forecasts(org_units=4, splits=12, horizon=3)  # splits 2023-01 to 2023-12
    history = pd.period_range("2020-01", "2024-03", freq="M")
    rng = np.random.default_rng(5)
    actuals = actuals_frame(
        [
            (f"OU{unit}", period, 100 + 10 * rng.standard_normal())
            for unit in range(4)
            for period in history
        ]
    )
    thresholds = endemic_thresholds(entries, actuals, "seasonal", std_multiplier=0.5)
    assert thresholds["threshold"].notna().all()
    skill = decision_skill(entries, actuals, thresholds)
    table = skill.table
    outbreaks = int(skill.targets["outbreak"].sum())
    assert 0 < outbreaks < len(skill.targets) == 4 * 12 * 3
    assert ((table["hits"] + table["misses"]) == outbreaks).all()
    assert (
        table[["hits", "misses", "false_alarms", "correct_negatives"]].sum(axis=1)
        == len(skill.targets)
    ).all()
    # a higher cut-off alerts less often: fewer hits and fewer false alarms
    assert (np.diff(table["hits"]) <= 0).all() and (np.diff(table["false_alarms"]) <= 0).all()
    assert skill.best["peirce_skill"] == pytest.approx(table["peirce_skill"].max())


def test_endemic_thresholds_of_a_prediction_use_only_cases_before_its_first_period() -> None:
    # a prediction from 2021-12 (the data ended in 2021-11) to 2022-12, horizon 13
    entries = entries_to_frame(
        [
            {"orgUnit": "A", "period": period, "quantile": level, "value": value}
            for period in ("202112", "202212")
            for level, value in zip(LEVELS, VALUES, strict=True)
        ]
    )
    thresholds = endemic_thresholds(entries, monthly_actuals(), "seasonal", std_multiplier=1.0)
    # both Decembers know only those of 2019 and 2020 (12, 24), not 2021-12 (36)
    assert thresholds["threshold"].tolist() == pytest.approx([18 + math.sqrt(72)] * 2)
    assert list(thresholds.columns) == ["org_unit", "period", "threshold"]
