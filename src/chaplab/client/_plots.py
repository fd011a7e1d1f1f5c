"""Server-drawn plots: chart names, charts as PNG images, and the metrics behind them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import Any

from pydantic import Field

from chaplab.client._plumbing import Resource, require_id
from chaplab.client._steps import Operation
from chaplab.client._wire import NullableDict, NullableList, SnakeModel, WireModel

_NAME = re.compile(r"^[A-Za-z0-9_\-]+$")

# -- wire models -----------------------------------------------------------------------------


@dataclass(frozen=True)
class PngImage:
    """A chart rendered by the service; shown inline by Jupyter, or saved with ``save``."""

    data: bytes

    def _repr_png_(self) -> bytes:
        return self.data

    def save(self, path: str | PathLike[str]) -> Path:
        """Write the PNG to ``path`` and return it."""
        target = Path(path)
        target.write_bytes(self.data)
        return target


class MetricPlotCatalog(SnakeModel):
    """The metric chart names and the metric ids they can draw."""

    visualizations: NullableList[str] = Field(default_factory=list)
    metrics: NullableList[str] = Field(default_factory=list)


class EvaluationMetrics(WireModel):
    """Aggregate metrics and their breakdown: ``by_org_unit`` rows have ``org_unit`` and one key
    per metric, ``by_horizon`` rows ``horizon`` (1 = the period after the split) likewise."""

    backtest_id: int
    metric_names: NullableList[str] = Field(default_factory=list)
    aggregate: NullableDict[float | None] = Field(default_factory=dict)
    by_org_unit: NullableList[dict[str, Any]] = Field(default_factory=list)
    by_horizon: NullableList[dict[str, Any]] = Field(default_factory=list)


# -- operations ------------------------------------------------------------------------------


class Plots(Resource):
    """``/v1/visualization``: charts of evaluations, datasets and metrics."""

    def list_evaluation_plots(self) -> Operation[list[str]]:
        """Names of the charts the service draws for an evaluation."""
        return (yield from self._get(list[str], "/v1/visualization/backtest-plots/"))

    def evaluation_plot(self, visualization_name: str, evaluation_id: int) -> Operation[PngImage]:
        """An evaluation chart as a PNG image (shown inline in Jupyter)."""
        name = _plot_name("visualization_name", visualization_name)
        evaluation_id = require_id("evaluation_id", evaluation_id)
        return (yield from self._png(f"/v1/visualization/backtest-plots/{name}/{evaluation_id}"))

    def list_dataset_plots(self) -> Operation[list[str]]:
        """Names of the charts the service draws for a dataset."""
        return (yield from self._get(list[str], "/v1/visualization/dataset-plots/"))

    def dataset_plot(self, visualization_name: str, dataset_id: int) -> Operation[PngImage]:
        """A dataset chart as a PNG image."""
        name = _plot_name("visualization_name", visualization_name)
        dataset_id = require_id("dataset_id", dataset_id)
        return (yield from self._png(f"/v1/visualization/dataset-plots/{name}/{dataset_id}"))

    def list_metric_plots(self, evaluation_id: int) -> Operation[MetricPlotCatalog]:
        """The metric chart names and the metric ids an evaluation can be drawn for."""
        evaluation_id = require_id("evaluation_id", evaluation_id)
        path = f"/v1/visualization/metric-plots/{evaluation_id}"
        return (yield from self._get(MetricPlotCatalog, path))

    def metric_plot(
        self, visualization_name: str, evaluation_id: int, metric: str
    ) -> Operation[PngImage]:
        """A chart of one metric of an evaluation (e.g. ``by_horizon``, ``crps``) as PNG."""
        name = _plot_name("visualization_name", visualization_name)
        evaluation_id = require_id("evaluation_id", evaluation_id)
        metric = _plot_name("metric", metric)
        path = f"/v1/visualization/metric-plots/{name}/{evaluation_id}/{metric}"
        return (yield from self._png(path))

    def evaluation_metrics(self, evaluation_id: int) -> Operation[EvaluationMetrics]:
        """Aggregate metrics with their breakdown per org unit and per horizon."""
        evaluation_id = require_id("evaluation_id", evaluation_id)
        path = f"/v1/visualization/metrics/{evaluation_id}"
        return (yield from self._get(EvaluationMetrics, path))

    def _png(self, path: str) -> Operation[PngImage]:
        response = yield from self._request("GET", path, headers={"Accept": "image/png"})
        return PngImage(response.content)


def _plot_name(field: str, value: object) -> str:
    """A chart or metric name: letters, digits, ``_`` and ``-`` only (never a path)."""
    if not isinstance(value, str) or not _NAME.match(value):
        raise ValueError(f"{field} must be a name of letters, digits, '_' or '-', got {value!r}")
    return value
