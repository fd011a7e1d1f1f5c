from __future__ import annotations

import matplotlib.dates as mdates
import numpy as np
import pandas as pd
import pytest
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from chaplab.frames import wide
from chaplab.plotting import fan_chart

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
    ax = fan_chart(frame).axes[0]
    table = wide(frame).droplevel("org_unit")
    for low, high in ((0.1, 0.9), (0.25, 0.75)):
        bands = _by_gid(ax, f"band {low:g}-{high:g} ")
        assert len(bands) == 3  # one per split
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
    all_splits = fan_chart(frame, actuals).axes[0]
    assert [m.get_gid() for m in _by_gid(all_splits, "split")] == [
        "split 2022-12", "split 2023-01", "split 2023-02"
    ]
    one = fan_chart(frame, actuals, split_period="202301").axes[0]
    assert [m.get_gid() for m in _by_gid(one, "split")] == ["split 2023-01"]
    assert len(_by_gid(one, "band 0.1-0.9")) == 1


def test_limits_stay_put_whichever_split_is_shown() -> None:
    frame, actuals = evaluation(("OU_A", "OU_B"), n_splits=3)
    charts = [fan_chart(frame, actuals, split_period=s) for s in ("202212", "202301", "202302")]
    charts.append(fan_chart(frame, actuals))
    for org_unit in ("OU_A", "OU_B"):
        limits = {(_panel(c, org_unit).get_ylim(), _panel(c, org_unit).get_xlim()) for c in charts}
        assert len(limits) == 1
        (y_limits, _), = limits
        assert y_limits[0] == 0
        assert y_limits[1] >= frame[frame["org_unit"] == org_unit]["value"].max()


def test_more_org_units_than_max_panels_are_cut_with_a_note() -> None:
    frame, _ = evaluation([f"OU_{i:02d}" for i in range(14)], n_splits=1)
    figure = fan_chart(frame, max_panels=12, title="Backtest")
    assert len(figure.axes) == 12
    assert figure.get_suptitle() == "Backtest; first 12 of 14 org units shown"


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
    assert [b.get_gid() for b in _by_gid(ax, "band")] == ["band 0.25-0.75 2022-12"]
    with pytest.raises(ValueError, match="0.05"):
        fan_chart(frame, quantile_bands=[(0.05, 0.95)])


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
