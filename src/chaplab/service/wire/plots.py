"""Wire models of server-drawn plots (the charts themselves are PNG bytes)."""

from __future__ import annotations

from pydantic import BaseModel

from chaplab.service.wire.common import WireModel


class PlotType(WireModel):
    """A chart the service draws, as 2.5.1 lists its plot kinds: its name in the chart's URL,
    a display name and what it shows."""

    id: str
    display_name: str
    description: str


class MetricPlotCatalog(BaseModel):
    """The metric chart names and the metric ids they draw."""

    visualizations: list[str]
    metrics: list[str]
