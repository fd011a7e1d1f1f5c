"""Server-drawn plots: chart names, charts as the server draws them (PNG images or Vega
specifications), and the metrics behind them."""

from __future__ import annotations

import base64
import csv
import io
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from os import PathLike
from pathlib import Path
from typing import Any, TypeVar

import httpx
from pydantic import Field

from chaplab.client import _vega as vega
from chaplab.client._capabilities import Route, RouteCache
from chaplab.client._datasets import OrgUnitNames
from chaplab.client._errors import ArgumentError, ServerError, lost_dataset
from chaplab.client._evaluations import Evaluations
from chaplab.client._orphans import EVALUATIONS, orphaned_record
from chaplab.client._plumbing import (
    DATASETS,
    RequestBuilder,
    Resource,
    decode,
    decode_failure,
    require_id,
    require_name,
    validate,
)
from chaplab.client._quantile_records import RecordOnce
from chaplab.client._steps import Operation, RetryPolicy
from chaplab.client._wire import NullableDict, NullableList, SnakeModel, WireModel

_NAME = re.compile(r"^[A-Za-z0-9_\-]+$")
T = TypeVar("T")

# -- wire models -----------------------------------------------------------------------------


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_SPEC_SUFFIXES = {"vega": ".vg.json", "vega-lite": ".vl.json"}
_PICTURE_SUFFIXES = (".png", ".svg", ".pdf")
SMALLEST_SCALE = 0.6
"""The most a chart is shrunk to fit the output's width; a wider one scrolls sideways."""


@dataclass(frozen=True)
class InteractiveChart:
    """A chart's specification shown by the notebook's own Vega renderer (tooltips, zoom),
    with its size fixed (``ServerPlot.interactive``)."""

    spec: dict[str, Any]
    mime_type: str

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict[str, Any]:
        return {self.mime_type: self.spec, "text/plain": repr(self)}

    def __repr__(self) -> str:
        return f"InteractiveChart({self.mime_type})"


