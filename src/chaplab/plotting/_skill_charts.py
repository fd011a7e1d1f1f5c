"""Model-level charts: the relative-skill leaderboard and the WIS components per model."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from chaplab.plotting._scoring_style import (
    MODEL,
    REFERENCE_COLOUR,
    coloured_models,
    new_figure,
    require_table,
    score_format,
)

SKILL_COLUMNS = (MODEL, "relative_skill", "lower", "upper", "baseline")
COMPONENTS = ("dispersion", "overprediction", "underprediction")
COMPONENT_COLOURS = {
    "dispersion": "#4878a8",
    "overprediction": "#e0a040",
    "underprediction": "#b5475a",
}
ROW_HEIGHT = 0.42  # inches per model
LEADERBOARD_GID = "skill"
INTERVAL_GID = "interval"


def leaderboard_chart(
    skill: pd.DataFrame, *, title: str | None = None, ax: Axes | None = None
) -> Figure:
    """Models ranked by relative skill, best at the top, each with its bootstrap interval and
    its value written beside it; a dashed line marks the baseline's 1.

    ``skill`` is the frame :func:`chaplab.scoring.relative_skill` returns.
    """
    require_table(
        skill,
        SKILL_COLUMNS,
        "skill",
        "chaplab.scoring.relative_skill",
        one_row_per=[MODEL],
        hint="pass the frame of one relative_skill call",
    )
    ranked = skill.sort_values("relative_skill", kind="stable", ignore_index=True)
    figure, ax = _figure_and_axes(ax, len(ranked), width=7.0)
    _, colours = coloured_models(skill)
    rows = np.arange(len(ranked))
    upper_end = float(np.nanmax(ranked[["relative_skill", "upper"]].to_numpy()))
    for row, record in zip(rows, ranked.itertuples(index=False), strict=True):
        colour = REFERENCE_COLOUR if record.baseline else colours[str(record.model)]
        ax.plot(
            [record.lower, record.upper],
            [row, row],
            color=colour,
            linewidth=2.2,
            solid_capstyle="round",
            gid=f"{INTERVAL_GID} {record.model}",
        )
        ax.plot(
            [record.relative_skill],
            [row],
            "o",
            color=colour,
            markersize=8,
            markeredgecolor="white",
            gid=f"{LEADERBOARD_GID} {record.model}",
        )
        ax.annotate(
            _skill_label(record.relative_skill, record.lower, record.upper, record.baseline),
            (max(record.upper, record.relative_skill), row),
            xytext=(8, 0),
            textcoords="offset points",
            va="center",
            fontsize="small",
        )
    baseline = ranked.loc[ranked["baseline"].astype(bool), MODEL]
    ax.axvline(1.0, color=REFERENCE_COLOUR, linestyle="--", linewidth=1.0, zorder=0)
    ax.set_yticks(rows, [f"{rank}. {model}" for rank, model in enumerate(ranked[MODEL], 1)])
    ax.set_ylim(len(ranked) - 0.5, -0.5)  # the best at the top
    low_end = float(np.nanmin(ranked[["relative_skill", "lower"]].to_numpy()))
    span = max(upper_end, 1.0) - min(low_end, 1.0)
    ax.set_xlim(max(0.0, min(low_end, 1.0) - 0.08 * span), max(upper_end, 1.0) + 0.45 * span)
    ax.xaxis.set_major_locator(MaxNLocator(nbins=6))
    ax.grid(True, axis="x", linewidth=0.4, alpha=0.5)
    metric = str(skill["metric"].iloc[0]).upper() if "metric" in skill.columns else "score"
    reference = f"baseline {baseline.iloc[0]}" if len(baseline) else "the baseline"
    ax.set_xlabel(f"relative {metric} ({reference} = 1; lower is better)")
    ax.set_title(title or f"Leaderboard: relative {metric} with bootstrap intervals")
    return figure


def _skill_label(value: float, lower: float, upper: float, baseline: bool) -> str:
    if baseline:
        return f"{value:.2f} (baseline)"
    return f"{value:.2f} [{lower:.2f}\u2013{upper:.2f}]"


def wis_components_chart(
    summary: pd.DataFrame, *, title: str | None = None, ax: Axes | None = None
) -> Figure:
    """Each model's mean WIS as one bar split into dispersion, over-prediction and
    under-prediction, the smallest WIS at the top, the total written at the end of the bar.

    ``summary`` has one row per model: ``chaplab.scoring.summarise(scores)``.
    """
    require_table(
        summary,
        (MODEL, *COMPONENTS),
        "summary",
        "chaplab.scoring.summarise",
        one_row_per=[MODEL],
        hint="pass summarise(scores) without by=, for one scale",
    )
    totals = summary[list(COMPONENTS)].sum(axis=1)
    ranked = summary.assign(_total=totals).sort_values("_total", kind="stable", ignore_index=True)
    owns_figure = ax is None
    figure, ax = _figure_and_axes(ax, len(ranked), width=7.5)
    rows = np.arange(len(ranked))
    left = np.zeros(len(ranked))
    for component in COMPONENTS:
        widths = ranked[component].to_numpy(np.float64)
        bars = ax.barh(
            rows,
            widths,
            left=left,
            height=0.62,
            color=COMPONENT_COLOURS[component],
            label=component.replace("prediction", "-prediction"),
        )
        for bar, model in zip(bars, ranked[MODEL], strict=True):
            bar.set_gid(f"{component} {model}")
        left += widths
    written = score_format(left)
    for row, total in zip(rows, left, strict=True):
        ax.annotate(
            written(total),
            (total, row),
            xytext=(5, 0),
            textcoords="offset points",
            va="center",
            fontsize="small",
        )
    ax.set_yticks(rows, [str(model) for model in ranked[MODEL]])
    ax.set_ylim(len(ranked) - 0.5, -0.5)
    ax.set_xlim(0, float(left.max()) * 1.15 if left.max() > 0 else 1.0)
    ax.grid(True, axis="x", linewidth=0.4, alpha=0.5)
    ax.set_axisbelow(True)
    scale = summary["scale"].iloc[0] if "scale" in summary.columns else "natural"
    ax.set_xlabel("mean weighted interval score" + (" (log scale)" if scale == "log" else ""))
    ax.set_title(title or "WIS by component (lower is better)")
    if owns_figure:
        figure.legend(loc="outside lower center", ncols=3, fontsize="small", frameon=False)
    else:
        ax.legend(fontsize="small")
    return figure


def _figure_and_axes(ax: Axes | None, rows: int, width: float) -> tuple[Figure, Axes]:
    """The caller's axes and figure, or a new figure tall enough for ``rows`` models."""
    if ax is not None:
        return ax.figure, ax  # type: ignore[return-value]
    figure = new_figure(width, 1.5 + ROW_HEIGHT * rows)
    return figure, figure.add_subplot()
