"""Calibration charts: PIT histograms (one panel per model) and the coverage plot."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import PercentFormatter

from chaplab.plotting._figure import MAX_WIDTH
from chaplab.plotting._scoring_style import (
    MODEL,
    REFERENCE_COLOUR,
    coloured_models,
    new_figure,
    require_table,
)

PIT_COLUMNS = (MODEL, "bin_lower", "bin_upper", "density")
COVERAGE_COLUMNS = (MODEL, "kind", "nominal", "empirical")
PANEL_SIZE = 2.9  # inches per PIT panel
MAX_COLUMNS = 3
PIT_GID = "pit"
COVERAGE_GID = "coverage"
IDEAL_GID = "ideal"


def pit_chart(histogram: pd.DataFrame, *, title: str | None = None) -> Figure:
    """One PIT histogram per model, bars as wide as the bins between its quantile levels and as
    high as their density; a dashed line at 1 is what calibrated forecasts give.

    ``histogram`` is the frame :func:`chaplab.scoring.pit_histogram` returns (without ``by``).
    """
    require_table(
        histogram,
        PIT_COLUMNS,
        "histogram",
        "chaplab.scoring.pit_histogram",
        one_row_per=[MODEL, "bin_lower"],
        hint="pass pit_histogram(...) without by=",
    )
    models, colours = coloured_models(histogram)
    columns = min(len(models), MAX_COLUMNS)
    rows = math.ceil(len(models) / columns)
    figure = new_figure(PANEL_SIZE * columns + 0.4, PANEL_SIZE * 0.8 * rows + 0.7)
    axes = figure.subplots(rows, columns, squeeze=False, sharex=True, sharey=True).ravel()
    top = max(2.0, float(histogram["density"].max()) * 1.1)
    for ax, model in zip(axes, models, strict=False):
        bins = histogram[histogram[MODEL].astype(str) == model]
        widths = (bins["bin_upper"] - bins["bin_lower"]).to_numpy(np.float64)
        bars = ax.bar(
            bins["bin_lower"],
            bins["density"],
            width=widths,
            align="edge",
            color=colours[model],
            edgecolor="white",
            linewidth=0.8,
        )
        for bar, lower in zip(bars, bins["bin_lower"], strict=True):
            bar.set_gid(f"{PIT_GID} {model} {lower:g}")
        ax.axhline(1.0, color=REFERENCE_COLOUR, linestyle="--", linewidth=1.0)
        ax.set_title(model, fontsize="medium")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, top)
        ax.set_xticks([0, 0.25, 0.5, 0.75, 1], ["0", "0.25", "0.5", "0.75", "1"])
    for unused in axes[len(models) :]:
        unused.remove()
    for ax in axes[: len(models)]:
        if not _has_panel_below(ax, len(models), columns):
            ax.set_xlabel("PIT")
            ax.xaxis.set_tick_params(labelbottom=True)
        if ax.get_subplotspec().is_first_col():
            ax.set_ylabel("density")
    figure.suptitle(title or "PIT histograms (flat at 1 when calibrated)")
    return figure


def _has_panel_below(ax: Axes, count: int, columns: int) -> bool:
    spec = ax.get_subplotspec()
    assert spec is not None, "the chart's axes are a grid's"
    return (spec.rowspan.start + 1) * columns + spec.colspan.start < count


def coverage_chart(table: pd.DataFrame, *, title: str | None = None) -> Figure:
    """Empirical against nominal coverage per model: central intervals on the left, quantiles
    on the right; points on the diagonal are calibrated, below it too narrow (intervals) or too
    low (quantiles).

    ``table`` is the frame :func:`chaplab.scoring.coverage` returns (without ``by``).
    """
    require_table(
        table,
        COVERAGE_COLUMNS,
        "table",
        "chaplab.scoring.coverage",
        one_row_per=[MODEL, "kind", "nominal"],
        hint="pass coverage(...) without by=",
    )
    models, colours = coloured_models(table)
    figure = new_figure(MAX_WIDTH, 4.2)
    axes = figure.subplots(1, 2, sharey=True)
    panels = (
        (
            "interval",
            "central interval level",
            "share of actual cases inside the interval",
            "Central intervals",
        ),
        (
            "quantile",
            "quantile level",
            "share of actual cases at or below the quantile",
            "Quantiles",
        ),
    )
    for ax, (kind, xlabel, ylabel, panel_title) in zip(axes, panels, strict=True):
        ax.plot(
            [0, 1],
            [0, 1],
            color=REFERENCE_COLOUR,
            linestyle="--",
            linewidth=1.0,
            gid=f"{IDEAL_GID} {kind}",
        )
        rows = table[table["kind"] == kind].sort_values("nominal")
        for model in models:
            own = rows[rows[MODEL].astype(str) == model]
            ax.plot(
                own["nominal"],
                own["empirical"],
                "o-",
                color=colours[model],
                markersize=5,
                linewidth=1.4,
                gid=f"{COVERAGE_GID} {kind} {model}",
            )
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_aspect("equal")
        ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_title(panel_title, fontsize="medium")
        ax.grid(True, linewidth=0.4, alpha=0.5)
        ax.yaxis.set_tick_params(labelleft=True)
    handles = [Line2D([], [], color=colours[m], marker="o", markersize=5, label=m) for m in models]
    handles.append(Line2D([], [], color=REFERENCE_COLOUR, linestyle="--", label="calibrated"))
    figure.legend(handles=handles, loc="outside right upper", fontsize="small", frameon=False)
    figure.suptitle(title or "Coverage: empirical against nominal")
    return figure