@dataclass(frozen=True)
class ServerPlot:
    """A chart drawn by the service: a PNG image (the embedded service) or a Vega or
    Vega-Lite JSON specification (chap-core 2.5.1 sends Vega v6).

    Jupyter shows a specification as a picture drawn in the kernel (SVG, with vl-convert),
    shrunk to the output's width (to 60 % at most; a wider chart scrolls sideways inside its
    output), so that no chart can hang the browser; ``interactive()`` gives the live Vega
    view. Org-unit ids in the chart's data and titles read as place names (``place_names``,
    from the dataset's GeoJSON), periods as people read them (``2023-W47``, ``2023-11``; a
    split as chaplab's frames name it: chap-core heads a split of its evaluation chart by the
    first day of the period before it, ``split_headers``), polygons are wound as Vega's maps
    read them, a size the server left to the page is fixed, and a chart with nothing drawn
    says so (``empty_message``). ``save`` writes ``.png``, ``.svg``, ``.pdf`` or the specification
    (``.vg.json``, ``.vl.json`` for a Vega-Lite one).
    """

    data: bytes
    media_type: str = "image/png"
    place_names: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)
    split_headers: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)

    @property
    def is_png(self) -> bool:
        """True for a PNG image, False for a JSON specification."""
        return self.data.startswith(PNG_SIGNATURE)

    @property
    def spec(self) -> dict[str, Any] | None:
        """The Vega or Vega-Lite specification as the server sent it, or ``None`` for a PNG."""
        if self.is_png:
            return None
        value = json.loads(self.data)
        return value if isinstance(value, dict) else None

    @property
    def mime_type(self) -> str:
        """The MIME type of the chart as it came: ``image/png``,
        ``application/vnd.vegalite.v<N>+json`` for Vega-Lite, ``application/vnd.vega.v5+json``
        for Vega (JupyterLab's Vega renderer, which ``interactive()`` uses)."""
        if self.is_png:
            return "image/png"
        found = self._grammar
        if found is None:
            return "application/json"
        grammar, version = found
        if grammar == "vega-lite":
            return f"application/vnd.vegalite.v{version}+json"
        return "application/vnd.vega.v5+json"

    @property
    def suffix(self) -> str:
        """The file ending of the chart as it came: ``.png``, ``.vl.json``, ``.vg.json`` or
        ``.json``."""
        if self.is_png:
            return ".png"
        found = self._grammar
        return _SPEC_SUFFIXES[found[0]] if found else ".json"

    @property
    def save_suffixes(self) -> tuple[str, ...]:
        """The file endings ``save`` writes this chart to."""
        if self.is_png:
            return (".png",)
        found = self._grammar
        if found is None:
            return ()
        grammar = found[0]
        return _PICTURE_SUFFIXES + tuple(
            suffix for kind, suffix in _SPEC_SUFFIXES.items() if kind == "vega" or kind == grammar
        )

    def interactive(self) -> InteractiveChart:
        """The specification for the notebook's own Vega renderer, with the chart's size fixed
        (a width left to the page made JupyterLab's renderer loop until the tab crashed)."""
        found, shown = self._grammar, self._shown
        if found is None or shown is None:
            raise ArgumentError(
                f"interactive() needs a Vega or Vega-Lite specification; this chart is "
                f"{self.mime_type}"
            )
        return InteractiveChart(shown, self.mime_type)

    @cached_property
    def empty_message(self) -> str | None:
        """The sentence saying why the chart shows nothing (no mark has data: the server sent
        none, or a map's places have no polygons), else ``None``."""
        found, shown = self._grammar, self._shown
        if found is None or shown is None or not vega.may_draw_nothing(shown):
            return None
        if not vega.draws_nothing(shown, found[0]):
            return None
        if vega.has_map(shown):
            return (
                "This map is empty: the server drew none of the places (the dataset has no "
                "polygons for them, or their ids do not match the data)."
            )
        return "This chart is empty: the server sent it without any data to draw."

    def picture(self, suffix: str = ".svg") -> bytes:
        """The chart as ``.svg`` (the default), ``.png`` or ``.pdf`` bytes, drawn in the
        kernel; a PNG chart as it came."""
        if suffix not in self._picture_suffixes:
            raise ArgumentError(
                f"suffix must be one of {', '.join(self._picture_suffixes)} for this chart "
                f"({self.mime_type}), got {suffix!r}"
            )
        found, shown = self._grammar, self._shown
        if found is None or shown is None:
            return self.data
        return vega.render(shown, found[0], suffix)

    def _repr_png_(self) -> bytes | None:
        return self.data if self.is_png else None

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict[str, Any]:
        text = {"text/plain": repr(self)}
        if self.is_png:
            return {"image/png": self.data} | text
        if self._grammar is None:
            return {"application/json": self.spec} | text
        if self.empty_message:
            return {"text/plain": self.empty_message, "text/html": f"<p>{self.empty_message}</p>"}
        svg = self.picture(".svg")
        return {"image/svg+xml": svg.decode(), "text/html": _fitted(svg)} | text

    def __repr__(self) -> str:
        return f"ServerPlot({self.mime_type}, {len(self.data)} bytes)"

    def save(self, path: str | PathLike[str]) -> Path:
        """Write the chart to ``path`` and return the path: a picture for ``.png``, ``.svg``
        or ``.pdf``, the specification as shown (size fixed, place names) for ``.vg.json``
        (a Vega-Lite chart compiled to Vega) or ``.vl.json``; a PNG chart only as ``.png``."""
        target = Path(path)
        suffix = next((s for s in self.save_suffixes if target.name.endswith(s)), None)
        if suffix is None:
            raise ArgumentError(
                f"path must end in one of {', '.join(self.save_suffixes)} for this chart "
                f"({self.mime_type}), got {target.name!r}"
            )
        if suffix in _PICTURE_SUFFIXES:
            target.write_bytes(self.picture(suffix))
            return target
        found, shown = self._grammar, self._shown
        assert found is not None and shown is not None  # save_suffixes lists specs only then
        written = vega.as_vega(shown, found[0]) if suffix == ".vg.json" else shown
        target.write_text(json.dumps(written, indent=1))
        return target

    @property
    def _picture_suffixes(self) -> tuple[str, ...]:
        return tuple(s for s in self.save_suffixes if s in _PICTURE_SUFFIXES)

    @cached_property
    def _grammar(self) -> tuple[vega.Grammar, str] | None:
        spec = self.spec
        return vega.grammar_of(spec) if spec is not None else None

    @cached_property
    def _shown(self) -> dict[str, Any] | None:
        """The specification as shown: its size fixed, place names, periods as people read
        them, polygons wound for Vega."""
        found, spec = self._grammar, self.spec
        if found is None or spec is None:
            return None
        shown = vega.with_period_labels(vega.settled(spec, found[0]), self.split_headers)
        return vega.wound_for_vega(vega.with_place_names(shown, self.place_names))


