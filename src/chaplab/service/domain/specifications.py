"""Backtest specifications and batch evaluations, as chap-core 2.5.1 files them.

A specification is a dataset with the parameters that make evaluations on it comparable. A
batch (``create-backtests``) resolves its specification and queues one evaluation job per model;
it also queues, once per specification, a run of each of chap-core's baselines, the reference
models every evaluation is compared with. A single evaluation (``create-backtest``) is filed
the same way, under the specification of its dataset and parameters, as 2.5.1 files it; the
baselines a specification lacks are also queued when it is read, as 2.5.1 queues them. A
baseline's configured model asked for in a batch or alone is that run: filed as a reference,
not among the evaluations. A run's state is read off its job (its result is the evaluation's
id).

Every evaluation job is queued under its specification (resolved when the job is queued, also
for an evaluation on inline data and the demo's) and the worker files the evaluation under it
when it stores it (``evaluations.specification_id``), so reading an evaluation never writes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel
from sqlalchemy import Integer, cast, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, defer, selectinload

from chaplab.service.comparisons import COMPARISON_DESCRIPTIONS, METRIC_KINDS, compare_metrics
from chaplab.service.domain.datasets import dataset_read
from chaplab.service.domain.lookup import get_or_404
from chaplab.service.domain.models import configured_model_read, is_baseline
from chaplab.service.domain.paging import Listed, Page, page_rows
from chaplab.service.errors import FieldProblem, NotFound
from chaplab.service.forecasting.templates import BASELINES
from chaplab.service.job_types import queue_backtest_job
from chaplab.service.registered_templates import template_spec
from chaplab.service.storage import panel_of
from chaplab.service.tables import (
    BacktestSpecificationRow,
    ConfiguredModelRow,
    DatasetFeatureRow,
    DatasetRow,
    EvaluationRow,
    JobRow,
    ModelTemplateRow,
    SpecificationRunRow,
    find_or_add_specification,
    find_specification,
)
from chaplab.service.validation import check_backtest_fits, check_backtest_history
from chaplab.service.wire.common import from_row
from chaplab.service.wire.evaluations import CreateBacktestRequest
from chaplab.service.wire.specifications import (
    BacktestJob,
    BacktestSpecificationRead,
    BacktestSpecificationSummary,
    LeaderboardBacktestRead,
    MakeBacktestsRequest,
    MakeBacktestsResponse,
    MetricInfo,
    ReferenceComparison,
    ReferenceModelResult,
    ReferenceStatus,
    SpecificationFields,
)
from chaplab.vocabulary import (
    FAILURE,
    PENDING,
    REVOKED,
    STARTED,
    SUCCESS,
    TARGET_COLUMN,
    BacktestPlan,
    JobType,
)

BASELINE_RUN_NAME = "baseline"
"""The name of a baseline's evaluation, as chap-core names it."""


def queue_batch(session: Session, request: MakeBacktestsRequest) -> MakeBacktestsResponse:
    """Check the dataset, every model and the parameters, resolve the specification, then commit
    one evaluation job per model (in request order) and the baselines' runs it lacks."""
    dataset = get_or_404(session, DatasetRow, request.dataset_id, "dataset", "datasetId")
    baseline_models(session)  # a database older than the baselines gains their models here
    models = [configured_model(session, model_id) for model_id in request.model_ids]
    repeated = sorted({m.name for m in models if sum(o.id == m.id for o in models) > 1})
    if repeated:
        raise FieldProblem("modelIds", f"names a model more than once: {', '.join(repeated)}")
    panel = panel_of(dataset)
    for model in models:
        template = template_spec(model.template)
        check_backtest_fits(
            template,
            model.user_option_values,
            panel,
            request.plan,
            "modelIds",
            model.additional_continuous_covariates,
        )
    specification = resolve_specification(
        session, dataset, request.plan, request.future_weather_provider, request.target_column
    )
    jobs = [
        BacktestJob(
            configured_model_id=model.id,
            job_id=_queue_run(session, specification, model, f"{request.name}/{model.name}").id,
        )
        for model in models
    ]
    _queue_missing_baselines(session, specification)
    session.commit()
    return MakeBacktestsResponse(specification_id=specification.id, jobs=jobs)


