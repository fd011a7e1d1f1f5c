"""Charts (PNG) and the metrics behind them, as sans-IO operations (see ``_operations``)."""

from __future__ import annotations

import re

from chaplab.client._operations import Operations, _require_id, operation
from chaplab.client._result_models import EvaluationMetrics, MetricPlotCatalog, PngImage
from chaplab.client._steps import Operation

_NAME = re.compile(r"^[A-Za-z0-9_\-]+$")


class VisualizationOperations(Operations):
    @operation
    def list_evaluation_plots(self) -> Operation[list[str]]:
        """Names of the charts the service draws for an evaluation."""
        return (yield from self._get(list[str], "/v1/visualization/backtest-plots/"))

    @operation
    def evaluation_plot(self, visualization_name: str, evaluation_id: int) -> Operation[PngImage]:
        """An evaluation chart as a PNG image (shown inline in Jupyter)."""
        name = _plot_name("visualization_name", visualization_name)
        evaluation_id = _require_id("evaluation_id", evaluation_id)
        return (yield from self._png(f"/v1/visualization/backtest-plots/{name}/{evaluation_id}"))

    @operation
    def list_dataset_plots(self) -> Operation[list[str]]:
        """Names of the charts the service draws for a dataset."""
        return (yield from self._get(list[str], "/v1/visualization/dataset-plots/"))

    @operation
    def dataset_plot(self, visualization_name: str, dataset_id: int) -> Operation[PngImage]:
        """A dataset chart as a PNG image."""
        name = _plot_name("visualization_name", visualization_name)
        dataset_id = _require_id("dataset_id", dataset_id)
        return (yield from self._png(f"/v1/visualization/dataset-plots/{name}/{dataset_id}"))

    @operation
    def list_metric_plots(self, evaluation_id: int) -> Operation[MetricPlotCatalog]:
        """The metric chart names and the metric ids an evaluation can be drawn for."""
        evaluation_id = _require_id("evaluation_id", evaluation_id)
        return (
            yield from self._get(
                MetricPlotCatalog, f"/v1/visualization/metric-plots/{evaluation_id}"
            )
        )

    @operation
    def metric_plot(
        self, visualization_name: str, evaluation_id: int, metric: str
    ) -> Operation[PngImage]:
        """A chart of one metric of an evaluation (e.g. ``by_horizon``, ``crps``) as PNG."""
        name = _plot_name("visualization_name", visualization_name)
        evaluation_id = _require_id("evaluation_id", evaluation_id)
        metric = _plot_name("metric", metric)
        return (
            yield from self._png(f"/v1/visualization/metric-plots/{name}/{evaluation_id}/{metric}")
        )

    @operation
    def evaluation_metrics(self, evaluation_id: int) -> Operation[EvaluationMetrics]:
        """Aggregate metrics with their breakdown per org unit and per horizon."""
        evaluation_id = _require_id("evaluation_id", evaluation_id)
        return (
            yield from self._get(EvaluationMetrics, f"/v1/visualization/metrics/{evaluation_id}")
        )

    def _png(self, path: str) -> Operation[PngImage]:
        response = yield from self._request("GET", path, headers={"Accept": "image/png"})
        return PngImage(response.content)


def _plot_name(field: str, value: object) -> str:
    """A chart or metric name: letters, digits, ``_`` and ``-`` only (never a path)."""
    if not isinstance(value, str) or not _NAME.match(value):
        raise ValueError(f"{field} must be a name of letters, digits, '_' or '-', got {value!r}")
    return value
