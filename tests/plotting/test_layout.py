"""The fixed layout of the charts' own figures and their time ticks."""

from __future__ import annotations

import io
import itertools

import matplotlib.dates as mdates
import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from matplotlib.image import imread
from matplotlib.transforms import Bbox

from chaplab.plotting import compare_chart, fan_chart
from chaplab.plotting._time import MAX_TICKS, TimeLocator

from .cases import evaluation


def _boxes(figure: Figure) -> tuple[list[Bbox], Bbox, Bbox]:
    """Each panel's extent with its tick labels and title, the legend's, the figure's."""
    renderer = figure.canvas.get_renderer()
    figure.draw_without_rendering()
    panels = [ax.get_tightbbox(renderer) for ax in figure.axes]
    return panels, figure.legends[0].get_window_extent(renderer), figure.bbox


@pytest.mark.parametrize("count", [1, 2, 5, 12])
def test_panels_legend_and_titles_fit_the_figure_without_overlapping(count: int) -> None:
    frame, actuals = evaluation([f"OU_{i:02d}" for i in range(count)])
    figure = fan_chart(frame, actuals.assign(value=actuals["value"] * 10_000), title="Backtest")
    assert figure.get_layout_engine() is None  # margins are fixed, no extra layout pass
    panels, legend, whole = _boxes(figure)
    for box in [*panels, legend]:
        assert whole.x0 <= box.x0 and box.x1 <= whole.x1
        assert whole.y0 <= box.y0 and box.y1 <= whole.y1
    for index, box in enumerate(panels):
        assert box.x1 < legend.x0
        assert not any(box.overlaps(other) for other in panels[index + 1 :])
    title, label = (_text(figure, text) for text in ("Backtest; split 2023-02", "cases"))
    assert title.y0 > max(box.y1 for box in panels)
    assert label.x1 < min(box.x0 for box in panels)


def _text(figure: Figure, text: str) -> Bbox:
    """The extent of the figure's own text (title, y label) that starts with ``text``."""
    found = next(t for t in figure.texts if t.get_text().startswith(text))
    return found.get_window_extent(figure.canvas.get_renderer())


def test_a_long_legend_label_widens_the_figure_not_narrows_the_panels() -> None:
    frame, actuals = evaluation(("OU_A", "OU_B"))
    short = compare_chart(frame, frame, actuals, labels=("a long model name", "b"))
    long = compare_chart(frame, frame, actuals, labels=("a much longer model name", "b"))
    assert long.get_figwidth() > short.get_figwidth()
    widths = [{round(ax.bbox.width) for ax in figure.axes} for figure in (short, long)]
    assert widths[0] == widths[1]
    panels, legend, whole = _boxes(long)
    assert max(box.x1 for box in panels) < legend.x0 and legend.x1 <= whole.x1


def test_only_panels_with_none_below_label_the_time_axis() -> None:
    frame, _ = evaluation([f"OU_{i}" for i in range(5)], n_splits=1)
    figure = fan_chart(frame)
    shown = [ax.xaxis.get_tick_params()["labelbottom"] for ax in figure.axes]
    assert shown == [False, False, True, True, True]


def _ticks(first: str, last: str) -> list[pd.Timestamp]:
    low, high = mdates.date2num(np.array([first, last], dtype="datetime64[D]"))
    values = TimeLocator().tick_values(low, high)
    assert len(values) <= MAX_TICKS
    assert all(low <= value <= high for value in values)
    return [pd.Timestamp(mdates.num2date(value)).tz_localize(None) for value in values]


def test_time_ticks_fall_on_whole_years_months_or_weeks() -> None:
    assert _ticks("2015-01-01", "2024-12-01") == [
        pd.Timestamp(f"{year}-01-01") for year in range(2016, 2025, 2)
    ]
    assert _ticks("2021-01-01", "2023-06-01") == [
        pd.Timestamp(day)
        for day in ("2021-01-01", "2021-07-01", "2022-01-01", "2022-07-01", "2023-01-01")
    ]
    weeks = _ticks("2023-12-20", "2024-01-20")
    assert weeks == [
        pd.Timestamp(day) for day in ("2023-12-25", "2024-01-01", "2024-01-08", "2024-01-15")
    ]
    assert all(day.day_name() == "Monday" for day in weeks)


