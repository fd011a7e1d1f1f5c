"""Server-drawn plots: chart names, charts as the server draws them (PNG images or Vega
specifications), and the metrics behind them."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import Any, TypeVar

import httpx
from pydantic import Field

from chaplab.client._capabilities import Route
from chaplab.client._plumbing import (
    DATASETS,
    Resource,
    decode,
    decode_failure,
    require_id,
    require_name,
    validate,
)
from chaplab.client._steps import Operation
from chaplab.client._wire import NullableDict, NullableList, SnakeModel, WireModel

_NAME = re.compile(r"^[A-Za-z0-9_\-]+$")
T = TypeVar("T")

# -- wire models -----------------------------------------------------------------------------


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_SCHEMA = re.compile(r"/schema/(vega-lite|vega)/v(\d+)")


@dataclass(frozen=True)
class ServerPlot:
    """A chart drawn by the service, as it sent it: a PNG image (the embedded service) or a
    Vega or Vega-Lite JSON specification (chap-core 2.5.1). Jupyter shows either inline (PNG
    as ``image/png``, a specification under its Vega MIME type, which JupyterLab renders);
    ``save`` writes it to the file type that matches (``.png``, ``.vl.json`` or ``.vg.json``).
    """

    data: bytes
    media_type: str = "image/png"

    @property
    def is_png(self) -> bool:
        """True for a PNG image, False for a JSON specification."""
        return self.data.startswith(PNG_SIGNATURE)

    @property
    def spec(self) -> dict[str, Any] | None:
        """The Vega or Vega-Lite specification, or ``None`` for a PNG image."""
        if self.is_png:
            return None
        value = json.loads(self.data)
        return value if isinstance(value, dict) else None

    @property
    def mime_type(self) -> str:
        """The MIME type Jupyter shows it under: ``image/png``,
        ``application/vnd.vegalite.v<N>+json`` for Vega-Lite, ``application/vnd.vega.v5+json``
        for Vega (JupyterLab's Vega renderer; chap-core 2.5.1 writes Vega v6 specifications,
        which that renderer reads)."""
        if self.is_png:
            return "image/png"
        found = _SCHEMA.search(str((self.spec or {}).get("$schema", "")))
        if found and found.group(1) == "vega-lite":
            return f"application/vnd.vegalite.v{found.group(2)}+json"
        if found:
            return "application/vnd.vega.v5+json"
        return "application/json"

    @property
    def suffix(self) -> str:
        """The file ending ``save`` wants: ``.png``, ``.vl.json``, ``.vg.json`` or ``.json``."""
        mime = self.mime_type
        if mime == "image/png":
            return ".png"
        if "vegalite" in mime:
            return ".vl.json"
        return ".vg.json" if "vega" in mime else ".json"

    def _repr_png_(self) -> bytes | None:
        return self.data if self.is_png else None

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict[str, Any]:
        shown: Any = self.data if self.is_png else self.spec
        return {self.mime_type: shown, "text/plain": repr(self)}

    def __repr__(self) -> str:
        return f"ServerPlot({self.mime_type}, {len(self.data)} bytes)"

    def save(self, path: str | PathLike[str]) -> Path:
        """Write the chart to ``path`` as it came, and return the path. ``path`` must end in
        ``suffix`` (``.png`` for an image, ``.vl.json``/``.vg.json`` for a specification), so
        that a file's name never claims another format than its content."""
        target = Path(path)
        if not target.name.endswith(self.suffix):
            raise ValueError(
                f"path must end in {self.suffix!r} for this chart ({self.mime_type}), "
                f"got {target.name!r}"
            )
        target.write_bytes(self.data)
        return target


PngImage = ServerPlot
"""The former name of ``ServerPlot`` (kept importable)."""


@dataclass(frozen=True)
class FacetPlot:
    """One facet of a faceted evaluation chart: its coordinates (``key``, one value per facet
    dimension, in the order ``backtest_plot_facets`` names them) and its chart."""

    key: tuple[Any, ...]
    plot: ServerPlot


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

_WHOLE_CHART = "evaluation_plot(visualization_name, evaluation_id), the chart with every facet"
FACETS = Route(
    "backtest_plot_facets",
    "GET",
    "/v1/visualization/backtest-plots/{visualization_name}/{backtest_id}/facet-coords",
    _WHOLE_CHART,
)
SUBPLOT = Route(
    "backtest_subplot",
    "POST",
    "/v1/visualization/backtest-plots/{visualization_name}/{backtest_id}/subplot",
    _WHOLE_CHART,
)
SUBPLOTS = Route(
    "backtest_subplots",
    "GET",
    "/v1/visualization/backtest-plots/{visualization_name}/{backtest_id}/subplots",
    _WHOLE_CHART,
)