def configured_model(session: Session, model_id: int | str) -> ConfiguredModelRow:
    """A configured model by id or by name (NotFound naming ``modelIds``)."""
    if isinstance(model_id, int):
        return get_or_404(session, ConfiguredModelRow, model_id, "configured model", "modelIds")
    row = session.scalar(select(ConfiguredModelRow).where(ConfiguredModelRow.name == model_id))
    if row is None:
        raise NotFound("configured model", model_id, "modelIds", named=True)
    return row


def queue_filed_backtest(
    session: Session, request: CreateBacktestRequest, model: ConfiguredModelRow, dataset: DatasetRow
) -> JobRow:
    """Commit one model's evaluation job filed under the specification of its dataset, plan and
    future weather, as 2.5.1 files a ``create-backtest``. Its baselines are queued when the
    specification is read or a batch runs on it, so a single evaluation adds no jobs nobody
    asked for."""
    specification = resolve_specification(
        session, dataset, request.plan, request.future_weather_provider, request.target_column
    )
    job = _queue_run(session, specification, model, request.name)
    session.commit()
    return job


def resolve_specification(
    session: Session,
    dataset: DatasetRow,
    plan: BacktestPlan,
    future_weather_provider: str,
    target_column: str = TARGET_COLUMN,
) -> BacktestSpecificationRow:
    """The specification of ``plan``, the future weather and the target on ``dataset``, created
    when there is none.

    A new specification is committed at once, in a transaction of its own (what the request
    did before is committed with it): two requests that create the same specification at the
    same time then collide on its unique constraint, and the one that loses files under the
    winner's row instead of failing."""
    key = (dataset, plan, future_weather_provider, target_column)
    found = find_specification(session, *key)
    if found is not None:
        return found
    session.commit()
    try:
        row = find_or_add_specification(session, *key)
        session.commit()
    except IntegrityError:
        session.rollback()
        found = find_specification(session, *key)
        if found is None:
            raise
        return found
    return row


def _queue_run(
    session: Session,
    specification: BacktestSpecificationRow,
    model: ConfiguredModelRow,
    name: str,
    job_type: Literal[JobType.CREATE_BACKTEST, JobType.RUN_BASELINE] = JobType.CREATE_BACKTEST,
) -> JobRow:
    """Add the evaluation job of ``model`` under ``specification`` and its run; the job (a
    ``run_baseline`` job for a baseline the service queues itself, as chap-core names it)."""
    job = queue_backtest_job(session, job_type, name, model.id, specification)
    session.add(
        SpecificationRunRow(
            specification_id=specification.id,
            configured_model_id=model.id,
            reference=is_baseline(model),
            job_id=job.id,
        )
    )
    session.flush()
    return job


def queue_baselines_of(session: Session, specification_id: int) -> int:
    """Commit the runs of the baselines the specification lacks (as 2.5.1 queues them when a
    specification is read); how many jobs were queued."""
    specification = get_or_404(
        session, BacktestSpecificationRow, specification_id, "backtest specification"
    )
    queued = _queue_missing_baselines(session, specification)
    session.commit()
    return queued


def _queue_missing_baselines(session: Session, specification: BacktestSpecificationRow) -> int:
    """Queue each baseline without a run on ``specification``; one that cannot run on its data
    is filed as not applicable, with the reason. How many jobs were queued."""
    have = set(
        session.scalars(
            select(SpecificationRunRow.configured_model_id).where(
                SpecificationRunRow.specification_id == specification.id
            )
        )
    )
    missing = [model for model in baseline_models(session) if model.id not in have]
    if not missing:
        return 0
    panel = panel_of(specification.dataset)
    queued = 0
    for model in missing:
        try:
            check_backtest_history(
                template_spec(model.template), model.user_option_values, panel, specification.plan
            )
        except FieldProblem as problem:
            session.add(
                SpecificationRunRow(
                    specification_id=specification.id,
                    configured_model_id=model.id,
                    reference=True,
                    message=problem.reason,
                )
            )
            continue
        _queue_run(session, specification, model, BASELINE_RUN_NAME, JobType.RUN_BASELINE)
        queued += 1
    return queued


def baseline_models(session: Session) -> list[ConfiguredModelRow]:
    """The configured model of each baseline (named after it), created when missing."""
    models = []
    for name in BASELINES:
        model = session.scalar(select(ConfiguredModelRow).where(ConfiguredModelRow.name == name))
        if model is None:
            template = session.scalars(
                select(ModelTemplateRow).where(ModelTemplateRow.name == name)
            ).one()
            model = ConfiguredModelRow(
                name=name,
                template=template,
                user_option_values={},
                additional_continuous_covariates=[],
            )
            session.add(model)
            session.flush()
        models.append(model)
    return models


