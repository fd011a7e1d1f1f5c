"""Prediction setups (``/v1/crud/prediction-setups``): promote an evaluation to a repeatable
forecast, list, read with its forecast history, edit, delete, and run on fresh observations
(a background job, as any prediction)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Response

from chaplab.service.domain import prediction_setups
from chaplab.service.routes.dependencies import (
    DB,
    LIST_ANSWER,
    Paged,
    State,
    job_reference,
    with_total,
)
from chaplab.service.wire.common import CreatedId, Deleted
from chaplab.service.wire.jobs import JobReference
from chaplab.service.wire.prediction_setups import (
    PredictionSetupCreate,
    PredictionSetupRead,
    PredictionSetupReadWithPredictions,
    PredictionSetupUpdate,
    RunPredictionSetupRequest,
)

router = APIRouter(prefix="/v1/crud/prediction-setups", tags=["prediction setups"])
SetupId = Annotated[int, Path(alias="predictionSetupId")]


@router.get("", responses=LIST_ANSWER)
def list_prediction_setups(
    session: DB, page: Paged, response: Response
) -> list[PredictionSetupRead]:
    """Every setup, by id, without its forecast history; a page of them when ``limit`` or
    ``offset`` is given."""
    return with_total(response, prediction_setups.list_setups(session, page))


@router.post("")
def create_prediction_setup(request: PredictionSetupCreate, session: DB) -> CreatedId:
    """Promote an evaluation (``backtestId``): the setup keeps its configured model, org
    units, period type and data sources."""
    return prediction_setups.create_setup(session, request)


@router.get("/{predictionSetupId}")
def get_prediction_setup(setup_id: SetupId, session: DB) -> PredictionSetupReadWithPredictions:
    """The setup with every forecast its runs made."""
    return prediction_setups.get_setup(session, setup_id)


@router.patch("/{predictionSetupId}")
def update_prediction_setup(
    setup_id: SetupId, request: PredictionSetupUpdate, session: DB
) -> PredictionSetupRead:
    """Change the fields sent; the others stay."""
    return prediction_setups.update_setup(session, setup_id, request)


@router.delete("/{predictionSetupId}")
def delete_prediction_setup(setup_id: SetupId, session: DB, state: State) -> Deleted:
    """Delete the setup and its run jobs, those still queued or running cancelled first, as
    chap-core 2.5.1 does (its forecasts stay as predictions)."""
    for job_id in prediction_setups.unfinished_runs(session, setup_id):
        state.runner.cancel(job_id)
    prediction_setups.delete_setup(session, setup_id)
    return Deleted()


@router.post("/{predictionSetupId}/run")
def run_prediction_setup(
    setup_id: SetupId, request: RunPredictionSetupRequest, session: DB, state: State
) -> JobReference:
    """Queue a forecast of ``nPeriods`` periods after the observations sent, with the setup's
    configured model; the prediction joins the setup's history."""
    return job_reference(state, prediction_setups.run_setup(session, setup_id, request))
