"""Charts of many org units: ``top=N`` draws the N with the most cases instead of the first N."""

from __future__ import annotations

import pytest

from chaplab.plotting import compare_chart, fan_chart

from .cases import evaluation

MANY = [f"OU_{i:03d}" for i in range(40)]  # the later, the more cases (tests/plotting/cases.py)


def _titles(figure: object) -> list[str]:
    return [ax.get_title() for ax in figure.axes]  # type: ignore[attr-defined]


def _figure_title(figure: object) -> str:
    return " ".join(text.get_text() for text in figure.texts)  # type: ignore[attr-defined]


def test_top_draws_the_org_units_with_the_most_actual_cases_most_first() -> None:
    frame, actuals = evaluation(MANY)
    figure = fan_chart(frame, actuals, top=3)
    assert _titles(figure) == ["OU_039", "OU_038", "OU_037"]
    assert "the 3 of 40 org units with the most cases" in _figure_title(figure)


def test_top_ranks_by_actual_cases_not_by_the_order_of_the_frame() -> None:
    frame, actuals = evaluation(MANY)
    boosted = actuals.copy()
    boosted.loc[boosted["org_unit"] == "OU_005", "value"] *= 100
    assert _titles(fan_chart(frame, boosted, top=2)) == ["OU_005", "OU_039"]


def test_top_counts_only_the_cases_of_the_periods_the_chart_shows() -> None:
    frame, actuals = evaluation(MANY)
    periods = sorted(actuals["period"].unique())
    early = actuals["period"].isin(periods[:10])  # long before the last split's window
    boosted = actuals.copy()
    boosted.loc[(boosted["org_unit"] == "OU_005") & early, "value"] *= 1000
    assert _titles(fan_chart(frame, boosted, top=2)) == ["OU_039", "OU_038"]
    late = actuals["period"] == frame["period"].max()  # the last period drawn
    boosted.loc[(boosted["org_unit"] == "OU_005") & late, "value"] *= 1000
    assert _titles(fan_chart(frame, boosted, top=2)) == ["OU_005", "OU_039"]


def test_without_actuals_top_ranks_by_the_forecast_median() -> None:
    frame, _ = evaluation(MANY)
    assert _titles(fan_chart(frame, top=2)) == ["OU_039", "OU_038"]


def test_top_chooses_among_the_org_units_named() -> None:
    frame, actuals = evaluation(MANY)
    figure = fan_chart(frame, actuals, org_units=["OU_001", "OU_020", "OU_010"], top=2)
    assert _titles(figure) == ["OU_020", "OU_010"]


def test_compare_chart_takes_top_too() -> None:
    frame, actuals = evaluation(MANY)
    figure = compare_chart(frame, frame, actuals, top=4)
    assert [ax.get_title() for ax in figure.axes] == ["OU_039", "OU_038", "OU_037", "OU_036"]


@pytest.mark.parametrize("top", [0, -1, 2.5, True])
def test_top_must_be_a_positive_whole_number(top: object) -> None:
    frame, actuals = evaluation(MANY[:3])
    with pytest.raises(ValueError, match="top must be a whole number of org units"):
        fan_chart(frame, actuals, top=top)  # type: ignore[arg-type]
