"""Stored evaluations and predictions as the payloads of the further endpoints: samples, the
truth an evaluation is scored against, metrics per org unit and per horizon, and full payloads
whose entries are spliced in as JSON bytes (never one Python object per entry)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import orjson
from sqlalchemy.orm import Session

from chaplab.service.db import (
    ConfiguredModelWithDataSourceRow,
    DatasetRow,
    EvaluationRow,
    PredictionRow,
)
from chaplab.service.entries import evaluation_entries_json, prediction_entries_json
from chaplab.service.metrics import METRIC_NAMES, aggregate_metrics
from chaplab.service.storage import panel_of, samples_from_bytes
from chaplab.service.tasks import finite_metrics
from chaplab.service.views import backtest_read, dataset_read, spec_of
from chaplab.service.wire_results import (
    BacktestConfiguration,
    BacktestMetrics,
    HorizonMetrics,
    OrgUnitMetrics,
    PredictionRead,
)

DEFAULT_QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)
ROW_ONLY_SAMPLES = 1
"""Rows created without a forecast store no samples: zero splits (or periods) of one sample."""


def evaluation_samples(row: EvaluationRow) -> np.ndarray:
    """Sorted samples, shape (splits, org units, periods, samples)."""
    return samples_from_bytes(
        row.samples, (row.n_splits, len(row.org_units), row.n_periods, row.n_samples)
    )


def prediction_samples(row: PredictionRow) -> np.ndarray:
    """Sorted samples, shape (org units, periods, samples)."""
    return samples_from_bytes(row.samples, (len(row.org_units), row.n_periods, row.n_samples))


def evaluation_truth(row: EvaluationRow) -> np.ndarray:
    """The observed target at every forecast cell, shape (splits, org units, periods); NaN where
    the dataset has no value."""
    panel = panel_of(row.dataset)
    target = panel.features.get(spec_of(row.configured_model.template).target)
    truth = np.full((row.n_splits, len(row.org_units), row.n_periods), np.nan)
    if target is None:
        return truth
    period_index = {period: i for i, period in enumerate(panel.periods)}
    unit_index = [panel.org_units.index(unit) for unit in row.org_units]
    for k, periods in enumerate(row.periods):
        columns = [period_index[period] for period in periods]
        truth[k] = target[np.ix_(unit_index, columns)]
    return truth


def evaluation_metrics(row: EvaluationRow) -> BacktestMetrics:
    """Aggregate metrics with their breakdown per org unit and per horizon."""
    samples, truth = evaluation_samples(row), evaluation_truth(row)
    if row.n_splits == 0:
        by_unit: list[OrgUnitMetrics] = []
        by_horizon: list[HorizonMetrics] = []
    else:
        per_unit = aggregate_metrics(samples, truth, axis=(0, 2), presorted=True)
        per_horizon = aggregate_metrics(samples, truth, axis=(0, 1), presorted=True)
        by_unit = [
            OrgUnitMetrics(org_unit=unit, **_finite_at(per_unit, i))
            for i, unit in enumerate(row.org_units)
        ]
        by_horizon = [
            HorizonMetrics(horizon=h + 1, **_finite_at(per_horizon, h))
            for h in range(row.n_periods)
        ]
    return BacktestMetrics(
        backtest_id=row.id,
        metric_names=list(METRIC_NAMES),
        aggregate=row.aggregate_metrics,
        by_org_unit=by_unit,
        by_horizon=by_horizon,
    )


def _finite_at(per_cell: dict[str, np.ndarray], index: int) -> dict[str, float | None]:
    return finite_metrics(
        {name: float(np.asarray(values)[index]) for name, values in per_cell.items()}
    )


def evaluation_entries(row: EvaluationRow, quantiles: Sequence[float]) -> bytes:
    return evaluation_entries_json(
        evaluation_samples(row), row.org_units, row.split_periods, row.periods, quantiles
    )


def backtest_full_json(row: EvaluationRow, quantiles: Sequence[float]) -> bytes:
    """``BacktestFull`` as JSON bytes."""
    entries = evaluation_entries(row, quantiles)
    configuration = BacktestConfiguration(
        n_periods=row.n_periods, n_splits=row.n_splits, stride=row.stride, n_samples=row.n_samples
    )
    head = backtest_read(row).model_dump(mode="json", by_alias=True)
    head.update(configuration=configuration.model_dump(by_alias=True), quantiles=list(quantiles))
    return _with_forecasts(head, entries)


def prediction_read(session: Session, row: PredictionRow) -> PredictionRead:
    bundle = session.get_one(
        ConfiguredModelWithDataSourceRow, row.configured_model_with_data_source_id
    )
    return PredictionRead(
        id=row.id,
        name=row.name,
        created=row.created,
        dataset_id=row.dataset_id,
        configured_model_with_data_source_id=row.configured_model_with_data_source_id,
        model_id=bundle.configured_model.name,
        org_units=row.org_units,
        periods=row.periods,
        n_periods=row.n_periods,
    )


def prediction_full_json(session: Session, row: PredictionRow, quantiles: Sequence[float]) -> bytes:
    """``PredictionFull`` as JSON bytes."""
    entries = prediction_entries_json(
        prediction_samples(row), row.org_units, row.periods, quantiles
    )
    head = prediction_read(session, row).model_dump(mode="json", by_alias=True)
    dataset = dataset_read(session.get_one(DatasetRow, row.dataset_id))
    head.update(dataset=dataset.model_dump(mode="json", by_alias=True), quantiles=list(quantiles))
    return _with_forecasts(head, entries)


def _with_forecasts(head: dict[str, object], entries: bytes) -> bytes:
    return orjson.dumps(head)[:-1] + b',"forecasts":' + entries + b"}"
