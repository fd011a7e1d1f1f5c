"""Server-drawn plots: PNG charts of evaluations, datasets and metrics, drawn with
``chaplab.plotting`` (fan charts, from ``chaplab.frames`` frames) and matplotlib.

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
from chaplab.vocabulary import DEFAULT_QUANTILES, readable_period

if TYPE_CHECKING:
    from matplotlib.figure import Figure

_DRAWING = threading.Lock()
MAX_LINES = 12
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


def _evaluation_frames(row: EvaluationRow, actual_cases: dict[str, Any]) -> tuple[Any, Any]:
    from chaplab.frames import actuals_to_frame, entries_to_frame

    return entries_to_frame(evaluation_entries(row, DEFAULT_QUANTILES)), actuals_to_frame(
        actual_cases
    )


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
    last = row.split_periods[-1] if row.split_periods else None
    split = readable_period(last) if last else None
    return fan_chart(frame, actuals, split_period=last, title=f"{row.name}: split {split}")


BACKTEST_PLOTS: dict[str, Callable[[EvaluationRow, dict[str, Any]], Figure]] = {
    "forecasts": forecasts_chart,
    "last_split": last_split_chart,
}


def features_chart(row: DatasetRow) -> Figure:
    """One panel per feature, one line per org unit (the first 12)."""
    import matplotlib.pyplot as plt

    panel = panel_of(row)
    names = list(panel.features)
    figure = plt.figure(figsize=(8, 2.2 * max(1, len(names))), layout="constrained")
    axes = figure.subplots(max(1, len(names)), 1, squeeze=False, sharex=True)[:, 0]
    x = np.arange(panel.n_periods)
    for ax, name in zip(axes, names, strict=False):
        for u, unit in enumerate(panel.org_units[:MAX_LINES]):
            ax.plot(x, panel.features[name][u], linewidth=1, label=unit)
        ax.set_title(display_name(name), fontsize="medium")
        ax.grid(True, linewidth=0.4, alpha=0.5)
    _period_ticks(axes[-1], panel.periods)
    if names:
        axes[0].legend(fontsize="small", ncols=min(4, panel.n_org_units), loc="upper left")
    figure.suptitle(f"{row.name}: features by org unit")
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
    figure = plt.figure(
        figsize=(2 + 1.2 * max(1, len(names)), 1.5 + 0.3 * panel.n_org_units), layout="constrained"
    )
    ax = figure.subplots()
    image = ax.imshow(
        observed.reshape(panel.n_org_units, len(names)), vmin=0, vmax=1, cmap="Blues", aspect="auto"
    )
    ax.set_xticks(range(len(names)), [display_name(n) for n in names], rotation=30, ha="right")
    ax.set_yticks(range(panel.n_org_units), panel.org_units)
    figure.colorbar(image, ax=ax, label="share observed")
    ax.set_title(f"{row.name}: observed values")
    return figure


DATASET_PLOTS: dict[str, Callable[[DatasetRow], Figure]] = {
    "features": features_chart,
    "coverage": coverage_chart,
}


def by_org_unit_chart(row: EvaluationRow, metric: str) -> Figure:
    """The metric per org unit, as bars."""
    import matplotlib.pyplot as plt

    metrics = evaluation_metrics(row)
    labels = [m.org_unit for m in metrics.by_org_unit]
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


def _period_ticks(ax: Any, periods: list[str]) -> None:
    step = max(1, len(periods) // 8)
    positions = list(range(0, len(periods), step))
    ax.set_xticks(
        positions, [readable_period(periods[i]) for i in positions], rotation=30, ha="right"
    )


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
