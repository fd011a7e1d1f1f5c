"""Aggregate metrics of several evaluations as one table."""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

_FIELDS = {"id": ("id",), "name": ("name",), "metrics": ("aggregate_metrics", "aggregateMetrics")}


def _field(evaluation: Any, field: str, position: int) -> Any:
    for spelling in _FIELDS[field]:
        if isinstance(evaluation, Mapping):
            if spelling in evaluation:
                return evaluation[spelling]
        elif hasattr(evaluation, spelling):
            return getattr(evaluation, spelling)
    raise ValueError(f"evaluation {position} has no {_FIELDS[field][0]!r}")


def metrics_frame(evaluations: Iterable[Any]) -> pd.DataFrame:
    """One row per evaluation (indexed by id): its name and one column per aggregate metric.

    Evaluations are objects with ``id``, ``name`` and ``aggregate_metrics`` (the client's
    Evaluation) or dicts with those keys (``aggregateMetrics`` too). A metric an evaluation
    lacks is NaN; metric columns keep the order in which they first appear.
    """
    rows: list[dict[str, Any]] = []
    for position, evaluation in enumerate(evaluations):
        metrics = _field(evaluation, "metrics", position) or {}
        if not isinstance(metrics, Mapping):
            raise ValueError(f"evaluation {position}: aggregate_metrics must be a mapping")
        rows.append(
            {
                "id": _field(evaluation, "id", position),
                "name": _field(evaluation, "name", position),
                **{str(key): _number(value, key, position) for key, value in metrics.items()},
            }
        )
    if not rows:
        return pd.DataFrame({"name": pd.Series([], dtype=str)}, index=pd.Index([], name="id"))
    return pd.DataFrame(rows).set_index("id")


def _number(value: Any, key: str, position: int) -> float:
    if value is None:
        return float("nan")
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"evaluation {position}: metric {key!r} is {value!r}, not a number")
    return float(value)
