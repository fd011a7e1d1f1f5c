"""Prediction setups: an evaluation promoted to a repeatable forecast. A setup keeps the
evaluation's configured model, org units, period type and data sources; each run forecasts with
that model on fresh observations (a ``make_prediction`` job) and the forecast joins the setup's
history. An evaluation backs at most one setup, and deleting it deletes its setup.

This service runs setups on request only: a schedule (a standard five-field cron expression)
is stored and shown, but it cannot be enabled, since no scheduler runs it. A setup may name an
alert policy (which then cannot be deleted); its runs raise no alerts by themselves."""

from __future__ import annotations

from typing import Any

from croniter import croniter
from sqlalchemy import select
from sqlalchemy.orm import Session, defer

from chaplab.service.domain.alerts import policy_read
from chaplab.service.domain.evaluations import get_evaluation
from chaplab.service.domain.lookup import get_or_404
from chaplab.service.domain.models import configured_model_read
from chaplab.service.domain.paging import Listed, Page, listed_rows
from chaplab.service.domain.predictions import prediction_read, queue_prediction_with_model
from chaplab.service.errors import Conflict, FieldProblem, Refused
from chaplab.service.forecasting.weather import WEATHER_PROVIDERS
from chaplab.service.storage import panel_from_observations
from chaplab.service.tables import (
    ACTIVE_STATUSES,
    AlertPolicyRow,
    EvaluationRow,
    JobRow,
    PredictionRow,
    PredictionSetupForecastRow,
    PredictionSetupRow,
)
from chaplab.service.wire.common import CreatedId, DataSource
from chaplab.service.wire.prediction_setups import (
    PredictionSetupCreate,
    PredictionSetupRead,
    PredictionSetupReadWithPredictions,
    PredictionSetupUpdate,
    QuantileTarget,
    RunPredictionSetupRequest,
)

CRON_FIELDS = 5
NO_SCHEDULER = "this service runs prediction setups on request only (POST .../run); no scheduler"


def get_setup_row(session: Session, setup_id: int) -> PredictionSetupRow:
    return get_or_404(session, PredictionSetupRow, setup_id, "prediction setup")


def setup_read(session: Session, row: PredictionSetupRow) -> PredictionSetupRead:
    return PredictionSetupRead(**_read_fields(session, row))


def _read_fields(session: Session, row: PredictionSetupRow) -> dict[str, Any]:
    policy = (
        None if row.alert_policy_id is None else session.get(AlertPolicyRow, row.alert_policy_id)
    )
    return {
        "id": row.id,
        "name": row.name,
        "created": row.created,
        "backtest_id": row.evaluation_id,
        "configured_model": configured_model_read(row.configured_model),
        "start_period": row.start_period,
        "org_units": row.org_units,
        "covariate_sources": [DataSource.model_validate(s) for s in row.covariate_sources],
        "period_type": row.period_type,
        "schedule_cron_expression": row.schedule_cron_expression,
        "schedule_enabled": row.schedule_enabled,
        "quantile_targets": [QuantileTarget.model_validate(t) for t in row.quantile_targets],
        "alert_policy": None if policy is None else policy_read(policy),
    }


def list_setups(session: Session, page: Page) -> Listed[PredictionSetupRead]:
    """The prediction setups of ``page``, by id."""
    query = select(PredictionSetupRow).order_by(PredictionSetupRow.id)
    return listed_rows(session, query, page, lambda row: setup_read(session, row))


def get_setup(session: Session, setup_id: int) -> PredictionSetupReadWithPredictions:
    """The setup with every forecast its runs made, oldest first."""
    row = get_setup_row(session, setup_id)
    predictions = session.scalars(
        select(PredictionRow)
        .join(
            PredictionSetupForecastRow, PredictionSetupForecastRow.prediction_id == PredictionRow.id
        )
        .where(PredictionSetupForecastRow.prediction_setup_id == row.id)
        .order_by(PredictionRow.id)
        .options(defer(PredictionRow.samples))  # the history lists forecasts, not their samples
    )
    return PredictionSetupReadWithPredictions(
        **_read_fields(session, row),
        predictions=[prediction_read(session, prediction) for prediction in predictions],
    )


