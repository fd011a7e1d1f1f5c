"""Fan charts, comparison charts and metric tables on matplotlib.

Every chart returns its Figure and never calls ``plt.show()``, so it works with the Agg backend,
inline and ipympl alike.
"""

from __future__ import annotations

from chaplab.plotting._compare import compare_chart
from chaplab.plotting._fan import fan_chart
from chaplab.plotting._metrics import metrics_frame

__all__ = ["compare_chart", "fan_chart", "metrics_frame"]
