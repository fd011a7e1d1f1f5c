"""The fixed layout of the charts' own figures (their time ticks: test_time_axes.py)."""

from __future__ import annotations

import io

import pytest
from matplotlib.figure import Figure
from matplotlib.image import imread
from matplotlib.transforms import Bbox

from chaplab.plotting import compare_chart, fan_chart
from chaplab.plotting._figure import MAX_WIDTH

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
    title, label = (_text(figure, text) for text in ("Backtest; split 2023-03", "cases"))
    assert title.y0 > max(box.y1 for box in panels)
    assert label.x1 < min(box.x0 for box in panels)


def _text(figure: Figure, text: str) -> Bbox:
    """The extent of the figure's own text (title, y label) that starts with ``text``."""
    found = next(t for t in figure.texts if t.get_text().startswith(text))
    return found.get_window_extent(figure.canvas.get_renderer())


def test_a_long_legend_label_widens_the_figure_not_narrows_the_panels() -> None:
    frame, actuals = evaluation(("OU_A", "OU_B"))
    short = compare_chart(frame, frame, actuals, labels=("model", "b"))
    long = compare_chart(frame, frame, actuals, labels=("a model", "b"))
    assert long.get_figwidth() > short.get_figwidth()
    widths = [{round(ax.bbox.width) for ax in figure.axes} for figure in (short, long)]
    assert widths[0] == widths[1]
    panels, legend, whole = _boxes(long)
    assert max(box.x1 for box in panels) < legend.x0 and legend.x1 <= whole.x1


def test_labels_too_long_for_a_charts_width_take_more_lines() -> None:
    """Two evaluations named as the panel names them made a comparison 11.6 inches wide (2,326
    pixels drawn, shown at 968): up to ``MAX_WIDTH`` the figure grows, then labels break."""
    frame, actuals = evaluation(("OU_A", "OU_B"))
    names = ("naive_model on dengue Brazil (Acre)-2", "seasonal_median on dengue Brazil (Acre)")
    figure = compare_chart(frame, frame, actuals, labels=names)
    assert figure.get_figwidth() <= MAX_WIDTH
    texts = [text.get_text() for text in figure.legends[0].get_texts()]
    assert any("\n" in text for text in texts)
    assert " ".join(" ".join(texts).split()).count("seasonal_median on dengue Brazil (Acre)") == 3
    panels, legend, whole = _boxes(figure)
    assert max(box.x1 for box in panels) < legend.x0 and legend.x1 <= whole.x1


def test_only_panels_with_none_below_label_the_time_axis() -> None:
    frame, _ = evaluation([f"OU_{i}" for i in range(5)], n_splits=1)
    figure = fan_chart(frame)
    shown = [ax.xaxis.get_tick_params()["labelbottom"] for ax in figure.axes]
    assert shown == [False, False, False, True, True]  # rows of two: the fifth alone


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
        f"{title}\nsplit 2023-03, the last of 3 splits; the 2 of 3 org units with the most cases"
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
