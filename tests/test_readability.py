"""The measuring harness of tests/readability.py finds what a reader would: texts that run into
each other or out of their box, labels crowding a time axis, text shown too small."""

from __future__ import annotations

from collections.abc import Iterator

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from readability import (  # noqa: E402
    Box,
    TextBox,
    crowded,
    label_share,
    overflowing,
    read_periods,
    shown_labels,
    shown_points,
    time_label_problems,
)


@pytest.fixture(autouse=True)
def close_figures() -> Iterator[None]:
    yield
    plt.close("all")


def test_texts_closer_than_the_gap_or_overlapping_are_named() -> None:
    first = TextBox("2023-W49", Box(0, 0, 40, 10), "panel 1")
    touching = TextBox("2024-W01", Box(39, 0, 80, 10), "panel 1")
    near = TextBox("2024-W03", Box(82, 0, 120, 10), "panel 1")
    far = TextBox("2024-W05", Box(130, 0, 170, 10), "panel 1")
    below = TextBox("2023-W49", Box(0, 20, 40, 30), "panel 4")
    assert crowded([first, touching, far, below], gap=3) == [
        "'2023-W49' (panel 1) and '2024-W01' (panel 1) are -1.0 apart, less than 3"
    ]
    assert crowded([near, touching], gap=3) == [
        "'2024-W03' (panel 1) and '2024-W01' (panel 1) are 2.0 apart, less than 3"
    ]
    assert crowded([near, touching], gap=0) == []  # a page's texts may touch


def test_a_text_out_of_its_box_says_by_how_much_on_which_side() -> None:
    cell = Box(0, 0, 100, 20)
    fits = TextBox("demo", Box(2, 2, 40, 18), "<td>", cell)
    wide = TextBox("regression_modeldemo", Box(2, 2, 130, 18), "<td>", cell)
    assert overflowing([fits, wide]) == [
        "'regression_modeldemo' (<td>) reaches out of its box: 30.0 past the right"
    ]
    assert overflowing([wide], slack=30) == []


def _days_axis(labelled_every: int) -> plt.Axes:
    """Four weeks of days on a 3-inch axis, a label every ``labelled_every`` days."""
    figure = plt.figure(figsize=(5, 1.5))
    ax = figure.add_axes((0.2, 0.4, 0.6, 0.5))
    days = np.arange(0, 28, labelled_every)
    ax.set_xlim(0, 27)
    ax.set_xticks(days, [f"2024-02-{day + 1:02d}" for day in days])
    return ax


def test_the_time_label_gate_fails_crowded_labels_and_passes_spaced_ones() -> None:
    crowded_axis = _days_axis(2)
    problems = time_label_problems(crowded_axis.get_figure(root=True))
    assert problems and "'2024-02-01' (panel 1, untitled) and '2024-02-03'" in problems[0]
    spaced = _days_axis(9)
    assert time_label_problems(spaced.get_figure(root=True)) == []
    assert shown_labels(spaced) == ["2024-02-01", "2024-02-10", "2024-02-19", "2024-02-28"]
    assert 1.0 < label_share(spaced) < 1.2  # four labels of 0.82 inches on a 3-inch axis


def test_a_label_out_of_the_figure_fails_the_gate() -> None:
    figure = plt.figure(figsize=(3, 1.5))
    ax = figure.add_axes((0.02, 0.4, 0.9, 0.5))
    ax.set_xlim(0, 10)
    ax.set_xticks([0, 5], ["2024-01", "2024-06"])
    (problem,) = time_label_problems(figure)
    assert problem.startswith("'2024-01' (panel 1, untitled) reaches out of its box:")
    assert "past the left" in problem


def test_text_is_measured_as_shown_whatever_the_figure_s_dpi() -> None:
    """A 10-point label of a figure 10 inches wide is 10 CSS pixels tall where the picture is
    shown 720 pixels wide (10 pixels an inch at 72 points an inch), at any dpi."""
    for dpi in (72, 100, 180):
        figure = plt.figure(figsize=(10, 2), dpi=dpi)
        figure.text(0.1, 0.5, "Bo", fontsize=10)
        figure.text(0.5, 0.5, "Kenema", fontsize=8)
        assert shown_points(figure, 720) == pytest.approx({"Bo": 10.0, "Kenema": 8.0})
        assert shown_points(figure, 360)["Kenema"] == pytest.approx(4.0)


def test_weekly_labels_read_as_the_periods_a_reader_reads() -> None:
    """A week takes the year written beneath it or, without one, the year last written to its
    left; months and whole labels read as written; a week no year stands before is an error."""
    labels = ["W49\n2023", "W51", "W01\n2024", "W03"]
    assert read_periods(labels) == ["2023-W49", "2023-W51", "2024-W01", "2024-W03"]
    assert read_periods(["2024-07", "2024-10"]) == ["2024-07", "2024-10"]
    assert read_periods(["2024-W05"]) == ["2024-W05"]
    with pytest.raises(AssertionError, match="the week W09 has no year"):
        read_periods(["W09", "W13\n2024"])
