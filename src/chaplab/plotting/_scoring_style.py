"""What the scoring charts share: a colour per model, one number format and input checks."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib import colormaps
from matplotlib.figure import Figure

from chaplab.errors import ArgumentError
from chaplab.frames import require_frame_columns
from chaplab.plotting._figure import MAX_WIDTH, ChartFigure

MODEL = "model"
REFERENCE_COLOUR = "0.45"
"""Grey of what a reader compares with: the baseline, the diagonal, density 1."""


def model_colours(models: Sequence[str]) -> dict[str, tuple[float, float, float, float]]:
    """A colour per model from matplotlib's tab10, in the order given."""
    palette = colormaps["tab10"]
    return {model: palette(index % palette.N) for index, model in enumerate(models)}


def coloured_models(
    frame: pd.DataFrame,
) -> tuple[list[str], dict[str, tuple[float, float, float, float]]]:
    """The models of a frame in their order (:func:`models_of`) and a colour per model."""
    models = models_of(frame)
    return models, model_colours(models)


def models_of(frame: pd.DataFrame) -> list[str]:
    """The models of a frame in their order: the categories' order, else first appearance."""
    column = frame[MODEL]
    if isinstance(column.dtype, pd.CategoricalDtype):
        present = set(column.astype(str))
        return [str(name) for name in column.cat.categories if str(name) in present]
    return [str(name) for name in pd.unique(column)]


def score_format(values: Sequence[float] | np.ndarray, digits: int = 3) -> Callable[[float], str]:
    """One number format for all the scores of a chart: as many decimals as give the largest
    ``digits`` significant digits (three: 13.5 -> 13.5 and 2.0; 1,234 -> 1,234 and 12),
    thousands with commas."""
    finite = np.abs(np.asarray(values, dtype=np.float64))
    finite = finite[np.isfinite(finite)]
    largest = float(finite.max()) if finite.size else 0.0
    magnitude = math.floor(math.log10(largest)) if largest > 0 else 0
    decimals = max(0, digits - 1 - magnitude)
    return lambda value: f"{value:,.{decimals}f}"


def metric_label(metric: str) -> str:
    """How a metric column is named on a chart: ``wis`` -> WIS, ``ae_median`` -> ae median."""
    return metric.upper() if metric == "wis" else metric.replace("_", " ")


def require_columns(frame: pd.DataFrame, columns: Sequence[str], what: str, source: str) -> None:
    """TypeError/ValueError naming what is missing and which function gives the right frame."""
    require_frame_columns(frame, columns, what, f": pass the frame {source} returns")
    if frame.empty:
        raise ArgumentError(f"{what} is empty: there is nothing to draw")


def require_table(
    frame: pd.DataFrame,
    columns: Sequence[str],
    what: str,
    source: str,
    *,
    one_row_per: Sequence[str],
    hint: str,
) -> None:
    """:func:`require_columns`, then a ValueError (ending in ``hint``) when some combination
    of the ``one_row_per`` columns has more than one row."""
    require_columns(frame, columns, what, source)
    keys = list(one_row_per)
    if frame.duplicated(keys).any():
        raise ArgumentError(f"{what} has more than one row per {' and '.join(keys)}: {hint}")


def new_figure(width: float, height: float) -> Figure:
    """A pyplot figure that a notebook shows once per cell (:class:`ChartFigure`), laid out by
    matplotlib's constrained layout, at most ``MAX_WIDTH`` wide."""
    return plt.figure(
        FigureClass=ChartFigure, figsize=(min(width, MAX_WIDTH), height), layout="constrained"
    )
