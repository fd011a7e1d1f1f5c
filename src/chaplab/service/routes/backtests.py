"""Evaluations (backtests): create as a job, list once finished, read, delete."""

from __future__ import annotations

from fastapi import APIRouter, Response
from sqlalchemy import select
from sqlalchemy.orm import Session

from chaplab.service.db import ConfiguredModelRow, DatasetRow, EvaluationRow, JobRow
from chaplab.service.errors import FieldProblem, NotFound
from chaplab.service.jobs import create_job
from chaplab.service.routes._deps import DB, ServiceState, State, get_or_404
from chaplab.service.storage import panel_of
from chaplab.service.validation import check_backtest_history, check_model_fits
from chaplab.service.views import backtest_read, spec_of
from chaplab.service.wire import BacktestRead, CreateBacktestRequest, JobReference
from chaplab.service.wire_results import CreateBacktestWithDataRequest

router = APIRouter(tags=["backtests"])


@router.post("/v1/analytics/create-backtest")
def create_backtest(request: CreateBacktestRequest, session: DB, state: State) -> JobReference:
    """Queue a rolling-origin evaluation of a configured model (by NAME) on a dataset."""
    model = configured_model_by_name(session, request.model_id)
    dataset = get_or_404(session, DatasetRow, request.dataset_id, "dataset", "datasetId")
    template = spec_of(model.template)
    panel = panel_of(dataset)
    check_model_fits(template, model.user_option_values, panel, "datasetId")
    check_backtest_history(
        template,
        model.user_option_values,
        panel,
        request.n_periods,
        request.n_splits,
        request.stride,
    )
    job = queue_evaluation(session, state, request, model, dataset)
    return JobReference(id=job.id)


def queue_evaluation(
    session: Session,
    state: ServiceState,
    request: CreateBacktestRequest | CreateBacktestWithDataRequest,
    model: ConfiguredModelRow,
    dataset: DatasetRow,
) -> JobRow:
    """Commit an evaluation job of ``model`` on ``dataset`` with the request's name, horizon,
    splits and stride, and wake the job runner."""
    job = create_job(
        session,
        "create_backtest",
        request.name,
        {
            "name": request.name,
            "configured_model_id": model.id,
            "dataset_id": dataset.id,
            "n_periods": request.n_periods,
            "n_splits": request.n_splits,
            "stride": request.stride,
        },
    )
    session.commit()
    state.runner.wake()
    return job


@router.get("/v1/crud/backtests")
def list_backtests(session: DB) -> list[BacktestRead]:
    """Finished evaluations (an evaluation is stored only when its job succeeds)."""
    return [
        backtest_read(row)
        for row in session.scalars(select(EvaluationRow).order_by(EvaluationRow.id))
    ]


@router.get("/v1/crud/backtests/{backtest_id}/info")
def get_backtest(backtest_id: int, session: DB) -> BacktestRead:
    return backtest_read(get_or_404(session, EvaluationRow, backtest_id, "backtest"))


@router.delete("/v1/crud/backtests/{backtest_id}", status_code=204)
def delete_backtest(backtest_id: int, session: DB) -> Response:
    session.delete(get_or_404(session, EvaluationRow, backtest_id, "backtest"))
    session.commit()
    return Response(status_code=204)


def configured_model_by_name(session: Session, model_id: str | int) -> ConfiguredModelRow:
    """The configured model named ``model_id``; an integer id is refused with a hint."""
    if isinstance(model_id, int):
        raise FieldProblem(
            "modelId",
            f"expects a configured-model NAME (such as 'naive_model'), not the integer {model_id}",
        )
    row = session.scalar(select(ConfiguredModelRow).where(ConfiguredModelRow.name == model_id))
    if row is None:
        if model_id.isdigit():
            raise FieldProblem(
                "modelId",
                f"expects a configured-model NAME (such as 'naive_model'), "
                f"not an id like {model_id!r}",
            )
        raise NotFound("configured model", model_id, "modelId")
    return row
