"""Per-target scores of quantile forecasts against actual cases, and their summaries."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from chaplab.errors import ArgumentError
from chaplab.frames import (
    HORIZON,
    ORG_UNIT,
    ORG_UNIT_NAME,
    PERIOD,
    QUANTILE,
    SPLIT_PERIOD,
    require_frame_columns,
)
from chaplab.scoring._rules import (
    central_median,
    interval_coverage,
    pinball_loss,
    quantile_bias,
    weighted_interval_score,
)
from chaplab.scoring._targets import (
    MODEL,
    MONTH,
    SCALE,
    Block,
    Forecasts,
    Targets,
    Unmatched,
    align,
    with_org_unit_name,
)

KEYS = (MODEL, ORG_UNIT, ORG_UNIT_NAME, SPLIT_PERIOD, PERIOD, HORIZON, MONTH, SCALE, QUANTILE)
"""Columns that identify what a score is of; every other numeric column is a metric."""
COUNT = "n"
QUANTILE_LOSS = "quantile_loss"


def score(
    forecasts: Forecasts,
    actuals: pd.DataFrame,
    *,
    model_column: str = MODEL,
    scale: str = "natural",
    unmatched: Unmatched = "raise",
) -> pd.DataFrame:
    """One row per model and forecast target (org unit, split period, period) with its scores.

    ``forecasts`` is a mapping of model name -> evaluation frame, or one frame with a
    ``model_column``; ``actuals`` has ``org_unit``, ``period``, ``value``. Columns: ``model``,
    ``org_unit`` (and ``org_unit_name`` when a forecast frame or ``actuals`` has it),
    ``split_period``, ``period``, ``horizon`` (1 at the split period),
    ``month`` (calendar month of the period), ``scale``, then the metrics ``wis``,
    ``dispersion``, ``overprediction``, ``underprediction`` (the three add up to ``wis``),
    ``ae_median``, ``bias`` and ``interval_coverage_<level>`` (1 when the central interval
    holds the actual case) for every central interval a model has.

    ``scale="log"`` scores log1p of forecasts and actual cases. Targets without an actual case
    are an error, or left out with ``unmatched="drop"``. Every model's quantile levels must
    include the median and be symmetric (q with 1 - q), as WIS needs.
    """
    targets = align(forecasts, actuals, model_column=model_column, scale=scale, unmatched=unmatched)
    parts = [_block_scores(targets, block) for block in targets.blocks]
    return pd.concat(parts, ignore_index=True)


def _block_scores(targets: Targets, block: Block) -> pd.DataFrame:
    """The keys and metrics of one model's targets."""
    try:
        wis = weighted_interval_score(block.observed, block.values, block.levels)
    except ValueError as error:
        raise ArgumentError(f"forecasts of model {block.model!r}: {error}") from None
    median = block.values[:, central_median(block.levels)]
    covered, nominal = interval_coverage(block.observed, block.values, block.levels)
    frame = targets.keys(block)
    frame["wis"] = wis.wis
    frame["dispersion"] = wis.dispersion
    frame["overprediction"] = wis.overprediction
    frame["underprediction"] = wis.underprediction
    frame["ae_median"] = np.abs(block.observed - median)
    frame["bias"] = quantile_bias(block.observed, block.values, block.levels)
    for column, level in zip(covered.T, nominal, strict=True):
        frame[coverage_column(level)] = column.astype(np.float64)
    return frame


def coverage_column(level: float) -> str:
    """The score column of a central interval's coverage: 0.8 -> ``interval_coverage_80``."""
    return f"interval_coverage_{level * 100:g}"


def quantile_loss(
    forecasts: Forecasts,
    actuals: pd.DataFrame,
    *,
    model_column: str = MODEL,
    scale: str = "natural",
    unmatched: Unmatched = "raise",
) -> pd.DataFrame:
    """One row per entry (model, target and quantile level) with its pinball loss
    ``(1{y < q} - tau)(q - y)`` in ``quantile_loss``; arguments as in :func:`score`.
    Summarise it ``by="quantile"`` to see which levels cost most."""
    targets = align(forecasts, actuals, model_column=model_column, scale=scale, unmatched=unmatched)
    parts = []
    for block in targets.blocks:
        keys = targets.keys(block)
        width = len(block.levels)
        frame = keys.take(np.repeat(np.arange(len(keys)), width)).reset_index(drop=True)
        frame[QUANTILE] = np.tile(block.levels, len(keys))
        loss = pinball_loss(block.observed[:, None], block.values, block.levels)
        frame[QUANTILE_LOSS] = loss.ravel()
        parts.append(frame)
    return pd.concat(parts, ignore_index=True)


def metric_columns(scores: pd.DataFrame) -> list[str]:
    """The metric columns of a scores frame: numeric columns that identify nothing."""
    return [
        name
        for name in scores.columns
        if name not in KEYS and name != COUNT and pd.api.types.is_numeric_dtype(scores[name])
    ]


def summarise(
    scores: pd.DataFrame,
    by: str | Sequence[str] | None = None,
    *,
    metrics: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Mean of every metric per model (and scale) and the groups of ``by``, with the number of
    targets averaged in ``n``.

    ``by`` names columns of ``scores`` such as ``"horizon"``, ``"org_unit"``,
    ``"split_period"``, ``"month"`` or (for :func:`quantile_loss`) ``"quantile"``; ``metrics``
    picks metric columns (default: all). A metric a target lacks (NaN) is left out of its mean.
    Grouped by ``org_unit``, the summary keeps the scores' ``org_unit_name``.
    """
    require_frame_columns(scores, (MODEL,), "scores", ": pass the frame that score() returns")
    by_columns = with_org_unit_name(_by(scores, by), scores.columns)
    groups = [MODEL] + ([SCALE] if SCALE in scores.columns else []) + by_columns
    chosen = _metrics(scores, metrics)
    grouped = scores.groupby(groups, observed=True, sort=True)
    summary = grouped[chosen].mean()
    summary.insert(0, COUNT, grouped.size())
    return summary.reset_index()


def _by(scores: pd.DataFrame, by: str | Sequence[str] | None) -> list[str]:
    """The grouping columns asked for, checked against the frame."""
    wanted = [] if by is None else [by] if isinstance(by, str) else list(by)
    for name in wanted:
        if name not in scores.columns:
            raise ArgumentError(
                f"by: scores has no column {name!r}; group by any of "
                f"{[key for key in KEYS if key in scores.columns]}"
            )
        if name not in KEYS:
            raise ArgumentError(f"by: {name!r} is a metric, not a column to group by")
    return [name for name in wanted if name not in (MODEL, SCALE)]


def _metrics(scores: pd.DataFrame, metrics: Sequence[str] | None) -> list[str]:
    available = metric_columns(scores)
    if metrics is None:
        return available
    wanted = [metrics] if isinstance(metrics, str) else list(metrics)
    unknown = [name for name in wanted if name not in available]
    if unknown:
        raise ArgumentError(
            f"metrics: {unknown} are not metric columns of scores; it has {available}"
        )
    return wanted
