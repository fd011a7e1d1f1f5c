"""Forecast entries (quantiles per org unit and period) from stored sorted samples, as JSON bytes.

The org unit ``adm0`` is the sum over all org units: samples are summed across org units per
sample draw, sorted, and its quantiles taken.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from chaplab.service import periods as period_math
from chaplab.service.errors import FieldProblem
from chaplab.service.gridjson import grid_json, number_field, string_field
from chaplab.service.metrics import quantiles_from_sorted

TOTAL_ORG_UNIT = "adm0"


def checked_quantiles(levels: Sequence[float]) -> np.ndarray:
    """Quantile levels strictly inside (0, 1); FieldProblem naming ``quantiles`` otherwise."""
    if not levels:
        raise FieldProblem("quantiles", "give at least one quantile level, e.g. quantiles=0.5")
    array = np.asarray(levels, dtype=np.float64)
    bad = array[~((array > 0.0) & (array < 1.0))]
    if bad.size:
        raise FieldProblem(
            "quantiles", f"{bad[0]!r} is outside (0, 1); levels must be strictly between 0 and 1"
        )
    return array


def select_org_units(
    samples: np.ndarray, org_units: list[str], requested: Sequence[str] | None, axis: int
) -> tuple[np.ndarray, list[str]]:
    """Samples of the requested org units (all when none), ``adm0`` being their sum; sorted."""
    if not requested:
        return samples, org_units
    index = {unit: i for i, unit in enumerate(org_units)}
    unknown = [unit for unit in requested if unit not in index and unit != TOTAL_ORG_UNIT]
    if unknown:
        raise FieldProblem(
            "orgUnits",
            f"{unknown[0]!r} is not an org unit of this result (it has {', '.join(org_units[:20])}"
            f"{' ...' if len(org_units) > 20 else ''}, and {TOTAL_ORG_UNIT} for their sum)",
        )
    names = list(dict.fromkeys(requested))
    parts = []
    for name in names:
        if name == TOTAL_ORG_UNIT:
            parts.append(np.sort(samples.sum(axis=axis, keepdims=True, dtype=np.float64), axis=-1))
        else:
            parts.append(np.take(samples, [index[name]], axis=axis))
    return np.concatenate([part.astype(np.float32) for part in parts], axis=axis), names


def evaluation_entries_json(
    samples: np.ndarray,
    org_units: list[str],
    split_periods: list[str],
    periods: list[list[str]],
    levels: Sequence[float],
    split_period: str | None = None,
    requested_org_units: Sequence[str] | None = None,
) -> bytes:
    """Entries ``{orgUnit, period, quantile, value, splitPeriod}`` of an evaluation whose samples
    have shape (splits, org units, periods, samples)."""
    quantiles = checked_quantiles(levels)
    if split_period is not None:
        try:
            wanted = period_math.canonical_period(split_period)
        except ValueError as error:
            raise FieldProblem("splitPeriod", str(error)) from None
        chosen = [k for k, value in enumerate(split_periods) if value == wanted]
        samples = samples[chosen]
        split_periods = [split_periods[k] for k in chosen]
        periods = [periods[k] for k in chosen]
    samples, units = select_org_units(samples, org_units, requested_org_units, axis=1)
    values = quantiles_from_sorted(samples, quantiles).astype(np.float32)
    shape = values.shape
    return grid_json(
        shape,
        [
            string_field("orgUnit", units, (1,), (shape[1],)),
            string_field(
                "period", [p for split in periods for p in split], (0, 2), (shape[0], shape[2])
            ),
            number_field("quantile", quantiles, (3,)),
            number_field("value", values, (0, 1, 2, 3)),
            string_field("splitPeriod", split_periods, (0,), (shape[0],)),
        ],
    )


def prediction_entries_json(
    samples: np.ndarray,
    org_units: list[str],
    periods: list[str],
    levels: Sequence[float],
    requested_org_units: Sequence[str] | None = None,
    prediction_id: int | None = None,
) -> bytes:
    """Entries ``{orgUnit, period, quantile, value}`` of a prediction whose samples have shape
    (org units, periods, samples); with ``prediction_id`` each entry also has ``predictionId``."""
    quantiles = checked_quantiles(levels)
    samples, units = select_org_units(samples, org_units, requested_org_units, axis=0)
    values = quantiles_from_sorted(samples, quantiles).astype(np.float32)
    shape = values.shape
    return grid_json(
        shape,
        [
            string_field("orgUnit", units, (0,), (shape[0],)),
            string_field("period", periods, (1,), (shape[1],)),
            number_field("quantile", quantiles, (2,)),
            number_field("value", values, (0, 1, 2)),
            *(
                []
                if prediction_id is None
                else [number_field("predictionId", np.array(prediction_id), ())]
            ),
        ],
    )
