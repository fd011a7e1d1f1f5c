"""Wire models of server-drawn plots (the charts themselves are PNG bytes)."""

from __future__ import annotations

from pydantic import BaseModel


class MetricPlotCatalog(BaseModel):
    """The metric chart names and the metric ids they draw."""

    visualizations: list[str]
    metrics: list[str]
