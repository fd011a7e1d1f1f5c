from __future__ import annotations

import matplotlib.dates as mdates
import numpy as np
import pandas as pd
import pytest
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from chaplab.frames import wide
from chaplab.plotting import fan_chart
from chaplab.plotting._figure import MAX_WIDTH

from .cases import evaluation


def _by_gid(ax: Axes, prefix: str) -> list:
    artists = [*ax.collections, *ax.lines]
    return [a for a in artists if (a.get_gid() or "").startswith(prefix)]


def _panel(figure: Figure, title: str) -> Axes:
    return next(ax for ax in figure.axes if ax.get_title() == title)


def test_one_panel_per_org_unit_with_shared_legend_outside() -> None:
    frame, actuals = evaluation(("OU_A", "OU_B", "OU_C"))
    figure = fan_chart(frame, actuals)
    assert sorted(ax.get_title() for ax in figure.axes) == ["OU_A", "OU_B", "OU_C"]
    assert len(figure.legends) == 1
    labels = [text.get_text() for text in figure.legends[0].get_texts()]
    assert labels == ["10\u201390%", "25\u201375%", "median", "actual cases", "split period"]


def test_bands_per_quantile_pair_and_split_span_the_frame_values() -> None:
    frame, _ = evaluation(("OU_A",), n_splits=3)
    axes = fan_chart(frame, split_period="all").axes
    table = wide(frame).droplevel("org_unit")
    for low, high in ((0.1, 0.9), (0.25, 0.75)):
        bands = [band for ax in axes for band in _by_gid(ax, f"band {low:g}-{high:g} ")]
        assert [len(_by_gid(ax, f"band {low:g}-{high:g} ")) for ax in axes] == [1, 1, 1]
        for band, (split, rows) in zip(bands, table.groupby(level="split_period"), strict=True):
            assert band.get_gid().endswith(str(split))
            y = band.get_paths()[0].vertices[:, 1]
            assert y.min() == pytest.approx(rows[f"q{low}"].min())
            assert y.max() == pytest.approx(rows[f"q{high}"].max())


def test_median_line_and_actuals_line_carry_the_data() -> None:
    frame, actuals = evaluation(("OU_A",), n_splits=1)
    ax = fan_chart(frame, actuals).axes[0]
    (median,) = _by_gid(ax, "median")
    expected = frame[frame["quantile"] == 0.5]["value"].to_numpy()
    np.testing.assert_allclose(median.get_ydata(), expected)
    (line,) = _by_gid(ax, "actuals")
    np.testing.assert_allclose(line.get_ydata(), actuals["value"].to_numpy())
    first = mdates.date2num(actuals["period"].iloc[0].start_time)
    assert mdates.date2num(line.get_xdata()[0]) == pytest.approx(first)


def test_split_markers_and_one_split_alone() -> None:
    frame, actuals = evaluation(("OU_A",), n_splits=3)
    every = fan_chart(frame, actuals, split_period="all")
    assert [[m.get_gid() for m in _by_gid(ax, "split")] for ax in every.axes] == [
        ["split 2023-01"],
        ["split 2023-02"],
        ["split 2023-03"],
    ]
    one = fan_chart(frame, actuals, split_period="202302").axes[0]
    assert [m.get_gid() for m in _by_gid(one, "split")] == ["split 2023-02"]
    assert len(_by_gid(one, "band 0.1-0.9")) == 1


def test_one_split_at_a_time_by_default_the_last_with_a_note() -> None:
    frame, actuals = evaluation(("OU_A", "OU_B"), n_splits=3)
    figure = fan_chart(frame, actuals, title="naive")
    assert [ax.get_title() for ax in figure.axes] == ["OU_A", "OU_B"]
    for ax in figure.axes:
        assert [m.get_gid() for m in _by_gid(ax, "split")] == ["split 2023-03"]
        assert [b.get_gid() for b in _by_gid(ax, "band 0.1-0.9")] == ["band 0.1-0.9 2023-03"]
    assert figure.get_suptitle() == "naive; split 2023-03, the last of 3 splits"


def test_all_splits_are_small_multiples_not_overlays() -> None:
    frame, actuals = evaluation(("OU_A", "OU_B"), n_splits=3)
    figure = fan_chart(frame, actuals, split_period="all")
    assert [ax.get_title() for ax in figure.axes] == [
        f"{org_unit}, split {split}"
        for org_unit in ("OU_A", "OU_B")
        for split in ("2023-01", "2023-02", "2023-03")
    ]
    assert all(len(_by_gid(ax, "band 0.1-0.9")) == 1 for ax in figure.axes)
    rows = {round(ax.get_position().y0, 3) for ax in figure.axes}
    assert len(rows) == 4  # rows of two splits, each org unit's apart
    six, _ = evaluation(("OU_A",), n_splits=6)
    grid = fan_chart(six, split_period="all").axes[0].get_subplotspec().get_gridspec()
    assert grid.get_geometry() == (3, 2)