def _fitted(svg: bytes) -> str:
    """HTML showing an SVG picture as wide as the output, at most its own width; a picture so
    wide that its text would shrink below ``SMALLEST_SCALE`` keeps that scale and scrolls
    sideways inside the output instead."""
    found = re.search(rb'<svg[^>]*\bwidth="([\d.]+)"', svg)
    width = float(found.group(1)) if found else None
    sizes = f"max-width:{width:.0f}px;min-width:{width * SMALLEST_SCALE:.0f}px;" if width else ""
    source = base64.b64encode(svg).decode()
    return (
        '<div style="max-width:100%;overflow-x:auto">'
        f'<img src="data:image/svg+xml;base64,{source}" '
        f'style="width:100%;{sizes}height:auto" alt="chart drawn by the server"></div>'
    )


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
    per metric, ``by_horizon`` rows ``horizon`` (1 = the split period, its first forecast period)
    likewise."""

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
    """``/v1/visualization``: charts of evaluations, datasets and metrics. A chart sent as a
    specification gets the place names of its dataset (``names``; an evaluation's dataset is
    found with ``evaluations``)."""

    def __init__(
        self,
        builder: RequestBuilder,
        retry: RetryPolicy,
        routes: RouteCache,
        names: OrgUnitNames,
        evaluations: Evaluations,
    ) -> None:
        super().__init__(builder, retry, routes)
        self._place_names = names
        self._evaluations = evaluations

    def list_evaluation_plots(self) -> Operation[list[str]]:
        """Names of the charts the service draws for an evaluation."""
        return (yield from self._names("/v1/visualization/backtest-plots/"))

    def evaluation_plot(self, visualization_name: str, evaluation_id: int) -> Operation[ServerPlot]:
        """An evaluation chart as the service draws it (shown inline in Jupyter)."""
        name = _plot_name("visualization_name", visualization_name)
        evaluation_id = require_id("evaluation_id", evaluation_id)
        path = f"/v1/visualization/backtest-plots/{name}/{evaluation_id}"
        plot = yield from self._plot(path, evaluation_id)
        return (yield from self._named(plot, evaluation_id=evaluation_id))

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
            raise ArgumentError(
                "coordinates must map facet dimensions to values (see backtest_plot_facets), "
                f"got {coordinates!r}"
            )
        body = {require_name("coordinates", key): value for key, value in coordinates.items()}
        response = yield from self._request_route(SUBPLOT, *chart, json=body)
        return (yield from self._named(_plot_of(response), evaluation_id=chart[1]))

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
        names, headers = yield from self._evaluation_labels(chart[1])
        return [
            FacetPlot(
                key=_facet_key(item.get("key")),
                plot=ServerPlot(
                    json.dumps(item["spec"]).encode(), "application/json", names, headers
                ),
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
        plot = yield from self._plot(f"/v1/visualization/dataset-plots/{name}/{dataset_id}")
        return (yield from self._named(plot, dataset_id=dataset_id))

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
        plot = yield from self._plot(path, evaluation_id)
        return (yield from self._named(plot, evaluation_id=evaluation_id))

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

    def _named(
        self, plot: ServerPlot, *, evaluation_id: int | None = None, dataset_id: int | None = None
    ) -> Operation[ServerPlot]:
        """``plot`` with the place names of its dataset and, for an evaluation's chart, the
        headers of its splits; a PNG as it came (its names and periods drawn)."""
        if plot.is_png:
            return plot
        if evaluation_id is None:
            names = (yield from self._place_names.of_dataset(dataset_id)) or {}
            return replace(plot, place_names=names)
        names, headers = yield from self._evaluation_labels(evaluation_id)
        return replace(plot, place_names=names, split_headers=headers)

    def _evaluation_labels(
        self, evaluation_id: int
    ) -> Operation[tuple[dict[str, str], dict[str, str]]]:
        """From one read of the evaluation: the place names of its dataset (none where it has
        no GeoJSON) and how chap-core heads each of its splits -> the split's label
        (:func:`chaplab.client._vega.split_header_labels`)."""
        evaluation = yield from RecordOnce(evaluation_id, self._evaluations.get_evaluation).read()
        names = (yield from self._place_names.of_record(evaluation)) or {}
        splits = evaluation.split_periods if evaluation is not None else []
        return names, vega.split_header_labels(splits)

    def _plot(self, path: str, evaluation_id: int | None = None) -> Operation[ServerPlot]:
        """The chart at ``path``; of the evaluation ``evaluation_id``, an
        ``OrphanedRecordError`` where the server cannot draw it because its dataset was
        deleted."""
        accept = "image/png, application/json;q=0.9"
        try:
            response = yield from self._request("GET", path, headers={"Accept": accept})
        except ServerError as error:
            if evaluation_id is None or not lost_dataset(error):
                raise
            raise orphaned_record(error, EVALUATIONS, evaluation_id) from None
        return _plot_of(response)


def _plot_of(response: httpx.Response) -> ServerPlot:
    """The chart an answer carries, as it came."""
    media_type = response.headers.get("content-type", "image/png").split(";")[0].strip()
    return ServerPlot(response.content, media_type)


def _facet_key(key: Any) -> tuple[Any, ...]:
    """A facet's coordinates as a tuple: chap-core 2.5.1 sends a chart with one facet
    dimension a plain value (``1``), one with several a list."""
    if key is None:
        return ()
    return tuple(key) if isinstance(key, list | tuple) else (key,)


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
        raise ArgumentError(f"{field} must be a name of letters, digits, '_' or '-', got {value!r}")
    return value
