"""Figure 10, forecast maps: a forecast for 500 org units drawn as a map and as tiles (median of 3).

The org units are the demo generator's 500 districts, rectangles on a grid with names; the
forecast has three months and the quantiles 0.1, 0.25, 0.5, 0.75, 0.9 per district, drawn
deterministically around a district's own level. Timed separately, each to PNG at the default
resolution and closed: ``map_chart`` of the median, one panel per month (1,500 polygons), and
``probability_tiles`` of the outbreak probability per district and month (500 x 3 tiles, the
likeliest first), from ``exceedance_probability`` of the forecast against a threshold per
district.
"""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from benchmarks.results import Result, at_most  # noqa: E402
from benchmarks.timing import median_time  # noqa: E402
from chaplab.frames import with_org_unit_names  # noqa: E402
from chaplab.plotting import map_chart, probability_tiles  # noqa: E402
from chaplab.scoring import exceedance_probability  # noqa: E402
from chaplab.service.demo import generate_demo  # noqa: E402

ORG_UNITS = 500
MONTHS = 3
QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)
Z_SCORES = (-1.2816, -0.6745, 0.0, 0.6745, 1.2816)  # of the quantiles above
MAP_LIMIT_SECONDS = 1.5
TILES_LIMIT_SECONDS = 1.0


def forecast_inputs() -> tuple[pd.DataFrame, pd.DataFrame, dict[str, object]]:
    """The forecast frame (log-normal quantiles, with names), its exceedance probabilities and
    the GeoJSON."""
    demo = generate_demo(n_org_units=ORG_UNITS, n_years=1)
    rng = np.random.default_rng(10)
    units = np.array(demo.panel.org_units)
    months = pd.period_range("2025-01", periods=MONTHS, freq="M")
    level = np.log(rng.uniform(20, 2000, size=(ORG_UNITS, MONTHS)))
    unit_index, month_index, quantile_index = np.meshgrid(
        np.arange(ORG_UNITS), np.arange(MONTHS), np.arange(len(QUANTILES)), indexing="ij"
    )
    values = np.exp(level[unit_index, month_index] + 0.4 * np.array(Z_SCORES)[quantile_index])
    frame = pd.DataFrame(
        {
            "org_unit": pd.Categorical(units[unit_index.ravel()]),
            "period": months[month_index.ravel()],
            "quantile": np.array(QUANTILES)[quantile_index.ravel()],
            "value": values.ravel(),
        }
    )
    thresholds = pd.DataFrame(
        {
            "org_unit": np.repeat(units, MONTHS),
            "period": np.tile(months, ORG_UNITS),
            "threshold": np.repeat(rng.uniform(20, 2000, size=ORG_UNITS), MONTHS),
        }
    )
    frame = with_org_unit_names(frame, demo.geojson)
    return frame, exceedance_probability(frame, thresholds), demo.geojson


def to_png(figure: Figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    plt.close(figure)
    return buffer.getvalue()


def run() -> list[Result]:
    frame, probabilities, geojson = forecast_inputs()
    map_seconds = median_time(
        lambda: to_png(map_chart(frame, geojson, units="cases")), repeats=3, warmup=1
    )
    tiles_seconds = median_time(
        lambda: to_png(probability_tiles(probabilities, sort="probability")), repeats=3, warmup=1
    )
    return [
        at_most("10 map, 500 org units x 3 months, to PNG", map_seconds, MAP_LIMIT_SECONDS, "s"),
        at_most(
            "10 probability tiles, 500 org units x 3 months, to PNG",
            tiles_seconds,
            TILES_LIMIT_SECONDS,
            "s",
        ),
    ]
