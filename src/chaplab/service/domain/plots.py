"""Server-drawn plots: PNG charts of evaluations, datasets and metrics, drawn with
``chaplab.plotting`` (fan charts, from ``chaplab.frames`` frames) and matplotlib.

They read as the client's charts do: places are named as the dataset's GeoJSON names them
(``chaplab.frames.org_unit_names``, ids where it has no name), and a time axis is
``chaplab.plotting.time_axis``, whose ticks and period labels are every chart's.

Each chart kind is a function from the stored row to a Figure, registered by name; the routes
list the names and render one (404 listing the known names for an unknown one, 409 when there is
nothing to draw). Figures are written with the Agg renderer (``savefig`` to PNG needs no
display) and closed at once; drawing is serialised because pyplot keeps global state.
"""

from __future__ import annotations

import inspect
import io
import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
from sqlalchemy.orm import Session

from chaplab.service.domain.evaluations import (
    actual_cases,
    evaluation_entries,
    evaluation_metrics,
    get_evaluation,
)
from chaplab.service.domain.lookup import get_or_404
from chaplab.service.errors import Conflict, Missing
from chaplab.service.metrics import METRIC_NAMES
from chaplab.service.storage import panel_of
from chaplab.service.tables import DatasetRow, EvaluationRow
from chaplab.service.text import display_name
from chaplab.service.wire.plots import MetricPlotCatalog, PlotType
from chaplab.vocabulary import DEFAULT_QUANTILES

if TYPE_CHECKING:
    from matplotlib.figure import Figure

_DRAWING = threading.Lock()
MAX_LINES = 12
MIN_WIDTH = 5.0  # inches: a chart of one feature holds its title
LEGEND_COLUMNS = 4  # places side by side in the legend under the panels, each row ...
LEGEND_LINE = 0.2  # ... this many inches high (small type), which the figure grows by
Chart = TypeVar("Chart")


def png_bytes(draw: Callable[[], Figure]) -> bytes:
    """Draw a figure and return it as PNG bytes; the figure is closed afterwards."""
    import matplotlib.pyplot as plt

    with _DRAWING:
        figure = draw()
        try:
            buffer = io.BytesIO()
            figure.savefig(buffer, format="png", dpi=90)
            return buffer.getvalue()
        finally:
            plt.close(figure)


def place_labels(dataset: DatasetRow) -> dict[str, str]:
    """Org-unit id -> the label people read, from the dataset's GeoJSON (none without one)."""
    from chaplab.frames import org_unit_names

    return org_unit_names(dataset.geojson) if dataset.geojson else {}


def _evaluation_frames(row: EvaluationRow, actual_cases: dict[str, Any]) -> tuple[Any, Any]:
    """The evaluation's forecasts (their places named) and its actual cases, as frames."""
    from chaplab.frames import actuals_to_frame, entries_to_frame, with_org_unit_names

    forecasts = entries_to_frame(evaluation_entries(row, DEFAULT_QUANTILES))
    named = with_org_unit_names(forecasts, place_labels(row.dataset))
    return named, actuals_to_frame(actual_cases)


def forecasts_chart(row: EvaluationRow, actual_cases: dict[str, Any]) -> Figure:
    """Fan chart of every split against the actual cases (up to 12 org units)."""
    from chaplab.plotting import ALL_SPLITS, fan_chart

    frame, actuals = _evaluation_frames(row, actual_cases)
    return fan_chart(
        frame, actuals, split_period=ALL_SPLITS, title=f"{row.name}: forecasts of every split"
    )


def last_split_chart(row: EvaluationRow, actual_cases: dict[str, Any]) -> Figure:
    """Fan chart of the last split only."""
    from chaplab.plotting import fan_chart

    frame, actuals = _evaluation_frames(row, actual_cases)
    return fan_chart(frame, actuals, title=row.name)  # its note names the split, the last


