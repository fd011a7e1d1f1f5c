"""Every chart of chaplab.plotting, over places, splits, frequencies and long names, is drawn for
the outputs a person reads it in: at most ``MAX_WIDTH`` inches wide as a notebook saves it (the
"tight" picture, legend included), no text under ``MIN_TEXT`` points, and its time panels draw
what the chart says (the split its title names, a forecast that is more than a sliver, a value
axis no higher than the values drawn plus a margin: ``readability.drawn_problems``).

The browser gate (tests/browser/test_notebooks_read_well.py) measures the same charts as shown.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from PIL import Image

from chaplab import scoring
from chaplab.frames import SPLIT_PERIOD, with_org_unit_names
from chaplab.plotting import (
    ALL_SPLITS,
    compare_chart,
    coverage_chart,
    fan_chart,
    leaderboard_chart,
    map_chart,
    pit_chart,
    probability_tiles,
    score_heatmap,
    wis_components_chart,
)
from chaplab.plotting._figure import DPI, MAX_WIDTH, MIN_TEXT
from readability import drawn_problems, smallest_text_points
from scoring.cases import normal_actuals, normal_forecasts

from .cases import evaluation

PICTURE = MAX_WIDTH + 0.2
"""The widest picture a notebook saves of a chart (its margins of 0.1 inch each side)."""


def _places(count: int) -> list[str]:
    return [f"OU_{number:02d}" for number in range(count)]


def _named(frame: pd.DataFrame) -> pd.DataFrame:
    names = {unit: f"Place with a long name {unit[-2:]}" for unit in frame["org_unit"].unique()}
    return with_org_unit_names(frame, names)


def _fan(places: int, weekly: bool, **options: Any) -> Figure:
    frame, actuals = evaluation(_places(places), n_splits=3, weekly=weekly)
    return fan_chart(_named(frame), actuals, max_panels=12, **options)


def _forecast(places: int) -> Figure:
    frame, actuals = evaluation(_places(places), n_splits=1)
    return fan_chart(frame.drop(columns=SPLIT_PERIOD), actuals, history=12, title="forecast")


def _compare(places: int) -> Figure:
    frame, actuals = evaluation(_places(places), n_splits=3)
    labels = ("naive_model on dengue Brazil (Acre)-2", "seasonal_median on dengue Brazil (Acre)")
    return compare_chart(frame, frame, actuals, labels=labels)


def _grid(size: int) -> dict[str, Any]:
    """``size`` x ``size`` square districts named 'District <n>'."""
    features = []
    for index in range(size * size):
        row, column = divmod(index, size)
        ring = [[column, row], [column + 1, row], [column + 1, row + 1], [column, row + 1]]
        features.append(
            {
                "type": "Feature",
                "id": f"D{index}",
                "properties": {"name": f"District {index}"},
                "geometry": {"type": "Polygon", "coordinates": [[*ring, ring[0]]]},
            }
        )
    return {"type": "FeatureCollection", "features": features}


def _map(periods: int) -> Figure:
    months = pd.period_range("2025-01", periods=periods, freq="M")
    frame = pd.DataFrame(
        [(f"D{unit}", month, float(unit)) for month in months for unit in range(25)],
        columns=["org_unit", "period", "cases"],
    )
    return map_chart(frame, _grid(5), "cases")


def _tiles(periods: int, weekly: bool) -> Figure:
    frequency = "W-SUN" if weekly else "M"
    columns = pd.period_range("2025-01-06", periods=periods, freq=frequency)
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        [(unit, period, rng.random()) for unit in _places(20) for period in columns],
        columns=["org_unit", "period", "probability"],
    )
    return probability_tiles(_named(frame))


MODELS = ("naive_model", "seasonal_naive", "regression_model", "persistence", "seasonal_median")


def _forecasts(horizon: int) -> dict[str, pd.DataFrame]:
    return {
        model: normal_forecasts(6, horizon=horizon, shift=2.0 * index, seed=index)
        for index, model in enumerate(MODELS)
    }


def _scores(horizon: int) -> pd.DataFrame:
    return scoring.score(_forecasts(horizon), normal_actuals(6, periods=16))


CHARTS: dict[str, Callable[[], Figure]] = {
    "fan, one place": lambda: _fan(1, weekly=False),
    "fan, three places": lambda: _fan(3, weekly=False),
    "fan, twelve places, weekly": lambda: _fan(12, weekly=True),
    "fan, every split": lambda: _fan(2, weekly=False, split_period=ALL_SPLITS),
    "fan, a forecast after a year": lambda: _forecast(12),
    "comparison, long names": lambda: _compare(1),
    "comparison, five places": lambda: _compare(5),
    "map, three months": lambda: _map(3),
    "map, one month": lambda: _map(1),
    "tiles, three months": lambda: _tiles(3, weekly=False),
    "tiles, half a year of weeks": lambda: _tiles(26, weekly=True),
    "leaderboard": lambda: leaderboard_chart(
        scoring.relative_skill(_scores(3), baseline="persistence", n_bootstrap=50, seed=0)
    ),
    "WIS components": lambda: wis_components_chart(scoring.summarise(_scores(3))),
    "coverage": lambda: coverage_chart(scoring.coverage(_forecasts(3), normal_actuals(6, 16))),
    "PIT": lambda: pit_chart(scoring.pit_histogram(_forecasts(3), normal_actuals(6, 16))),
    "heatmap, twelve horizons": lambda: score_heatmap(_scores(12), "wis"),
}


def picture_width(figure: Figure) -> float:
    """The width in inches of the picture a notebook saves (``bbox_inches="tight"``)."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI, bbox_inches="tight")
    return Image.open(io.BytesIO(buffer.getvalue())).size[0] / DPI


@pytest.mark.parametrize("name", list(CHARTS))
def test_the_chart_fits_an_output_its_text_reads_and_it_draws_what_it_says(name: str) -> None:
    figure = CHARTS[name]()
    assert figure.dpi == DPI
    assert picture_width(figure) <= PICTURE + 0.01, f"{picture_width(figure):.2f} inches"
    smallest = smallest_text_points(figure)
    assert smallest is not None and smallest >= MIN_TEXT
    assert drawn_problems(figure) == []


def test_the_gate_names_a_forecast_that_is_a_sliver_and_an_axis_above_the_values() -> None:
    """The quickstart's three months after 24 of history, and a value axis covering a split
    far above the one shown, are what the gate names."""
    frame, actuals = evaluation(("OU_A",), n_splits=1)
    problems = drawn_problems(fan_chart(frame.drop(columns=SPLIT_PERIOD), actuals, history=24))
    assert problems == [
        "panel 1 (OU_A): the forecast's 3 periods follow 24 of history, less than 20% of the panel"
    ]
    figure = fan_chart(frame, actuals)
    assert drawn_problems(figure) == []
    ax = figure.axes[0]
    ax.set_ylim(0, ax.get_ylim()[1] * 3)
    (problem,) = drawn_problems(figure)
    assert "the value axis reaches" in problem