def create_setup(session: Session, request: PredictionSetupCreate) -> CreatedId:
    """Promote the evaluation ``backtestId``: 404 when it or the alert policy is unknown, 422
    naming the field for a schedule this service cannot keep, 409 when the evaluation already
    backs a setup (checked in 2.5.1's order). The setup starts from the first period of the
    evaluation's dataset, as 2.5.1's."""
    evaluation = get_evaluation(session, request.backtest_id, "backtestId")
    _check_schedule(request.schedule_cron_expression, request.schedule_enabled)
    _check_alert_policy(session, request.alert_policy_id)
    taken = session.scalar(
        select(PredictionSetupRow.id).where(PredictionSetupRow.evaluation_id == evaluation.id)
    )
    if taken is not None:
        raise Conflict(f"backtest {evaluation.id} already backs prediction setup {taken}")
    row = PredictionSetupRow(
        name=request.name,
        evaluation_id=evaluation.id,
        configured_model_id=evaluation.configured_model_id,
        period_type=evaluation.dataset.period_type,
        start_period=evaluation.dataset.periods[0],
        org_units=list(evaluation.org_units),
        covariate_sources=list(evaluation.dataset.data_sources),
        schedule_cron_expression=request.schedule_cron_expression,
        schedule_enabled=request.schedule_enabled,
        quantile_targets=[t.model_dump(by_alias=True) for t in request.quantile_targets],
        alert_policy_id=request.alert_policy_id,
    )
    session.add(row)
    session.commit()
    return CreatedId(id=row.id)


def update_setup(
    session: Session, setup_id: int, request: PredictionSetupUpdate
) -> PredictionSetupRead:
    """Change the fields sent (a null or absent field stays as it is)."""
    row = get_setup_row(session, setup_id)
    cron = request.schedule_cron_expression or row.schedule_cron_expression
    enabled = row.schedule_enabled if request.schedule_enabled is None else request.schedule_enabled
    _check_schedule(cron, enabled)
    _check_alert_policy(session, request.alert_policy_id)
    if request.name is not None:
        row.name = request.name
    if request.alert_policy_id is not None:
        row.alert_policy_id = request.alert_policy_id
    row.schedule_cron_expression = cron
    row.schedule_enabled = enabled
    if request.quantile_targets is not None:
        row.quantile_targets = [t.model_dump(by_alias=True) for t in request.quantile_targets]
    session.commit()
    return setup_read(session, row)


def unfinished_runs(session: Session, setup_id: int) -> list[str]:
    """The ids of the setup's run jobs still queued or running (404 for an unknown setup):
    cancelled before the setup is deleted."""
    get_setup_row(session, setup_id)
    return list(
        session.scalars(
            select(JobRow.id).where(
                JobRow.prediction_setup_id == setup_id, JobRow.status.in_(ACTIVE_STATUSES)
            )
        )
    )


def delete_setup(session: Session, setup_id: int) -> None:
    """Delete the setup and its run jobs, as chap-core 2.5.1 does (cancel the unfinished ones
    first: :func:`unfinished_runs`); the forecasts of its history stay as predictions."""
    setup = get_setup_row(session, setup_id)
    for job in session.scalars(select(JobRow).where(JobRow.prediction_setup_id == setup_id)):
        session.delete(job)
    session.delete(setup)
    session.commit()


def run_setup(session: Session, setup_id: int, request: RunPredictionSetupRequest) -> JobRow:
    """Queue a forecast with the setup's configured model on the observations sent: 409 when
    the model has been archived since, 400 when the evaluation read its forecast windows'
    weather (no forecast can), 422 naming the field when the observations are not of
    the setup's period type or do not suit the model (as any prediction is checked)."""
    setup = get_setup_row(session, setup_id)
    model = setup.configured_model
    if model.archived:
        raise Conflict(f"configured model {model.name!r} is archived")
    provider = session.get_one(EvaluationRow, setup.evaluation_id).future_weather_provider
    if WEATHER_PROVIDERS[provider].leaks_future_data:
        raise Refused(
            f"prediction setup {setup.id} was evaluated with the {provider!r} "
            "future-weather provider, which reads the forecast window's own observations and so "
            "cannot forecast ahead; promote an evaluation made with a provider that forecasts",
        )
    panel = panel_from_observations(request.provided_data, "providedData")
    if panel.period_type != setup.period_type:
        raise FieldProblem(
            "providedData",
            f"has {panel.period_type} periods; the setup forecasts {setup.period_type} periods",
        )
    sources = [DataSource.model_validate(source) for source in setup.covariate_sources]
    return queue_prediction_with_model(
        session, model, request, panel, sources, prediction_setup_id=setup.id
    )


def _check_schedule(cron: str | None, enabled: bool) -> None:
    if cron is not None and (len(cron.split()) != CRON_FIELDS or not croniter.is_valid(cron)):
        raise FieldProblem(
            "scheduleCronExpression", f"{cron!r} is not a standard five-field cron expression"
        )
    if enabled:
        raise FieldProblem("scheduleEnabled", f"cannot be true: {NO_SCHEDULER}")


def _check_alert_policy(session: Session, alert_policy_id: int | None) -> None:
    """The alert policy named exists (404 naming ``alertPolicyId`` otherwise, as 2.5.1)."""
    if alert_policy_id is not None:
        get_or_404(session, AlertPolicyRow, alert_policy_id, "alert policy", "alertPolicyId")