def list_specifications(
    session: Session, filters: dict[str, object], page: Page
) -> Listed[BacktestSpecificationSummary]:
    """The specifications of ``page``, by id, that match every filter given (a column name and
    its value; None filters nothing), with their evaluation counts."""
    query = (
        select(BacktestSpecificationRow)
        .filter_by(**{name: value for name, value in filters.items() if value is not None})
        .order_by(BacktestSpecificationRow.id)
        .options(
            selectinload(BacktestSpecificationRow.dataset)
            .selectinload(DatasetRow.features)
            .defer(DatasetFeatureRow.values)
        )
    )
    rows, total = page_rows(session, query, page)
    counts = _evaluation_counts(session, [row.id for row in rows])
    summaries = [
        BacktestSpecificationSummary(
            **_parameters(row),
            id=row.id,
            dataset=dataset_read(row.dataset),
            org_unit_count=len(row.org_units),
            backtest_count=counts.get(row.id, 0),
        )
        for row in rows
    ]
    return Listed(summaries, total)


def _evaluation_counts(session: Session, specification_ids: Sequence[int]) -> dict[int, int]:
    """How many evaluations (of runs that are no reference, their job done and evaluation
    still stored) each specification has: one statement for a list's page of them."""
    counted = (
        select(SpecificationRunRow.specification_id, func.count())
        .join(JobRow, JobRow.id == SpecificationRunRow.job_id)
        .join(EvaluationRow, EvaluationRow.id == cast(JobRow.result, Integer))
        .where(
            SpecificationRunRow.specification_id.in_(specification_ids),
            SpecificationRunRow.reference.is_(False),
            JobRow.status == SUCCESS,
        )
        .group_by(SpecificationRunRow.specification_id)
    )
    return {specification: number for specification, number in session.execute(counted)}


def get_specification(
    session: Session, specification_id: int, include_comparison_models: bool
) -> BacktestSpecificationRead:
    """The leaderboard of a specification: evaluations newest first, each compared with every
    reference that is done (never with a run of its own model), and the baselines' runs.

    With ``include_comparison_models`` 2.5.1 also lists the newest evaluation of each model
    whose template has the ``comparison`` role (set from a marketplace entry; none of its own
    templates has it) and compares with it; no template here has that role, so the list is
    empty, as on 2.5.1 without a marketplace."""
    row = get_or_404(session, BacktestSpecificationRow, specification_id, "backtest specification")
    runs = _runs(session, row.id)
    baselines = _reference_results(session, runs)
    done = [reference for reference in baselines if reference.status == "done"]
    evaluations = sorted(
        (run for run in runs if not run.row.reference and run.evaluation is not None),
        key=lambda run: (run.evaluation.created, run.evaluation.id),  # type: ignore[union-attr]
        reverse=True,
    )
    return BacktestSpecificationRead(
        **_parameters(row),
        id=row.id,
        dataset=dataset_read(row.dataset),
        org_units=list(row.org_units),
        backtests=[_leaderboard_row(row, run, done) for run in evaluations],
        baselines=baselines,
        comparison_models=[] if include_comparison_models else None,
        metrics=metric_infos(),
    )


@dataclass(frozen=True)
class _Run:
    """A run with what its job says: its status, why it failed, its evaluation when done."""

    row: SpecificationRunRow
    status: ReferenceStatus
    message: str | None
    evaluation: EvaluationRow | None


def _runs(session: Session, specification_id: int) -> list[_Run]:
    """The specification's runs, oldest first, with what their jobs say; the jobs and their
    evaluations read in one statement each (without payloads and samples)."""
    rows = list(
        session.scalars(
            select(SpecificationRunRow)
            .where(SpecificationRunRow.specification_id == specification_id)
            .order_by(SpecificationRunRow.id)
        )
    )
    job_ids = [row.job_id for row in rows if row.job_id is not None]
    jobs = {
        job.id: job
        for job in session.scalars(
            select(JobRow).where(JobRow.id.in_(job_ids)).options(defer(JobRow.payload))
        )
    }
    done = [int(job.result) for job in jobs.values() if job.status == SUCCESS and job.result]
    evaluations = {
        evaluation.id: evaluation
        for evaluation in session.scalars(
            select(EvaluationRow)
            .where(EvaluationRow.id.in_(done))
            .options(defer(EvaluationRow.samples))
        )
    }
    return [_run(row, jobs, evaluations) for row in rows]


