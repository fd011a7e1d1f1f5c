"""Evaluations (backtests): queueing one as a job (on a stored dataset or on inline data, with a
dry run), a row without forecasts, reading, renaming and deleting, the entries, the actual cases
they are scored against, metrics per org unit and per horizon, overlaps and comparable
evaluations.

Full payloads are JSON bytes whose entries are spliced in (never one Python object per entry).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import orjson
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session, defer, selectinload

from chaplab.service.domain.datasets import dataset_read
from chaplab.service.domain.lookup import MAX_ROW_ID, get_or_404
from chaplab.service.domain.models import configured_model_by_name, configured_model_read
from chaplab.service.domain.paging import Listed, Page, listed_rows
from chaplab.service.domain.specifications import (
    queue_filed_backtest,
    resolve_specification,
)
from chaplab.service.entries import (
    EvaluationLayout,
    StoredSplits,
    evaluation_entries_json,
    evaluation_entries_stream,
)
from chaplab.service.errors import FieldProblem, NotFound
from chaplab.service.forecasting import TARGET, ModelTemplateSpec, Panel
from chaplab.service.gridjson import JsonStream
from chaplab.service.job_types import queue_backtest_job
from chaplab.service.metrics import METRIC_NAMES, aggregate_metrics, finite_metrics
from chaplab.service.registered_templates import template_spec, template_version
from chaplab.service.storage import (
    ROW_ONLY_SAMPLES,
    DatasetContent,
    add_dataset_row,
    check_geojson,
    panel_from_observations,
    panel_of,
    samples_from_bytes,
)
from chaplab.service.tables import (
    ConfiguredModelRow,
    DatasetFeatureRow,
    DatasetRow,
    EvaluationRow,
    JobRow,
)
from chaplab.service.validation import check_backtest_fits, check_nothing_to_fetch
from chaplab.service.wire.common import from_row
from chaplab.service.wire.datasets import DatasetRead, RejectedOrgUnit
from chaplab.service.wire.evaluations import (
    ActualCase,
    ActualCases,
    BacktestConfiguration,
    BacktestMetrics,
    BacktestOverlap,
    BacktestRead,
    BacktestRowCreate,
    CreateBacktestRequest,
    CreateBacktestWithDataRequest,
    DataImportReport,
    DeletedIds,
    HorizonMetrics,
    OrgUnitMetrics,
)
from chaplab.service.wire.models import ConfiguredModelRead
from chaplab.vocabulary import JobType, feature_ids

METRICS_CSV_HEADER = ["backtest_id", "backtest_name", "model_id", "dataset_id", "metric", "value"]


def backtest_read(
    row: EvaluationRow,
    model: ConfiguredModelRead | None = None,
    dataset: DatasetRead | None = None,
) -> BacktestRead:
    """The evaluation in 2.5.1's ``BacktestRead`` shape, with the specification it is filed
    under (filed when it was stored) and that specification's trainings; its configured
    model and dataset as given (read once for a list's many rows), else read from the row."""
    specification = row.specification
    return from_row(
        BacktestRead,
        row,
        model_id=row.configured_model.name,
        max_horizon_distance=row.n_periods,
        n_retrain=specification.n_retrain if specification else 1,
        specification_id=specification.id if specification else None,
        configured_model=model or configured_model_read(row.configured_model),
        dataset=dataset or dataset_read(row.dataset),
    )


class ListReads:
    """The answers of a list's evaluations, each configured model and dataset they name made
    an answer once (a list of thousands names a few of each)."""

    def __init__(self) -> None:
        self._models: dict[int, ConfiguredModelRead] = {}
        self._datasets: dict[int, DatasetRead] = {}

    def __call__(self, row: EvaluationRow) -> BacktestRead:
        model = self._models.get(row.configured_model_id)
        if model is None:
            model = self._models[row.configured_model_id] = configured_model_read(
                row.configured_model
            )
        dataset = self._datasets.get(row.dataset_id)
        if dataset is None:
            dataset = self._datasets[row.dataset_id] = dataset_read(row.dataset)
        return backtest_read(row, model, dataset)


LISTED = (
    defer(EvaluationRow.samples),
    selectinload(EvaluationRow.dataset)
    .selectinload(DatasetRow.features)
    .defer(DatasetFeatureRow.values),
    selectinload(EvaluationRow.configured_model).selectinload(ConfiguredModelRow.template),
    selectinload(EvaluationRow.specification),
    selectinload(EvaluationRow.prediction_setup),
)
"""How a list reads evaluations: without their samples, the rows they name read once for all."""


def get_evaluation(session: Session, backtest_id: int, field: str | None = None) -> EvaluationRow:
    """The evaluation ``backtest_id`` (NotFound naming ``field``)."""
    return get_or_404(session, EvaluationRow, backtest_id, "backtest", field)


def list_backtests(
    session: Session, specification_id: int | None, dataset_id: int | None, page: Page
) -> Listed[BacktestRead]:
    """Finished evaluations (an evaluation is stored only when its job succeeds) of ``page``,
    by id; only those filed under ``specification_id`` and run on ``dataset_id`` when given.
    An id that matches nothing lists nothing, as 2.5.1 answers. The samples are not read, and
    the rows' datasets, models and specifications are read once for the page."""
    query = select(EvaluationRow).order_by(EvaluationRow.id).options(*LISTED)
    if specification_id is not None:
        query = query.where(EvaluationRow.specification_id == specification_id)
    if dataset_id is not None:
        query = query.where(EvaluationRow.dataset_id == dataset_id)
    return listed_rows(session, query, page, ListReads())


def queue_backtest(session: Session, request: CreateBacktestRequest) -> JobRow:
    """Check that the configured model (by NAME) suits the dataset and its history suffices,
    then commit the evaluation's job, filed under its backtest specification."""
    model = configured_model_by_name(session, request.model_id)
    dataset = get_or_404(session, DatasetRow, request.dataset_id, "dataset", "datasetId")
    template = template_spec(model.template)
    panel = panel_of(dataset)
    check_backtest_fits(
        template,
        model.user_option_values,
        panel,
        request.plan,
        "datasetId",
        model.additional_continuous_covariates,
    )
    return queue_filed_backtest(session, request, model, dataset)


def queue_evaluation(
    session: Session,
    request: CreateBacktestWithDataRequest,
    model: ConfiguredModelRow,
    dataset: DatasetRow,
) -> JobRow:
    """Commit an evaluation job of ``model`` on ``dataset`` with the request's name, plan and
    future weather, filed under the specification of the dataset and these, as 2.5.1 files
    every backtest under one."""
    specification = resolve_specification(
        session, dataset, request.plan, request.future_weather_provider
    )
    job = queue_backtest_job(
        session, JobType.CREATE_BACKTEST_FROM_DATA, request.name, model.id, specification
    )
    session.commit()
    return job


def create_backtest_row(session: Session, request: BacktestRowCreate) -> BacktestRead:
    """Store an evaluation row without running it: no splits, no forecasts, no metrics."""
    model = configured_model_by_name(session, request.model_id)
    dataset = get_or_404(session, DatasetRow, request.dataset_id, "dataset", "datasetId")
    row = EvaluationRow(
        name=request.name,
        dataset_id=dataset.id,
        configured_model_id=model.id,
        org_units=list(dataset.org_units),
        split_periods=[],
        periods=[],
        n_periods=request.n_periods,
        n_splits=0,
        stride=1,
        n_samples=ROW_ONLY_SAMPLES,
        aggregate_metrics={},
        samples=b"",
        model_template_version=template_version(model.template),
    )
    session.add(row)
    session.commit()
    return backtest_read(row)


def rename_backtest(session: Session, backtest_id: int, name: str) -> BacktestRead:
    row = get_evaluation(session, backtest_id)
    row.name = name
    session.commit()
    return backtest_read(row)


def delete_backtest(session: Session, backtest_id: int) -> None:
    session.delete(get_evaluation(session, backtest_id))
    session.commit()


def delete_backtests(session: Session, ids: str) -> DeletedIds:
    """Delete the evaluations listed in ``ids`` (``"1,2"``); when any id is unknown nothing is
    deleted (NotFound naming them)."""
    wanted = parse_id_list(ids, "ids")
    storable = [identifier for identifier in wanted if identifier <= MAX_ROW_ID]
    rows = {
        row.id: row
        for row in session.scalars(select(EvaluationRow).where(EvaluationRow.id.in_(storable)))
    }
    missing = [identifier for identifier in wanted if identifier not in rows]
    if missing:
        raise NotFound("backtest", missing[0] if len(missing) == 1 else missing, "ids")
    for row in rows.values():
        session.delete(row)
    session.commit()
    return DeletedIds(deleted_ids=wanted, message=f"Deleted {len(wanted)} backtests")


def parse_id_list(text: str, field: str) -> list[int]:
    """``"1,2"`` -> ``[1, 2]`` (distinct, in order); FieldProblem naming ``field`` otherwise."""
    parts = [part.strip() for part in text.split(",")]
    if not text.strip() or any(not part.isdigit() for part in parts):
        raise FieldProblem(field, f"expects comma-separated integer ids such as 1,2, got {text!r}")
    return list(dict.fromkeys(int(part) for part in parts))


def import_and_queue(
    session: Session, request: CreateBacktestWithDataRequest, dry_run: bool
) -> DataImportReport:
    """Evaluate a configured model (by NAME) on data sent inline. Org units the model cannot use
    (no polygon, no observed cases, missing covariate values) are left out and reported; with
    ``dry_run`` nothing is stored (and a report that no org unit can be used is an answer, as
    2.5.1's), otherwise the usable data is stored as a dataset and its evaluation queued (data
    no org unit of which can be used is a 422 naming ``providedData``)."""
    model = configured_model_by_name(session, request.model_id)
    template = template_spec(model.template)
    check_nothing_to_fetch(request.data_to_be_fetched)
    panel = panel_from_observations(request.provided_data, "providedData")
    rejected = rejected_org_units(template, model, panel, request.geojson)
    imported = [unit for unit in panel.org_units if unit not in rejected]
    report = DataImportReport(
        dry_run=dry_run,
        imported_count=len(imported),
        imported_org_units=imported,
        periods=panel.periods,
        rejected=list(rejected.values()),
    )
    if not imported and dry_run:
        return report  # nothing would be imported: what a form's preflight shows (as 2.5.1)
    if not imported:
        reasons = "; ".join(
            f"{unit}: {rejection.reason}" for unit, rejection in list(rejected.items())[:5]
        )
        raise FieldProblem(
            "providedData", f"no org unit can be used by {template.name!r} ({reasons})"
        )
    usable = org_unit_subset(panel, imported)
    check_backtest_fits(
        template,
        model.user_option_values,
        usable,
        request.plan,
        "providedData",
        model.additional_continuous_covariates,
    )
    if dry_run:
        return report
    sources = [source.model_dump(by_alias=True) for source in request.data_sources]
    dataset = add_dataset_row(
        session,
        request.name,
        "evaluation",
        DatasetContent(usable, request.geojson, sources),
        created_manually=False,
    )
    job = queue_evaluation(session, request, model, dataset)
    return report.model_copy(update={"id": job.id, "dataset_id": dataset.id})


def rejected_org_units(
    template: ModelTemplateSpec,
    model: ConfiguredModelRow,
    panel: Panel,
    geojson: dict[str, Any] | None,
) -> dict[str, RejectedOrgUnit]:
    """Org unit -> why the configured model cannot use it (in the panel's order), and the
    feature and periods at fault: no polygon, no observed target, a covariate it reads absent
    (``template.covariates``), or missing values of one of the template's own covariates."""
    options = model.user_option_values
    own = set(template.own_covariates(options))
    polygons = polygon_ids(geojson) if geojson is not None else None
    rejected: dict[str, RejectedOrgUnit] = {}

    def reject(unit: str, reason: str, feature: str, periods: list[str] | None = None) -> None:
        rejected[unit] = RejectedOrgUnit(
            org_unit=unit, reason=reason, feature_name=feature, time_periods=periods or []
        )

    for u, unit in enumerate(panel.org_units):
        if polygons is not None and unit not in polygons:
            reject(unit, "no polygon in geojson", "polygon")
            continue
        target = panel.features.get(template.target)
        if target is None or np.isnan(target[u]).all():
            reject(unit, f"no observed {template.target}", template.target)
            continue
        for covariate in template.covariates(options, model.additional_continuous_covariates):
            values = panel.features.get(covariate)
            if values is None:
                reject(
                    unit,
                    f"no values of the covariate {covariate!r}, which the model reads",
                    covariate,
                )
                break
            gaps = np.isnan(values[u]) if covariate in own else np.zeros(0, dtype=bool)
            if gaps.any():
                missing = [period for period, gap in zip(panel.periods, gaps, strict=True) if gap]
                reason = f"{len(missing)} missing value(s) of the required covariate {covariate!r}"
                reject(unit, reason, covariate, missing)
                break
    return rejected


def polygon_ids(geojson: dict[str, Any]) -> set[str]:
    """The org-unit ids of a checked FeatureCollection's polygons."""
    check_geojson(geojson, [])
    return {identifier for identifier in feature_ids(geojson) if identifier is not None}


def org_unit_subset(panel: Panel, org_units: list[str]) -> Panel:
    """The panel restricted to ``org_units`` (kept in the given order)."""
    rows = [panel.org_units.index(unit) for unit in org_units]
    return Panel(
        period_type=panel.period_type,
        periods=panel.periods,
        org_units=list(org_units),
        features={name: values[rows] for name, values in panel.features.items()},
    )


def evaluation_samples(row: EvaluationRow) -> np.ndarray:
    """Sorted samples, shape (splits, org units, periods, samples)."""
    return samples_from_bytes(
        row.samples, (row.n_splits, len(row.org_units), row.n_periods, row.n_samples)
    )


def entries_stream(
    session: Session,
    backtest_id: int,
    quantiles: Sequence[float],
    split_period: str | None,
    org_units: Sequence[str] | None,
) -> JsonStream:
    """Quantiles of every (split, org unit, period) of an evaluation, as a JSON stream.

    The samples are not loaded with the row: on SQLite they are read split by split while the
    entries are sent (see ``StoredSplits``)."""
    if not -MAX_ROW_ID <= backtest_id <= MAX_ROW_ID:
        raise NotFound("backtest", backtest_id, "backtestId")
    row = session.get(EvaluationRow, backtest_id, options=[defer(EvaluationRow.samples)])
    if row is None:
        raise NotFound("backtest", backtest_id, "backtestId")
    shape = (row.n_splits, len(row.org_units), row.n_periods, row.n_samples)
    engine = session.get_bind()
    assert isinstance(engine, Engine), "the service's sessions are bound to its engine"
    samples = (
        StoredSplits(engine, EvaluationRow.__tablename__, row.id, shape)
        if StoredSplits.usable(engine)
        else samples_from_bytes(row.samples, shape)
    )
    return evaluation_entries_stream(
        samples,
        evaluation_layout(row),
        quantiles,
        split_period=split_period,
        requested_org_units=org_units,
    )


def evaluation_entries(row: EvaluationRow, quantiles: Sequence[float]) -> bytes:
    """Every entry of the evaluation at ``quantiles`` as JSON bytes."""
    return evaluation_entries_json(evaluation_samples(row), evaluation_layout(row), quantiles)


def evaluation_layout(row: EvaluationRow) -> EvaluationLayout:
    """The org units, split periods and forecast periods the row's samples are laid out by."""
    return EvaluationLayout(row.org_units, row.split_periods, row.periods)


def backtest_full_json(row: EvaluationRow, quantiles: Sequence[float]) -> bytes:
    """``BacktestFull`` as JSON bytes."""
    entries = evaluation_entries(row, quantiles)
    configuration = BacktestConfiguration(
        n_periods=row.n_periods, n_splits=row.n_splits, stride=row.stride, n_samples=row.n_samples
    )
    head = backtest_read(row).model_dump(mode="json", by_alias=True)
    head.update(
        modelDbId=row.configured_model_id,
        configuration=configuration.model_dump(by_alias=True),
        quantiles=list(quantiles),
    )
    return with_forecasts(head, entries)


def with_forecasts(head: dict[str, object], entries: bytes) -> bytes:
    """``head`` as JSON with the entries' JSON bytes spliced in as ``forecasts``."""
    return orjson.dumps(head)[:-1] + b',"forecasts":' + entries + b"}"


def evaluation_truth(row: EvaluationRow) -> np.ndarray:
    """The observed target at every forecast cell, shape (splits, org units, periods); NaN where
    the dataset has no value."""
    panel = panel_of(row.dataset)
    target = panel.features.get(template_spec(row.configured_model.template).target)
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


def _finite_at(per_cell: dict[str, Any], index: int) -> dict[str, float | None]:
    return finite_metrics(
        {name: float(np.asarray(values)[index]) for name, values in per_cell.items()}
    )


def metric_rows(session: Session, backtest_id: int | None) -> list[list[Any]]:
    """One row per evaluation (or of ``backtest_id`` only) and metric, in the columns of
    :data:`METRICS_CSV_HEADER`."""
    query = select(EvaluationRow).order_by(EvaluationRow.id)
    if backtest_id is not None:
        get_evaluation(session, backtest_id, "backtestId")
        query = query.where(EvaluationRow.id == backtest_id)
    return [
        [row.id, row.name, row.configured_model.name, row.dataset_id, metric, value]
        for row in session.scalars(query)
        for metric, value in row.aggregate_metrics.items()
    ]


def actual_cases(
    session: Session,
    backtest_id: int,
    org_units: Sequence[str] | None = None,
    is_dataset_id: bool = False,
) -> ActualCases:
    """The observed target of the evaluation's dataset (of ``org_units``, default all); with
    ``is_dataset_id`` the id is a dataset's, whose ``disease_cases`` are answered."""
    if is_dataset_id:
        dataset = get_or_404(session, DatasetRow, backtest_id, "dataset", "backtestId")
        target = TARGET
    else:
        evaluation = get_evaluation(session, backtest_id, "backtestId")
        dataset = evaluation.dataset
        target = template_spec(evaluation.configured_model.template).target
    panel = panel_of(dataset)
    values = panel.features.get(target, np.full((panel.n_org_units, panel.n_periods), np.nan))
    wanted = list(org_units or panel.org_units)
    unknown = [unit for unit in wanted if unit not in panel.org_units]
    if unknown:
        raise FieldProblem("orgUnits", f"{unknown[0]!r} is not an org unit of the dataset")
    rows = [panel.org_units.index(unit) for unit in wanted]
    data = [
        ActualCase(
            pe=period,
            ou=panel.org_units[u],
            value=None if np.isnan(values[u, p]) else float(values[u, p]),
        )
        for u in rows
        for p, period in enumerate(panel.periods)
    ]
    return ActualCases(feature_id=target, dhis2_id=target, data=data)


def backtest_overlap(session: Session, id1: int, id2: int) -> BacktestOverlap:
    """The org units, split periods and forecast periods two evaluations share."""
    first = get_evaluation(session, id1, "id1")
    second = get_evaluation(session, id2, "id2")
    return BacktestOverlap(
        backtest_ids=[id1, id2],
        same_dataset=first.dataset_id == second.dataset_id,
        org_units=_shared(first.org_units, second.org_units),
        split_periods=_shared(first.split_periods, second.split_periods),
        periods=_shared(_forecast_periods(first), _forecast_periods(second)),
    )


def compatible_backtests(session: Session, backtest_id: int) -> list[BacktestRead]:
    """Other evaluations on the same dataset that share at least one split period and org unit,
    so their forecasts can be compared cell by cell."""
    row = get_evaluation(session, backtest_id)
    others = session.scalars(
        select(EvaluationRow)
        .where(EvaluationRow.dataset_id == row.dataset_id, EvaluationRow.id != row.id)
        .order_by(EvaluationRow.id)
    )
    return [
        backtest_read(other)
        for other in others
        if _shared(row.split_periods, other.split_periods)
        and _shared(row.org_units, other.org_units)
    ]


def _shared(first: list[str], second: list[str]) -> list[str]:
    others = set(second)
    return [value for value in dict.fromkeys(first) if value in others]


def _forecast_periods(row: EvaluationRow) -> list[str]:
    return sorted({period for split in row.periods for period in split})