BACKTEST_PLOTS: dict[str, Callable[[EvaluationRow, dict[str, Any]], Figure]] = {
    "forecasts": forecasts_chart,
    "last_split": last_split_chart,
}


def features_chart(row: DatasetRow) -> Figure:
    """One panel per feature, one line per org unit (the first 12)."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    from chaplab.frames import format_number
    from chaplab.plotting import time_axis

    panel = panel_of(row)
    names = list(panel.features)
    labels = place_labels(row)
    drawn = panel.org_units[:MAX_LINES]
    rows = -(-len(drawn) // LEGEND_COLUMNS)
    figure = plt.figure(
        figsize=(8, 2.2 * max(1, len(names)) + LEGEND_LINE * rows), layout="constrained"
    )
    axes = figure.subplots(max(1, len(names)), 1, squeeze=False, sharex=True)[:, 0]
    x = time_axis(axes[-1], panel.periods)  # shared: every panel's
    for ax, name in zip(axes, names, strict=False):
        for u, unit in enumerate(drawn):
            ax.plot(x, panel.features[name][u], linewidth=1, label=labels.get(unit, unit))
        ax.set_title(display_name(name), fontsize="medium")
        ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: format_number(value)))
        ax.grid(True, linewidth=0.4, alpha=0.5)
    if names:  # under the panels, where it covers no line
        handles, labels_drawn = axes[0].get_legend_handles_labels()
        figure.legend(
            handles,
            labels_drawn,
            loc="outside lower center",
            ncols=min(LEGEND_COLUMNS, len(drawn)),
            fontsize="small",
        )
    cut = (
        f" (the first {len(drawn)} of {panel.n_org_units})"
        if len(drawn) < panel.n_org_units
        else ""
    )
    figure.suptitle(f"{row.name}: features by org unit{cut}")
    return figure


def coverage_chart(row: DatasetRow) -> Figure:
    """Share of observed (non-missing) values per feature and org unit, as a heat map."""
    import matplotlib.pyplot as plt

    panel = panel_of(row)
    names = list(panel.features)
    observed = np.array(
        [
            [np.mean(~np.isnan(panel.features[n][u])) for n in names]
            for u in range(panel.n_org_units)
        ]
    )
    width = max(2 + 1.2 * max(1, len(names)), MIN_WIDTH)
    figure = plt.figure(figsize=(width, 1.5 + 0.3 * panel.n_org_units), layout="constrained")
    ax = figure.subplots()
    image = ax.imshow(
        observed.reshape(panel.n_org_units, len(names)), vmin=0, vmax=1, cmap="Blues", aspect="auto"
    )
    ax.set_xticks(range(len(names)), [display_name(n) for n in names], rotation=30, ha="right")
    labels = place_labels(row)
    ax.set_yticks(range(panel.n_org_units), [labels.get(unit, unit) for unit in panel.org_units])
    figure.colorbar(image, ax=ax, label="share observed")
    ax.set_title(f"{row.name}: observed values", wrap=True)
    return figure


DATASET_PLOTS: dict[str, Callable[[DatasetRow], Figure]] = {
    "features": features_chart,
    "coverage": coverage_chart,
}


def by_org_unit_chart(row: EvaluationRow, metric: str) -> Figure:
    """The metric per org unit, as bars."""
    import matplotlib.pyplot as plt

    metrics = evaluation_metrics(row)
    places = place_labels(row.dataset)
    labels = [places.get(m.org_unit, m.org_unit) for m in metrics.by_org_unit]
    values = [_value(m.model_dump(), metric) for m in metrics.by_org_unit]
    figure = plt.figure(figsize=(max(4, 0.6 * len(labels) + 2), 3.2), layout="constrained")
    ax = figure.subplots()
    ax.bar(range(len(labels)), values, color="tab:blue")
    ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right")
    ax.set_ylabel(metric)
    ax.set_title(f"{row.name}: {metric} by org unit")
    return figure


def by_horizon_chart(row: EvaluationRow, metric: str) -> Figure:
    """The metric per horizon (1 = the split period, the first forecast period), as a line."""
    import matplotlib.pyplot as plt

    metrics = evaluation_metrics(row)
    horizons = [m.horizon for m in metrics.by_horizon]
    values = [_value(m.model_dump(), metric) for m in metrics.by_horizon]
    figure = plt.figure(figsize=(5, 3.2), layout="constrained")
    ax = figure.subplots()
    ax.plot(horizons, values, marker="o", color="tab:blue")
    ax.set_xticks(horizons)
    ax.set_xlabel("horizon (1 = the split period)")
    ax.set_ylabel(metric)
    ax.set_title(f"{row.name}: {metric} by horizon")
    return figure


METRIC_PLOTS: dict[str, Callable[[EvaluationRow, str], Figure]] = {
    "by_org_unit": by_org_unit_chart,
    "by_horizon": by_horizon_chart,
}
METRICS = METRIC_NAMES


def _value(metrics: dict[str, Any], name: str) -> float:
    value = metrics.get(name)
    return float("nan") if value is None else float(value)


def backtest_plot(session: Session, name: str, backtest_id: int) -> bytes:
    """The evaluation chart ``name`` of evaluation ``backtest_id`` as PNG bytes."""
    chart = known_name("backtest plot", name, BACKTEST_PLOTS)
    row = get_evaluation(session, backtest_id)
    actuals = actual_cases(session, backtest_id).model_dump(by_alias=True)
    return _png(lambda: chart(row, actuals))


def dataset_plot(session: Session, name: str, dataset_id: int) -> bytes:
    """The dataset chart ``name`` of dataset ``dataset_id`` as PNG bytes."""
    chart = known_name("dataset plot", name, DATASET_PLOTS)
    row = get_or_404(session, DatasetRow, dataset_id, "dataset")
    return _png(lambda: chart(row))


def plot_types(charts: Mapping[str, Callable[..., Figure]]) -> list[PlotType]:
    """The charts of a registry as 2.5.1 lists them: each name, displayed, and the first line
    of what its function draws."""
    return [
        PlotType(
            id=name,
            display_name=display_name(name),
            description=(inspect.getdoc(draw) or "").split("\n", 1)[0],
        )
        for name, draw in charts.items()
    ]


def metric_plot_catalog(session: Session, backtest_id: int) -> MetricPlotCatalog:
    """The metric chart names and the metric ids an evaluation can be drawn for."""
    get_evaluation(session, backtest_id)
    return MetricPlotCatalog(visualizations=list(METRIC_PLOTS), metrics=list(METRICS))


def metric_plot(session: Session, name: str, backtest_id: int, metric_id: str) -> bytes:
    """The metric chart ``name`` of ``metric_id`` for evaluation ``backtest_id`` as PNG bytes."""
    chart = known_name("metric plot", name, METRIC_PLOTS)
    known_name("metric", metric_id, dict.fromkeys(METRICS), "metric_id")
    row = get_evaluation(session, backtest_id)
    return _png(lambda: chart(row, metric_id))


def known_name(
    kind: str, name: str, known: Mapping[str, Chart], field: str = "visualization_name"
) -> Chart:
    """The entry of ``known`` named ``name``; 404 listing the known names otherwise."""
    if name not in known:
        raise Missing(
            f"{field}: no {kind} named {name[:80]!r}; known: {', '.join(known)}",
            problems=[
                {
                    "loc": ["path", field],
                    "field": field,
                    "msg": f"known: {', '.join(known)}",
                    "type": "not_found",
                }
            ],
        )
    return known[name]


def _png(draw: Callable[[], Figure]) -> bytes:
    try:
        return png_bytes(draw)
    except ValueError as error:  # e.g. an evaluation stored without forecasts
        raise Conflict(f"nothing to draw: {error}") from None
