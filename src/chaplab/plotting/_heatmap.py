"""A score per org unit and horizon as a heatmap, one panel per model on one colour scale."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.colors import Normalize
from matplotlib.figure import Figure

from chaplab.errors import ArgumentError
from chaplab.frames import ORG_UNIT, ORG_UNIT_NAME, frame_labels
from chaplab.plotting._figure import MAX_WIDTH
from chaplab.plotting._scoring_style import (
    MODEL,
    metric_label,
    models_of,
    new_figure,
    require_columns,
    score_format,
)

HORIZON = "horizon"
MAX_COLUMNS = 3
CELL_WIDTH = 0.5  # inches per horizon: a number such as 1,234 in 9 points and a margin
CELL_HEIGHT = 0.3  # inches per org unit
CELL_FONT = 9  # points: a number in a cell reads at 100 % zoom (12 pixels at 100 dpi)
CELL_DIGITS = 2  # significant digits of the largest number written in a cell
NAME_CHARACTER = 0.08  # inches a character of a row's name takes, at most
ANNOTATED_CELLS = 120  # write the numbers into panels with at most this many cells
HEATMAP_GID = "heatmap"


def score_heatmap(
    scores: pd.DataFrame,
    metric: str = "wis",
    *,
    models: Sequence[str] | None = None,
    max_org_units: int = 25,
    title: str | None = None,
) -> Figure:
    """The mean ``metric`` of each org unit (rows) and horizon (columns), one panel per model,
    all on one colour scale with one colour bar; small panels have the numbers in the cells
    (two significant digits: the colours compare, the numbers orient).

    ``scores`` is the frame :func:`chaplab.scoring.score` returns (or a summary by org unit and
    horizon). Rows are named by the ``org_unit_name`` column where ``scores`` has one
    (:func:`chaplab.frames.with_org_unit_names`), in name order; else by id. Only the first
    ``max_org_units`` org units are drawn, with a note in the title.
    """
    require_columns(scores, (MODEL, ORG_UNIT, HORIZON, metric), "scores", "chaplab.scoring.score")
    if max_org_units < 1:
        raise ArgumentError(f"max_org_units must be at least 1, got {max_org_units}")
    present = models_of(scores)
    chosen = present if models is None else [str(model) for model in models]
    unknown = [model for model in chosen if model not in present]
    if unknown:
        raise ArgumentError(f"models: {unknown} are not in scores; it has {present}")
    tables = {
        model: scores[scores[MODEL].astype(str) == model].pivot_table(
            index=ORG_UNIT, columns=HORIZON, values=metric, aggfunc="mean", observed=True
        )
        for model in chosen
    }
    labels = frame_labels(scores)
    org_units = list(dict.fromkeys(u for table in tables.values() for u in table.index))
    if ORG_UNIT_NAME in scores.columns:
        org_units.sort(key=lambda org_unit: labels.get(str(org_unit), str(org_unit)).casefold())
    shown = org_units[:max_org_units]
    names = [labels.get(str(org_unit), str(org_unit)) for org_unit in shown]
    horizons = sorted({h for table in tables.values() for h in table.columns})
    tables = {m: t.reindex(index=shown, columns=horizons) for m, t in tables.items()}
    values = np.concatenate([t.to_numpy(np.float64).ravel() for t in tables.values()])
    norm = Normalize(float(np.nanmin(values)), float(np.nanmax(values)))
    names_width = 0.3 + NAME_CHARACTER * max(len(name) for name in names)
    per_model = 0.3 + CELL_WIDTH * len(horizons)
    fitting = int((MAX_WIDTH - names_width - 1.2) // per_model)  # within a chart's width
    columns = max(1, min(len(chosen), MAX_COLUMNS, fitting))
    rows = math.ceil(len(chosen) / columns)
    width = names_width + columns * per_model + 1.2
    height = rows * (0.75 + CELL_HEIGHT * len(shown)) + 0.8
    figure = new_figure(width, height)
    axes = figure.subplots(rows, columns, squeeze=False, sharey=True).ravel()
    written = score_format(values, digits=CELL_DIGITS)
    image = None
    for ax, model in zip(axes, chosen, strict=False):
        grid = tables[model].to_numpy(np.float64)
        image = ax.imshow(grid, cmap="viridis_r", norm=norm, aspect="auto")
        image.set_gid(f"{HEATMAP_GID} {model}")
        ax.set_xticks(range(len(horizons)), [str(h) for h in horizons])
        ax.set_yticks(range(len(shown)), names)
        ax.set_title(model, fontsize="medium")
        if grid.size <= ANNOTATED_CELLS:
            for (row, column), value in np.ndenumerate(grid):
                if np.isfinite(value):
                    dark = norm(value) > 0.55  # viridis_r is dark at the high end
                    ax.text(
                        column,
                        row,
                        written(value),
                        ha="center",
                        va="center",
                        fontsize=CELL_FONT,
                        color="white" if dark else "black",
                    )
    for unused in axes[len(chosen) :]:
        unused.remove()
    assert image is not None, "a heatmap has at least one model"
    figure.colorbar(
        image, ax=list(axes[: len(chosen)]), label=f"mean {metric_label(metric)}", shrink=0.9
    )
    figure.supxlabel("horizon (1 = the split period)", fontsize="medium")  # once, not per panel
    cut = len(shown) < len(org_units)
    note = f"; first {len(shown)} of {len(org_units)} org units" if cut else ""
    figure.suptitle((title or f"Mean {metric_label(metric)} by org unit and horizon") + note)
    return figure