def test_bands_with_a_missing_value_are_drawn_around_the_gap() -> None:
    frame, _ = evaluation(("OU_A",), n_splits=1)
    gap = frame.index[(frame["quantile"] == 0.9)][1]
    ax = fan_chart(frame.drop(index=gap)).axes[0]
    bands = [c for c in ax.collections if c.get_gid().startswith("band 0.1-0.9")]
    assert len(bands) == 1 and len(bands[0].get_paths()) == 2  # before and after the gap


def test_a_title_wider_than_the_figure_takes_more_lines_and_stays_inside() -> None:
    frame, actuals = evaluation(("OU_A", "OU_B", "OU_C"))
    title = "Dengue in Acre, three months ahead: regression on past cases and climate"
    one_line = fan_chart(frame, actuals, top=2, title="Dengue")
    figure = fan_chart(frame, actuals, top=2, title=title)
    (text,) = [t for t in figure.texts if t.get_text().startswith("Dengue")]
    assert text.get_text() == (
        f"{title}\nsplit 2023-02, the last of 3 splits; the 2 of 3 org units with the most cases"
    )
    assert figure.get_figwidth() == one_line.get_figwidth()
    assert figure.get_figheight() > one_line.get_figheight()  # the panels keep their height
    panels, legend, whole = _boxes(figure)
    box = text.get_window_extent(figure.canvas.get_renderer())
    assert whole.x0 <= box.x0 and box.x1 <= whole.x1 and box.y1 <= whole.y1
    assert box.y0 > max(panel.y1 for panel in panels)
    saved = io.BytesIO()
    figure.savefig(saved, format="png", bbox_inches="tight", pad_inches=0, dpi=figure.dpi)
    assert imread(io.BytesIO(saved.getvalue())).shape[1] <= whole.width + 1


def test_a_two_year_panel_has_three_time_labels_or_more_none_overlapping() -> None:
    """Six places of 24 months of history and 3 forecast months, three panels a row (2.5
    inches each): a label every six months, each whole and apart from its neighbours."""
    frame, actuals = evaluation([f"OU_{i}" for i in range(6)], n_splits=1, history=30)
    figure = fan_chart(frame, actuals, history=24)
    figure.draw_without_rendering()
    renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
    labelled = [ax for ax in figure.axes if ax.xaxis.get_tick_params()["labelbottom"]]
    assert len(labelled) == 3
    for ax in labelled:
        labels = [t for t in ax.get_xticklabels() if t.get_text()]
        assert len(labels) >= 3, [t.get_text() for t in labels]
        boxes = [t.get_window_extent(renderer) for t in labels]
        assert all(left.x1 < right.x0 for left, right in itertools.pairwise(boxes))


def test_weekly_ticks_fall_on_the_weeks_counted_from_each_year_s_first() -> None:
    """Two years of weekly history: labels at W01 and W27 of each year (not at weeks counted
    from some Monday in 1970, such as W18 and W44), none overlapping; three in one wide panel,
    two in each of six 2.5-inch panels (a third would not fit beside them)."""
    for places, at_least in ((1, 3), (6, 2)):
        frame, actuals = evaluation([f"OU_{i}" for i in range(places)], 1, history=110, weekly=True)
        figure = fan_chart(frame, actuals, history=104)
        figure.draw_without_rendering()
        renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
        for ax in [ax for ax in figure.axes if ax.xaxis.get_tick_params()["labelbottom"]]:
            labels = [t for t in ax.get_xticklabels() if t.get_text()]
            assert len(labels) >= at_least, [t.get_text() for t in labels]
            assert {t.get_text()[-3:] for t in labels} <= {"W01", "W27"}
            boxes = [t.get_window_extent(renderer) for t in labels]
            assert all(left.x1 < right.x0 for left, right in itertools.pairwise(boxes))


def test_a_long_iso_year_s_week_53_is_a_tick_only_when_every_week_is() -> None:
    low, high = mdates.date2num(np.array(["2020-12-14", "2021-01-12"], dtype="datetime64[D]"))
    weekly = TimeLocator("W-SUN").tick_values(low, high)
    mondays = [pd.Timestamp(mdates.num2date(value)).tz_localize(None) for value in weekly]
    assert pd.Timestamp("2020-12-28") in mondays  # 2020-W53, a step of one week
    every_other = TimeLocator("W-SUN")
    every_other.steps = (("W", 2),)
    pairs = every_other.tick_values(low, high)
    days = {pd.Timestamp(mdates.num2date(value)).tz_localize(None) for value in pairs}
    assert pd.Timestamp("2020-12-28") not in days and pd.Timestamp("2021-01-04") in days