def test_the_y_limits_hold_what_is_drawn_and_the_window_follows_the_split_shown() -> None:
    """An org unit's value axis holds the split shown, its bands and the actual cases of its
    window, and no more than 5 % above them (covering every split made an axis up to 380 around
    values of at most 125); the time window is the split's forecast with as much history before
    it (at least three periods), so the forecast gets most of the panel."""
    frame, actuals = evaluation(("OU_A", "OU_B"), n_splits=3)
    frame.loc[frame["split_period"] == frame["split_period"].min(), "value"] *= 3  # far above
    splits = ("202301", "202302", "202303")
    charts = [fan_chart(frame, actuals, split_period=s) for s in splits]
    charts.append(fan_chart(frame, actuals))
    for org_unit in ("OU_A", "OU_B"):
        for split, chart in zip(splits, charts, strict=False):
            shown = frame[(frame["org_unit"] == org_unit) & (frame["split_period"] == split)]
            bottom, top = _panel(chart, org_unit).get_ylim()
            window = actuals[
                (actuals["org_unit"] == org_unit)
                & (actuals["period"] >= pd.Period(split, "M") - 3)
                & (actuals["period"] <= pd.Period(split, "M") + 2)
            ]
            highest = max(shown["value"].max(), window["value"].max())
            assert bottom == 0 and highest <= top <= 1.06 * highest, (split, top, highest)
    for split, chart in zip(splits, charts, strict=False):
        low, high = (mdates.num2date(x).replace(tzinfo=None) for x in chart.axes[0].get_xlim())
        first = pd.Period(split, "M")  # the split: the first forecast period
        assert pd.Period(low, "M") == first - 4  # three periods of history, half a period more
        assert pd.Period(high, "M") == first + 2  # the last of three forecast periods
    wider = fan_chart(frame, actuals, history=12).axes[0].get_xlim()
    assert wider[1] - wider[0] > np.subtract(*charts[0].axes[0].get_xlim()[::-1])


def test_more_org_units_than_max_panels_are_cut_with_a_note() -> None:
    frame, _ = evaluation([f"OU_{i:02d}" for i in range(14)], n_splits=1)
    figure = fan_chart(frame, max_panels=12, title="Backtest")
    assert len(figure.axes) == 12
    assert figure.get_suptitle() == "Backtest; split 2023-01; first 12 of 14 org units shown"


def test_given_axes_and_selected_org_units() -> None:
    frame, actuals = evaluation(("OU_A", "OU_B"))
    figure = Figure()
    ax = figure.add_subplot()
    assert fan_chart(frame, actuals, org_units="OU_B", ax=ax) is figure
    assert ax.get_title() == "OU_B"
    assert ax.get_legend() is not None
    with pytest.raises(ValueError, match="2 org units need 2 panels"):
        fan_chart(frame, ax=ax)


def test_quantile_bands_can_be_chosen() -> None:
    frame, _ = evaluation(("OU_A",), n_splits=1)
    ax = fan_chart(frame, quantile_bands=[(0.25, 0.75)]).axes[0]
    assert [b.get_gid() for b in _by_gid(ax, "band")] == ["band 0.25-0.75 2023-01"]
    with pytest.raises(ValueError, match="0.05"):
        fan_chart(frame, quantile_bands=[(0.05, 0.95)])


def test_levels_not_drawn_do_not_stretch_the_axis() -> None:
    frame, _ = evaluation(("OU_A",), n_splits=2)
    outer = frame[frame["quantile"] == 0.9].assign(quantile=0.99, value=50_000.0)
    wider = pd.concat([frame, outer], ignore_index=True)
    top = fan_chart(wider, quantile_bands=[(0.1, 0.9)]).axes[0].get_ylim()[1]
    assert top < 2 * frame["value"].max()  # the 0.99 level is in the frame, not in the chart
    lowest = frame[frame["quantile"] == 0.1].assign(quantile=0.01, value=0.0)
    drawn = pd.concat([wider, lowest], ignore_index=True)  # 0.01-0.99: a band of its own
    assert fan_chart(drawn).axes[0].get_ylim()[1] >= 50_000.0


def test_negative_values_are_not_cut_at_zero() -> None:
    frame, _ = evaluation(("OU_A",), n_splits=1)
    ax = fan_chart(frame.assign(value=frame["value"] - 100)).axes[0]
    assert ax.get_ylim()[0] <= frame["value"].min() - 100


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda f: f.drop(columns="quantile"), r"lacks column\(s\) \['quantile'\]"),
        (lambda f: f.iloc[:0], "empty"),
        (lambda f: f[f["quantile"] == 0.5], r"one quantile only \(0.5\): no band can be drawn"),
    ],
)
def test_unusable_frames_get_clear_errors(change, message: str) -> None:
    frame, _ = evaluation(("OU_A",), n_splits=1)
    with pytest.raises(ValueError, match=message):
        fan_chart(change(frame))


def test_unknown_org_unit_and_split_are_named() -> None:
    frame, _ = evaluation(("OU_A",), n_splits=1)
    with pytest.raises(ValueError, match="OU_Z"):
        fan_chart(frame, org_units=["OU_Z"])
    with pytest.raises(ValueError, match="202001"):
        fan_chart(frame, split_period="202001")
    with pytest.raises(ValueError, match="actuals lacks"):
        fan_chart(frame, actuals=pd.DataFrame({"ou": []}))


@pytest.mark.parametrize(("places", "geometry"), [(3, (2, 2)), (12, (6, 2)), (13, (7, 2))])
def test_panels_take_at_most_two_columns_so_their_text_stays_readable(
    places: int, geometry: tuple[int, int]
) -> None:
    """Twelve panels in three columns made an 11.8-inch figure an output 844 px wide shrinks to
    8 px text; two columns stay within a chart's width."""
    frame, actuals = evaluation(tuple(f"OU_{i:02d}" for i in range(places)), n_splits=1)
    figure = fan_chart(frame, actuals, max_panels=places)
    assert figure.axes[0].get_subplotspec().get_gridspec().get_geometry() == geometry
    assert figure.get_size_inches()[0] <= MAX_WIDTH


def test_an_org_units_splits_take_at_most_two_columns() -> None:
    """Four splits of one place: two rows of two, not a row of four 15 inches wide."""
    four, _ = evaluation(("OU_A",), n_splits=4)
    grid = fan_chart(four, split_period="all").axes[0].get_subplotspec().get_gridspec()
    assert grid.get_geometry() == (2, 2)
