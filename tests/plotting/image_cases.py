"""The charts compared against baseline images, shared by the test and make_baselines."""

from __future__ import annotations

from collections.abc import Callable

from matplotlib.figure import Figure

from chaplab.frames import SPLIT_PERIOD, with_org_unit_names
from chaplab.plotting import compare_chart, fan_chart

from .cases import evaluation

NAMES = {"OU_A": "Bo", "OU_B": "Bombali", "OU_C": "Bo"}


def _fan_all_splits() -> Figure:
    frame, actuals = evaluation(("OU_A", "OU_B"))
    return fan_chart(frame, actuals, title="all splits", split_period="all")


def _fan_prediction_named() -> Figure:
    frame, actuals = evaluation(("OU_A", "OU_B", "OU_C"), n_splits=1)
    prediction = frame.drop(columns=SPLIT_PERIOD)
    return fan_chart(with_org_unit_names(prediction, NAMES), actuals, title="forecast")


def _fan_one_split_weekly() -> Figure:
    frame, actuals = evaluation(("OU_A",), weekly=True)
    return fan_chart(frame, actuals, split_period="2023W22")


def _compare() -> Figure:
    frame, actuals = evaluation(("OU_A", "OU_B"))
    return compare_chart(
        frame, frame.assign(value=frame["value"] * 1.3), actuals, labels=("naive", "x1.3")
    )


IMAGE_CASES: dict[str, Callable[[], Figure]] = {
    "fan_all_splits": _fan_all_splits,
    "fan_one_split_weekly": _fan_one_split_weekly,
    "fan_prediction_named": _fan_prediction_named,
    "compare": _compare,
}
