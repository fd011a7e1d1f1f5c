"""probability_tiles: the rows are the places' names, the columns the periods as people write
them, the colours a fixed white-to-red 0-100 % scale, the strategy in the title."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from matplotlib.image import AxesImage

from chaplab.frames import period_label, with_org_unit_names
from chaplab.plotting import probability_tiles
from chaplab.plotting._figure import ChartFigure
from readability import read_periods, shown_labels, time_label_problems

NAMES = {"OU_b": "Bo", "OU_k": "Kenema", "OU_m": "Moyamba"}
TUMBES = (
    "Aguas Verdes", "Canoas de Punta Sal", "Casitas", "Corrales", "La Cruz", "Matapalo",
    "Pampas de Hospital", "Papayal", "San Jacinto", "San Juan de la Virgen", "Tumbes",
    "Zarumilla", "Zorritos",
)  # fmt: skip
PROBABILITIES = {  # org unit -> probability in each of three months
    "OU_k": (0.1, 0.5, 0.95),
    "OU_b": (0.0, 0.2, 0.4),
    "OU_m": (0.7, 0.8, np.nan),
}


def tiles_frame(probabilities: dict[str, tuple[float, ...]] = PROBABILITIES) -> pd.DataFrame:
    months = pd.period_range("2025-11", periods=3, freq="M")
    rows = [
        (unit, month, value)
        for unit, values in probabilities.items()
        for month, value in zip(months, values, strict=True)
    ]
    frame = pd.DataFrame(rows, columns=["org_unit", "period", "probability"])
    return with_org_unit_names(frame, NAMES)


def tiles(figure: Figure) -> AxesImage:
    return next(image for ax in figure.axes for image in ax.images if image.get_gid() == "tiles")


def row_labels(figure: Figure) -> list[str]:
    return [label.get_text() for label in tiles(figure).axes.get_yticklabels()]


def test_rows_are_names_columns_are_periods_and_tiles_hold_the_probabilities() -> None:
    figure = probability_tiles(tiles_frame())
    assert isinstance(figure, ChartFigure)
    assert row_labels(figure) == ["Bo", "Kenema", "Moyamba"]
    ax = tiles(figure).axes
    assert [label.get_text() for label in ax.get_xticklabels()] == ["2025-11", "2025-12", "2026-01"]
    grid = tiles(figure).get_array()
    np.testing.assert_allclose(grid[1], [0.1, 0.5, 0.95])
    assert grid.mask[2, 2]  # Moyamba's missing January: a grey tile, not white (0 %)
    written = [text.get_text() for text in ax.texts if text.get_gid() == "percentage"]
    assert written[:3] == ["0%", "20%", "40%"] and "95%" in written and len(written) == 8


def test_the_percentages_are_readable_and_fit_their_tiles() -> None:
    figure = probability_tiles(tiles_frame())
    ax = tiles(figure).axes
    figure.draw_without_rendering()
    renderer = figure.canvas.get_renderer()
    width, height = ax.bbox.width / 3, ax.bbox.height / 3
    written = [text for text in ax.texts if text.get_gid() == "percentage"]
    assert written
    for text in written:
        assert text.get_fontsize() >= 9  # points: 11 pixels in the panel (90 dpi)
        box = text.get_window_extent(renderer)
        assert box.width < width and box.height < height
    crowded = {f"OU_{i}": (0.1, 0.2, 0.3) for i in range(60)}  # rows too low for 9 points
    ax = tiles(probability_tiles(tiles_frame(crowded))).axes
    assert not [text for text in ax.texts if text.get_gid() == "percentage"]


@pytest.mark.parametrize("first", [pd.Period("2023-01-02", "W-SUN"), pd.Period("2023-01", "M")])
def test_every_one_of_eight_columns_is_labelled_beside_long_names(first: pd.Period) -> None:
    """Eight weeks or months of thirteen places named up to 21 characters (Tumbes' districts):
    each column is as wide as its label and a gap, whatever the names and the colour bar take
    of the figure, so every one is labelled (every other was: the names and the colour bar
    left each column narrower than its label)."""
    names = {f"OU_{i:02d}": name for i, name in enumerate(TUMBES)}
    probabilities = {unit: tuple(np.linspace(0, 1, 8)) for unit in names}
    frame = with_org_unit_names(
        pd.DataFrame(
            [
                (unit, first + step, value)
                for unit, values in probabilities.items()
                for step, value in enumerate(values)
            ],
            columns=["org_unit", "period", "probability"],
        ),
        names,
    )
    figure = probability_tiles(frame, strategy="percentile")
    ax = tiles(figure).axes
    figure.draw_without_rendering()
    assert read_periods(shown_labels(ax)) == [period_label(first + step) for step in range(8)]
    assert time_label_problems(figure, [ax]) == []


def test_the_colour_scale_is_white_to_red_from_0_to_100_percent() -> None:
    low = tiles(probability_tiles(tiles_frame({"OU_b": (0.0, 0.01, 0.02)})))
    high = tiles(probability_tiles(tiles_frame()))
    for image in (low, high):
        assert (image.norm.vmin, image.norm.vmax) == (0, 1)  # the same colours on every chart
    white, red = high.cmap(0.0), high.cmap(1.0)
    assert min(white[:3]) > 0.93  # near white
    assert red[0] > 0.3 and red[1] < 0.1 and red[2] < 0.1
    bar = next(ax for ax in high.axes.figure.axes if ax is not high.axes)
    assert bar.get_ylabel() == "P(cases > threshold)"
    high.axes.figure.canvas.draw()
    assert [label.get_text() for label in bar.get_yticklabels()][-1] == "100%"


def test_the_title_names_the_threshold_strategy() -> None:
    title = tiles(probability_tiles(tiles_frame(), strategy="seasonal")).axes.get_title("left")
    assert title == (
        "Outbreak probability: P(cases > threshold)\nthresholds by the 'seasonal' strategy"
    )


def test_sorted_by_probability_the_likeliest_place_comes_first() -> None:
    figure = probability_tiles(tiles_frame(), sort="probability")
    assert row_labels(figure) == ["Kenema", "Moyamba", "Bo"]


def test_hundreds_of_places_get_no_names_and_the_title_says_so() -> None:
    rng = np.random.default_rng(0)
    many = {f"OU_{index}": tuple(rng.uniform(size=3)) for index in range(400)}
    figure = probability_tiles(tiles_frame(many))
    assert tiles(figure).get_array().shape == (400, 3)
    assert row_labels(figure) == []
    assert "400 org units in name order, too many for names" in tiles(figure).axes.get_title("left")
    assert figure.get_figheight() < 13


def test_bad_input_names_the_argument() -> None:
    with pytest.raises(ValueError, match=r"frame lacks column\(s\) \['probability'\]"):
        probability_tiles(tiles_frame().rename(columns={"probability": "p"}))
    with pytest.raises(ValueError, match=r"outside 0..1 \(such as 40\): tiles show probabilities"):
        probability_tiles(tiles_frame({"OU_b": (10.0, 20.0, 40.0)}).iloc[2:])
    with pytest.raises(ValueError, match="more than one row per org_unit and period"):
        frame = tiles_frame()
        probability_tiles(pd.concat([frame, frame]))
    with pytest.raises(ValueError, match="sort must be 'name' or 'probability'"):
        probability_tiles(tiles_frame(), sort="risk")  # type: ignore[arg-type]