class Plots(Resource):
    """``/v1/visualization``: charts of evaluations, datasets and metrics."""

    def list_evaluation_plots(self) -> Operation[list[str]]:
        """Names of the charts the service draws for an evaluation."""
        return (yield from self._names("/v1/visualization/backtest-plots/"))

    def evaluation_plot(self, visualization_name: str, evaluation_id: int) -> Operation[ServerPlot]:
        """An evaluation chart as the service draws it (shown inline in Jupyter)."""
        name = _plot_name("visualization_name", visualization_name)
        evaluation_id = require_id("evaluation_id", evaluation_id)
        return (yield from self._plot(f"/v1/visualization/backtest-plots/{name}/{evaluation_id}"))

    def backtest_plot_facets(
        self, visualization_name: str, evaluation_id: int
    ) -> Operation[dict[str, list[Any]]]:
        """The facet dimensions of an evaluation chart and their values (e.g.
        ``{"split_period": [...], "location": ["OU_North", ...]}``), for ``backtest_subplot``."""
        chart = _chart(visualization_name, evaluation_id)
        return (yield from self._call_route(dict[str, list[Any]], FACETS, *chart))

    def backtest_subplot(
        self, visualization_name: str, evaluation_id: int, coordinates: Mapping[str, Any]
    ) -> Operation[ServerPlot]:
        """One facet of an evaluation chart: the chart of the rows matching ``coordinates``
        (dimension -> value, dimensions and values from ``backtest_plot_facets``)."""
        chart = _chart(visualization_name, evaluation_id)
        if not isinstance(coordinates, Mapping) or not coordinates:
            raise ValueError(
                "coordinates must map facet dimensions to values (see backtest_plot_facets), "
                f"got {coordinates!r}"
            )
        body = {require_name("coordinates", key): value for key, value in coordinates.items()}
        response = yield from self._request_route(SUBPLOT, *chart, json=body)
        return _plot_of(response)

    def backtest_subplots(
        self, visualization_name: str, evaluation_id: int
    ) -> Operation[list[FacetPlot]]:
        """Every facet of an evaluation chart, each with its coordinates."""
        chart = _chart(visualization_name, evaluation_id)
        response = yield from self._request_route(SUBPLOTS, *chart)
        payload = decode(response)
        items = payload if isinstance(payload, list) else None
        if items is None or not all(isinstance(item, dict) and "spec" in item for item in items):
            raise decode_failure(response, f"no list of facets with a spec: {payload!r}"[:300])
        return [
            FacetPlot(
                key=tuple(item.get("key") or ()),
                plot=ServerPlot(json.dumps(item["spec"]).encode(), "application/json"),
            )
            for item in items
        ]

    def list_dataset_plots(self) -> Operation[list[str]]:
        """Names of the charts the service draws for a dataset."""
        return (yield from self._names("/v1/visualization/dataset-plots/"))

    def dataset_plot(self, visualization_name: str, dataset_id: int | str) -> Operation[ServerPlot]:
        """A dataset chart as the service draws it; ``dataset_id`` is the dataset's id or
        its name."""
        name = _plot_name("visualization_name", visualization_name)
        dataset_id = yield from self._id_of("dataset_id", dataset_id, DATASETS)
        return (yield from self._plot(f"/v1/visualization/dataset-plots/{name}/{dataset_id}"))

    def list_metric_plots(self, evaluation_id: int) -> Operation[MetricPlotCatalog]:
        """The metric chart names and the metric ids an evaluation can be drawn for."""
        evaluation_id = require_id("evaluation_id", evaluation_id)
        path = f"/v1/visualization/metric-plots/{evaluation_id}"
        answer = yield from self._model_or_names(MetricPlotCatalog, path)
        if isinstance(answer, MetricPlotCatalog):
            return answer
        metrics = yield from self._names(f"/v1/visualization/metrics/{evaluation_id}")
        return MetricPlotCatalog(visualizations=answer, metrics=metrics)

    def metric_plot(
        self, visualization_name: str, evaluation_id: int, metric: str
    ) -> Operation[ServerPlot]:
        """A chart of one metric of an evaluation (names from ``list_metric_plots``)."""
        name = _plot_name("visualization_name", visualization_name)
        evaluation_id = require_id("evaluation_id", evaluation_id)
        metric = _plot_name("metric", metric)
        path = f"/v1/visualization/metric-plots/{name}/{evaluation_id}/{metric}"
        return (yield from self._plot(path))

    def evaluation_metrics(self, evaluation_id: int) -> Operation[EvaluationMetrics]:
        """Aggregate metrics with their breakdown per org unit and per horizon.

        Where the service's metrics route lists only the metric kinds (chap-core 2.5.1), the
        aggregates come from the evaluation and the breakdowns are the means of its metrics
        CSV per org unit and per horizon distance."""
        evaluation_id = require_id("evaluation_id", evaluation_id)
        path = f"/v1/visualization/metrics/{evaluation_id}"
        names = yield from self._model_or_names(EvaluationMetrics, path)
        if isinstance(names, EvaluationMetrics):
            return names
        info = yield from self._request("GET", f"/v1/crud/backtests/{evaluation_id}/info")
        aggregate = decode(info).get("aggregateMetrics") or {}
        csv_answer = yield from self._request(
            "GET", "/v1/crud/metric/csv", params={"backtestId": evaluation_id}
        )
        by_org_unit, by_horizon = _breakdowns(csv_answer.text)
        return EvaluationMetrics(
            backtest_id=evaluation_id,
            metric_names=names,
            aggregate=aggregate,
            by_org_unit=by_org_unit,
            by_horizon=by_horizon,
        )

    def _names(self, path: str) -> Operation[list[str]]:
        """A list of chart or metric names: plain strings, or objects with an ``id``."""
        response = yield from self._request("GET", path)
        return _ids(decode(response), response)

    def _model_or_names(self, shape: type[T], path: str) -> Operation[T | list[str]]:
        """The answer of ``path`` as ``shape``; where the service answers with a bare list
        (chap-core 2.5.1), the names it lists, for the caller to build ``shape`` from."""
        response = yield from self._request("GET", path)
        payload = decode(response)
        if isinstance(payload, list):
            return _ids(payload, response)
        return validate(shape, payload, response)

    def _plot(self, path: str) -> Operation[ServerPlot]:
        accept = "image/png, application/json;q=0.9"
        response = yield from self._request("GET", path, headers={"Accept": accept})
        return _plot_of(response)


