"""Aggregate metrics of several evaluations as one table."""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from chaplab.errors import ArgumentError

_IDENTITY = ("id", "name")
_FIELDS = {"id": ("id",), "name": ("name",), "metrics": ("aggregate_metrics", "aggregateMetrics")}


def _field(evaluation: Any, field: str, position: int) -> Any:
    for spelling in _FIELDS[field]:
        if isinstance(evaluation, Mapping):
            if spelling in evaluation:
                return evaluation[spelling]
        elif hasattr(evaluation, spelling):
            return getattr(evaluation, spelling)
    raise ArgumentError(f"evaluation {position} has no {_FIELDS[field][0]!r}")


def metrics_frame(evaluations: Iterable[Any]) -> pd.DataFrame:
    """One row per evaluation (indexed by id): its name and one column per aggregate metric.

    Evaluations are objects with ``id``, ``name`` and ``aggregate_metrics`` (the client's
    Evaluation) or dicts with those keys (``aggregateMetrics`` too). A metric an evaluation
    lacks is NaN; metric columns keep the order in which they first appear. A metric called
    ``id`` or ``name`` becomes ``id (metric)`` or ``name (metric)``, so it never replaces the
    columns that say which evaluation a row is.
    """
    rows: list[dict[str, Any]] = []
    for position, evaluation in enumerate(evaluations):
        metrics = _field(evaluation, "metrics", position) or {}
        if not isinstance(metrics, Mapping):
            raise ArgumentError(f"evaluation {position}: aggregate_metrics must be a mapping")
        row = {field: _field(evaluation, field, position) for field in _IDENTITY}
        for key, value in metrics.items():
            row[_metric_column(str(key))] = _number(value, key, position)
        rows.append(row)
    if not rows:
        return pd.DataFrame({"name": pd.Series([], dtype=str)}, index=pd.Index([], name="id"))
    return pd.DataFrame(rows).set_index("id")


def _metric_column(key: str) -> str:
    """The column of metric ``key``: its own name unless that is an identity column's."""
    return f"{key} (metric)" if key in _IDENTITY else key


def _number(value: Any, key: str, position: int) -> float:
    if value is None:
        return float("nan")
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ArgumentError(f"evaluation {position}: metric {key!r} is {value!r}, not a number")
    return float(value)
