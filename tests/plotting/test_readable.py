"""Charts for reading: names instead of codes, one period and number format, a large single
panel, a "forecast starts" mark, comparison colours that stay apart."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from matplotlib.axes import Axes
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure

from chaplab.frames import SPLIT_PERIOD, with_org_unit_names
from chaplab.plotting import ALL_SPLITS, compare_chart, fan_chart
from readability import read_periods

from .cases import evaluation

NAMES = {"OU_A": "Bo", "OU_B": "Bombali", "OU_C": "Bo"}


def _named(*org_units: str, **options):
    frame, actuals = evaluation(org_units, **options)
    return with_org_unit_names(frame, NAMES), with_org_unit_names(actuals, NAMES)


def _titles(figure: Figure) -> list[str]:
    return [ax.get_title() for ax in figure.axes]


def test_panels_are_titled_by_name_in_name_order_and_shared_names_say_which() -> None:
    frame, actuals = _named("OU_A", "OU_B", "OU_C")
    assert _titles(fan_chart(frame, actuals)) == ["Bo (OU_A)", "Bo (OU_C)", "Bombali"]
    plain, _ = evaluation(("OU_B",))
    assert _titles(compare_chart(plain, frame, actuals)) == ["Bombali"]


def test_org_units_are_chosen_by_name_or_id() -> None:
    frame, actuals = _named("OU_A", "OU_B", "OU_C")
    assert _titles(fan_chart(frame, actuals, org_units=["Bombali", "OU_A"])) == [
        "Bombali",
        "Bo (OU_A)",
    ]
    assert _titles(fan_chart(frame, org_units="bombali")) == ["Bombali"]
    with pytest.raises(
        ValueError,
        match=r"'Bo' names 2 places.*'Bo \(OU_A\)' \(id OU_A\); "
        r"'Bo \(OU_C\)' \(id OU_C\)",
    ):
        fan_chart(frame, org_units=["Bo"])
    with pytest.raises(ValueError, match=r"'Bombal' is not an org unit .* did you mean 'Bombali'"):
        fan_chart(frame, org_units="Bombal")
    with pytest.raises(ValueError, match=r"periods both evaluations share"):
        compare_chart(frame, frame, org_units="Kenema")


def _time_labels(figure: Figure) -> list[str]:
    figure.draw_without_rendering()
    return [t.get_text() for ax in figure.axes for t in ax.get_xticklabels() if t.get_text()]


def test_time_labels_are_one_period_format_per_frequency_and_numbers_one_format() -> None:
    monthly, actuals = evaluation(("OU_A", "OU_B"))
    figure = fan_chart(monthly, actuals.assign(value=actuals["value"] * 1000))
    assert _time_labels(figure)
    assert all(re.fullmatch(r"\d{4}-\d{2}", label) for label in _time_labels(figure))
    values = [t.get_text() for t in figure.axes[0].get_yticklabels() if t.get_text()]
    assert "20,000" in values
    assert not any("e" in value for value in values)
    weekly, weekly_actuals = evaluation(("OU_A",), weekly=True, horizon=12)
    labels = read_periods(_time_labels(fan_chart(weekly, weekly_actuals)))
    assert labels and all(re.fullmatch(r"\d{4}-W\d{2}", label) for label in labels)
    assert fan_chart(weekly, split_period="2023W21").axes[0].get_title() == "OU_A"


def test_a_single_org_unit_is_drawn_large() -> None:
    frame, actuals = evaluation(("OU_A", "OU_B"))
    one = fan_chart(frame, actuals, org_units="OU_A").axes[0]
    two = fan_chart(frame, actuals).axes[0]
    width = one.get_position().width * one.figure.get_figwidth()
    assert width > 1.8 * two.get_position().width * two.figure.get_figwidth()
    assert width > 5  # inches


def test_the_forecast_gets_most_of_the_window() -> None:
    frame, actuals = evaluation(("OU_A",), n_splits=1, horizon=6, history=120)
    ax = fan_chart(frame, actuals).axes[0]
    low, high = ax.get_xlim()
    (median,) = [line for line in ax.lines if line.get_gid().startswith("median")]
    start = ax.convert_xunits(median.get_xdata()[0])
    assert (high - start) / (high - low) > 0.4  # the split and six forecast months of 13


def _marks(figure: Figure) -> list[str]:
    return [
        artist.get_gid()
        for ax in figure.axes
        for artist in (*ax.lines, *ax.texts)
        if artist.get_gid() == "forecast start"
    ]


def _legend_labels(figure: Figure) -> list[str]:
    return [text.get_text() for legend in figure.legends for text in legend.get_texts()]


def test_a_forward_forecast_is_marked_where_it_starts() -> None:
    frame, actuals = evaluation(("OU_A", "OU_B"), n_splits=1)
    prediction = frame.drop(columns=SPLIT_PERIOD)
    figure = fan_chart(prediction, actuals)
    assert _marks(figure) == ["forecast start"] * 2  # a line per panel, named in the legend
    assert "forecast starts" in _legend_labels(figure)
    assert "split period" not in _legend_labels(figure)
    line = next(line for line in figure.axes[0].lines if line.get_gid() == "forecast start")
    first = prediction["period"].min().start_time.to_datetime64()
    assert figure.axes[0].convert_xunits(line.get_xdata()[0]) == pytest.approx(
        figure.axes[0].convert_xunits(first)
    )
    backtest = fan_chart(frame, actuals)
    assert _marks(backtest) == []  # a backtest has its split marker instead
    assert "split period" in _legend_labels(backtest)
    with pytest.raises(ValueError, match="a prediction has no splits"):
        fan_chart(prediction, split_period="202212")


def _peaking_before_the_forecast() -> tuple[pd.DataFrame, pd.DataFrame]:
    """A prediction whose history peaks in its last period and, higher still, in the periods
    just before the panels' windows (three periods of history by default, or eight): the line
    reaches the top of the panel on both sides."""
    frame, actuals = evaluation(("OU_A", "OU_B"), n_splits=1, history=12)
    prediction = frame.drop(columns=SPLIT_PERIOD)
    first = prediction["period"].min()
    peaks = {first - 1: 400.0, first - 4: 900.0, first - 9: 900.0}
    value = actuals["value"].where(~actuals["period"].isin(peaks), actuals["period"].map(peaks))
    return prediction, actuals.assign(value=value.astype(float))


def test_the_forecast_start_label_covers_no_data() -> None:
    prediction, actuals = _peaking_before_the_forecast()
    figure = fan_chart(prediction, actuals)
    figure.draw_without_rendering()
    assert all(not ax.texts for ax in figure.axes)  # no label inside a panel
    (legend,) = figure.legends
    assert "forecast starts" in [text.get_text() for text in legend.get_texts()]
    box = legend.get_window_extent()
    for ax in figure.axes:
        assert not box.overlaps(ax.get_window_extent()), ax.get_title()


def _visible_values(ax: Axes) -> np.ndarray:
    """The y of every drawn line and band inside the panel's x limits, where each line crosses
    those limits included."""
    low, high = ax.get_xlim()
    values = []
    for line in ax.lines:
        x = ax.convert_xunits(line.get_xdata())
        if len(x) < 2:
            continue  # a vertical mark
        y = np.asarray(line.get_ydata(), dtype=float)
        values += [y[(x >= low) & (x <= high)], np.interp([low, high], x, y, np.nan, np.nan)]
    for band in ax.collections:
        for path in band.get_paths():
            x, y = path.vertices.T
            values.append(y[(x >= low) & (x <= high)])
    drawn = np.concatenate(values)
    return drawn[np.isfinite(drawn)]


def test_value_limits_hold_the_history_and_the_bands() -> None:
    prediction, actuals = _peaking_before_the_forecast()
    for figure in (fan_chart(prediction, actuals), fan_chart(prediction, actuals, history=8)):
        for ax in figure.axes:
            bottom, top = ax.get_ylim()
            drawn = _visible_values(ax)
            assert drawn.max() > 350  # the peaks are drawn ...
            assert bottom <= drawn.min() and drawn.max() <= top  # ... inside the panel
    frame, actuals = evaluation(("OU_A",))
    for ax in fan_chart(frame, actuals, split_period=ALL_SPLITS).axes:
        bottom, top = ax.get_ylim()
        drawn = _visible_values(ax)
        assert bottom <= drawn.min() and drawn.max() <= top


def test_compared_evaluations_stay_distinct_where_they_overlap() -> None:
    frame, actuals = evaluation(("OU_A",))
    figure = compare_chart(frame, frame, actuals, labels=("a", "b"))
    ax = figure.axes[0]
    first = [c for c in ax.collections if c.get_gid().startswith("a: band")]
    second = [c for c in ax.collections if c.get_gid().startswith("b: band")]
    for band in first:  # filled, opaque: nothing mixes with what is drawn over it
        assert band.get_facecolor()[0][3] == 1
    for band in second:  # outlines in Okabe-Ito vermillion, no fill, the inner band hatched
        assert band.get_facecolor().size == 0 or band.get_facecolor()[0][3] == 0
        assert np.allclose(band.get_edgecolor()[0], to_rgba("#D55E00"))
    assert [band.get_hatch() for band in second] == [None, "////"]
    medians = [line for line in ax.lines if (line.get_gid() or "").startswith("b: median")]
    assert medians and medians[0].get_linestyle() == "--"
    assert ax.collections.index(first[-1]) < ax.collections.index(second[0])


def test_history_is_checked_and_all_splits_of_a_prediction_is_the_prediction() -> None:
    frame, actuals = evaluation(("OU_A",), n_splits=1)
    for bad in (-1, 2.5, True):
        with pytest.raises(ValueError, match="history must be"):
            fan_chart(frame, actuals, history=bad)
    prediction = frame.drop(columns=SPLIT_PERIOD)
    assert _titles(fan_chart(prediction, actuals, split_period=ALL_SPLITS)) == ["OU_A"]
    with pytest.raises(ValueError, match="max_panels must be at least 1"):
        fan_chart(frame, max_panels=0)
