"""Fan charts, comparison charts, metric tables, scoring charts, maps and probability tiles on
matplotlib.

Every chart returns its Figure and never calls ``plt.show()``, so it works with the Agg backend,
inline and ipympl alike; a fan or comparison chart is shown once as a cell's last value.
"""

from __future__ import annotations

from chaplab.plotting._calibration_charts import coverage_chart, pit_chart
from chaplab.plotting._compare import compare_chart
from chaplab.plotting._fan import fan_chart
from chaplab.plotting._heatmap import score_heatmap
from chaplab.plotting._map import NoPolygonsError, map_chart
from chaplab.plotting._metrics import metrics_frame
from chaplab.plotting._skill_charts import leaderboard_chart, wis_components_chart
from chaplab.plotting._tiles import probability_tiles
from chaplab.plotting._time import time_axis
from chaplab.vocabulary import ALL_SPLITS

__all__ = [
    "ALL_SPLITS",
    "NoPolygonsError",
    "compare_chart",
    "coverage_chart",
    "fan_chart",
    "leaderboard_chart",
    "map_chart",
    "metrics_frame",
    "pit_chart",
    "probability_tiles",
    "score_heatmap",
    "time_axis",
    "wis_components_chart",
]