def _run(
    row: SpecificationRunRow, jobs: dict[str, JobRow], evaluations: dict[int, EvaluationRow]
) -> _Run:
    if row.job_id is None:
        return _Run(row, "not_applicable", row.message, None)
    job = jobs.get(row.job_id)
    if job is None:
        return _Run(row, "failed", f"its job {row.job_id} was deleted", None)
    if job.status in (PENDING, STARTED):
        return _Run(row, "pending", None, None)
    if job.status in (FAILURE, REVOKED):
        return _Run(row, "failed", job.error or f"its job ended {job.status}", None)
    assert job.status == SUCCESS and job.result is not None
    evaluation = evaluations.get(int(job.result))
    if evaluation is None:
        return _Run(row, "failed", f"its evaluation {job.result} was deleted", None)
    return _Run(row, "done", None, evaluation)


def _reference_results(session: Session, runs: Sequence[_Run]) -> list[ReferenceModelResult]:
    """The newest run of each baseline (those never run: pending), baselines first, then other
    configurations of a baseline's template in the order they first ran."""
    newest = {run.row.configured_model_id: run for run in runs if run.row.reference}
    models = {model.id: model for model in baseline_models(session)}
    for run in runs:
        if run.row.reference:
            models.setdefault(run.row.configured_model_id, run.row.configured_model)
    results = []
    for model_id, model in models.items():
        latest = newest.get(model_id)
        if latest is None:
            results.append(
                ReferenceModelResult(
                    configured_model=configured_model_read(model), status="pending"
                )
            )
            continue
        results.append(
            ReferenceModelResult(
                configured_model=configured_model_read(model),
                status=latest.status,
                message=latest.message,
                backtest_id=latest.evaluation.id if latest.evaluation else None,
                aggregate_metrics=_metrics(latest.evaluation) if latest.evaluation else {},
            )
        )
    return results


def _leaderboard_row(
    specification: BacktestSpecificationRow, run: _Run, references: list[ReferenceModelResult]
) -> LeaderboardBacktestRead:
    evaluation = run.evaluation
    assert evaluation is not None
    metrics = _metrics(evaluation)
    return LeaderboardBacktestRead(
        **_parameters(specification, LeaderboardBacktestRead),
        id=evaluation.id,
        name=evaluation.name,
        created=evaluation.created,
        dataset_id=evaluation.dataset_id,
        model_id=evaluation.configured_model.name,
        org_units=list(evaluation.org_units),
        split_periods=list(evaluation.split_periods),
        max_horizon_distance=evaluation.n_periods,
        model_template_version=evaluation.model_template_version,
        prediction_setup_id=evaluation.prediction_setup_id,
        specification_id=specification.id,
        aggregate_metrics=metrics,
        configured_model=configured_model_read(evaluation.configured_model),
        dataset=dataset_read(evaluation.dataset),
        comparisons=[
            ReferenceComparison(
                configured_model_id=reference.configured_model.id,
                values=compare_metrics(metrics, reference.aggregate_metrics),
            )
            for reference in references
            if reference.configured_model.id != evaluation.configured_model_id
        ],
    )


def _metrics(evaluation: EvaluationRow) -> dict[str, float]:
    """The evaluation's aggregate metrics that have a value."""
    return {
        name: value for name, value in evaluation.aggregate_metrics.items() if value is not None
    }


def _parameters(
    row: BacktestSpecificationRow, model: type[BaseModel] = SpecificationFields
) -> dict[str, Any]:
    """The specification's :class:`SpecificationFields` that ``model`` has a field for (a
    leaderboard row has no ``target_column``), to build ``model`` from."""
    return {
        name: getattr(row, name)
        for name in SpecificationFields.model_fields
        if name in model.model_fields
    }


def metric_infos() -> list[MetricInfo]:
    """Every metric the scores and comparisons are keyed by."""
    return [
        from_row(
            MetricInfo,
            kind,
            target_behavior="at_least" if kind.target is not None else "closest",
            optimization_direction=None if kind.target is not None else "minimize",
            comparison_description=COMPARISON_DESCRIPTIONS[kind.comparison_op],
        )
        for kind in METRIC_KINDS
    ]