def _plot_of(response: httpx.Response) -> ServerPlot:
    """The chart an answer carries, as it came."""
    media_type = response.headers.get("content-type", "image/png").split(";")[0].strip()
    return ServerPlot(response.content, media_type)


def _chart(visualization_name: str, evaluation_id: int) -> tuple[str, int]:
    """The path values of an evaluation chart's facet routes, checked."""
    name = _plot_name("visualization_name", visualization_name)
    return name, require_id("evaluation_id", evaluation_id)


def _ids(payload: Any, response: httpx.Response) -> list[str]:
    """Names from a list of strings or of objects with an ``id``."""
    if isinstance(payload, list):
        names = [item.get("id") if isinstance(item, dict) else item for item in payload]
        texts = [name for name in names if isinstance(name, str)]
        if len(texts) == len(names):
            return texts
    raise decode_failure(response, f"no list of names or of objects with an id: {payload!r}")


def _breakdowns(text: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Mean metric per org unit and per horizon from a metrics CSV with the columns
    ``metric_id, location, horizon_distance, metric``."""
    sums: dict[tuple[str, str, Any], list[float]] = {}
    for row in csv.DictReader(io.StringIO(text)):
        metric, value = row.get("metric_id"), row.get("metric")
        if not metric or value in (None, ""):
            continue
        for key, column in (("org_unit", "location"), ("horizon", "horizon_distance")):
            if row.get(column) not in (None, ""):
                sums.setdefault((key, metric, row[column]), []).append(float(value))
    tables: dict[str, dict[Any, dict[str, Any]]] = {"org_unit": {}, "horizon": {}}
    for (key, metric, where), values in sums.items():
        label: Any = int(where) if key == "horizon" else where
        tables[key].setdefault(label, {key: label})[metric] = sum(values) / len(values)
    by_org_unit = [tables["org_unit"][unit] for unit in sorted(tables["org_unit"])]
    by_horizon = [tables["horizon"][step] for step in sorted(tables["horizon"])]
    return by_org_unit, by_horizon


def _plot_name(field: str, value: object) -> str:
    """A chart or metric name: letters, digits, ``_`` and ``-`` only (never a path)."""
    if not isinstance(value, str) or not _NAME.match(value):
        raise ValueError(f"{field} must be a name of letters, digits, '_' or '-', got {value!r}")
    return value
