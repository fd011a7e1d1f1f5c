"""An outbreak probability known only as a bound (the threshold beyond the forecast's outermost
quantile) reads as the bound wherever a person reads it: tables, tiles, maps, the panel."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import pytest
from matplotlib.text import Text

from chaplab.frames import format_probability, readable, with_org_unit_names
from chaplab.plotting import map_chart, probability_tiles
from chaplab.scoring import exceedance_probability
from chaplab.widgets.forecast import forecast_table_rows

MONTHS = [pd.Period("2024-01", "M"), pd.Period("2024-02", "M")]
GEOJSON = {
    "type": "FeatureCollection",
    "features": [
        {
            "type": "Feature",
            "id": org_unit,
            "properties": {"name": name},
            "geometry": {
                "type": "Polygon",
                "coordinates": [[[x, 0], [x, 1], [x + 1, 1], [x + 1, 0], [x, 0]]],
            },
        }
        for x, (org_unit, name) in enumerate([("A", "Alpha"), ("B", "Beta")])
    ],
}


@pytest.fixture
def forecast() -> pd.DataFrame:
    """Quantiles 0.1, 0.5, 0.9 at 10, 20, 30 cases for two places and two months."""
    return pd.DataFrame(
        [
            {"org_unit": unit, "period": month, "quantile": level, "value": value}
            for unit in ("A", "B")
            for month in MONTHS
            for level, value in ((0.1, 10.0), (0.5, 20.0), (0.9, 30.0))
        ]
    )


@pytest.fixture
def outbreaks(forecast: pd.DataFrame) -> pd.DataFrame:
    """A: threshold 5 in January (below the 10% quantile: > 90%), 25 in February (30%);
    B: 40 in January (above the 90% quantile: < 10%), 20 in February (50%)."""
    thresholds = pd.DataFrame(
        {"org_unit": ["A", "A", "B", "B"], "period": MONTHS * 2, "threshold": [5.0, 25, 40, 20]}
    )
    return exceedance_probability(forecast, thresholds)


def test_a_bound_is_written_as_one() -> None:
    assert format_probability(0.05, 0.0, 0.1) == "< 10%"
    assert format_probability(0.95, 0.9, 1.0) == "> 90%"
    assert format_probability(0.3, 0.3, 0.3) == "30%" == format_probability(0.3)
    assert format_probability(float("nan")) == "\u2013"


def test_the_frame_keeps_the_bounds_and_a_table_shows_them(outbreaks: pd.DataFrame) -> None:
    bounds = outbreaks[["probability_lower", "probability_upper"]].iloc[2]
    assert list(bounds) == pytest.approx([0.0, 0.1])
    shown = readable(outbreaks)
    assert list(shown["probability"]) == ["> 90%", "30%", "< 10%", "50%"]
    assert list(shown["probability_lower"]) == ["90%", "30%", "0%", "50%"]  # not 0.900, 0.300
    assert list(shown["threshold"]) == ["5", "25", "40", "20"]


def test_tiles_write_the_bound_and_hatch_its_tile(outbreaks: pd.DataFrame) -> None:
    figure = probability_tiles(outbreaks)
    ax = figure.axes[0]
    texts = sorted(text.get_text() for text in ax.texts if text.get_gid() == "percentage")
    assert texts == ["30%", "50%", "< 10%", "> 90%"]
    hatched = [c for c in ax.collections if c.get_gid() == "bound"]
    assert [len(c.get_paths()) for c in hatched] == [2] and hatched[0].get_hatch() == "///"
    assert "only a bound is known" in ax.get_title(loc="left")
    # a bound's text sits on a patch of its tile's colour: the hatching does not cross it
    backed = sorted(
        text.get_text()
        for text in ax.texts
        if text.get_gid() == "percentage" and text.get_bbox_patch() is not None
    )
    assert backed == ["< 10%", "> 90%"]
    plt.close(figure)


def test_a_long_title_of_tiles_wraps_inside_the_figure(outbreaks: pd.DataFrame) -> None:
    """The panel saves the figure as it is (no tight box): three lines of title, a long
    strategy and long names beside the tiles would run past its right edge."""
    named = with_org_unit_names(outbreaks, {"A": "Port Loko", "B": "Kailahun"})
    figure = probability_tiles(named, strategy="Seasonal percentile (WHO)")
    figure.draw_without_rendering()
    ax = figure.axes[0]
    texts = [child for child in ax.get_children() if isinstance(child, Text)]
    title = next(text for text in texts if text.get_text() == ax.get_title("left"))
    box = title.get_window_extent(figure.canvas.get_renderer())
    assert box.x0 >= 0 and box.x1 <= figure.bbox.x1 and box.y1 <= figure.bbox.y1
    assert "only a bound is known" in title.get_text()
    plt.close(figure)


def test_a_map_hatches_the_places_known_only_by_a_bound(outbreaks: pd.DataFrame) -> None:
    figure = map_chart(outbreaks, GEOJSON, "probability")
    january, february = figure.axes[:2]
    hatched = [c for c in january.collections if c.get_gid() == "map bound"]
    assert len(hatched) == 1 and len(hatched[0].get_paths()) == 2  # both places in January
    assert not [c for c in february.collections if c.get_gid() == "map bound"]
    notes = [text.get_text() for text in figure.texts if text.get_gid() == "note"]
    assert any("only a bound is known" in note for note in notes)
    plt.close(figure)


def test_the_panels_table_shows_the_bound(forecast: pd.DataFrame, outbreaks: pd.DataFrame) -> None:
    _, rows = forecast_table_rows(forecast, outbreaks)
    assert "&gt; 90%" in rows[0] and "30%" in rows[1]
    assert "&lt; 10%" in rows[2] and "50%" in rows[3]
