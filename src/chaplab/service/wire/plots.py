"""Wire models of server-drawn plots (the charts themselves are PNG bytes)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from chaplab.service.wire.common import WireModel


class PlotType(WireModel):
    """A chart the service draws, as 2.5.1 lists its plot kinds: its name in the chart's URL,
    a display name and what it shows."""

    id: str
    display_name: str
    description: str


class FacetSpec(BaseModel):
    """One facet of an evaluation chart (2.5.1's ``{key, spec}``): its coordinate value, or
    its values in the chart's order of dimensions, and its Vega spec."""

    key: str | list[str]
    spec: dict[str, Any]


class MetricPlotCatalog(BaseModel):
    """The metric chart names and the metric ids they draw."""

    visualizations: list[str]
    metrics: list[str]
