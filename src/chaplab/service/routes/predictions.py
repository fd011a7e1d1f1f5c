"""Predictions: queue a forecast as a job (by configured model with data source, or the older
submit naming the configured model), create a row only, list, read, delete, and the entries of
one or of every prediction. Their paths span ``/v1/crud`` and ``/v1/analytics``."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response

from chaplab.service.domain import predictions
from chaplab.service.routes.dependencies import (
    DB,
    LIST_ANSWER,
    OrgUnits,
    Paged,
    QuantileLevelsOrDefault,
    State,
    job_reference,
    json_body,
    streamed,
    with_total,
)
from chaplab.service.wire.jobs import JobReference
from chaplab.service.wire.predictions import (
    LegacyPredictionRequest,
    PredictionEntry,
    PredictionEntryWithId,
    PredictionRead,
    PredictionRequest,
    PredictionRowCreate,
)

router = APIRouter(tags=["predictions"])


@router.post("/v1/analytics/make-prediction-with-data-source")
def make_prediction(request: PredictionRequest, session: DB, state: State) -> JobReference:
    """Queue a forecast of ``nPeriods`` periods after the provided data."""
    return job_reference(state, predictions.queue_prediction(session, request))


@router.get("/v1/analytics/prediction-entry/{prediction_id}", response_model=list[PredictionEntry])
def prediction_entries(
    prediction_id: int,
    session: DB,
    quantiles: QuantileLevelsOrDefault,
    org_units: OrgUnits = None,
) -> Response:
    """Quantiles of every (org unit, period) of a prediction."""
    return streamed(predictions.entries_stream(session, prediction_id, quantiles, org_units))


@router.get("/v1/crud/predictions", responses=LIST_ANSWER)
def list_predictions(session: DB, page: Paged, response: Response) -> list[PredictionRead]:
    """Every prediction, by id; a page of them when ``limit`` or ``offset`` is given."""
    return with_total(response, predictions.list_predictions(session, page))


@router.get("/v1/crud/predictions/{prediction_id}")
def get_prediction(prediction_id: int, session: DB) -> PredictionRead:
    return predictions.get_prediction(session, prediction_id)


@router.post("/v1/crud/predictions")
def create_prediction_row(request: PredictionRowCreate, session: DB) -> PredictionRead:
    """Store a prediction row without running a model: no periods, no forecasts."""
    return predictions.create_prediction_row(session, request)


@router.delete("/v1/crud/predictions/{prediction_id}", status_code=204, response_class=Response)
def delete_prediction(prediction_id: int, session: DB) -> Response:
    """Delete a prediction (the dataset it was made from stays)."""
    predictions.delete_prediction(session, prediction_id)
    return Response(status_code=204)


@router.get("/v1/analytics/prediction-entry", response_model=list[PredictionEntryWithId])
def all_prediction_entries(
    session: DB,
    quantiles: QuantileLevelsOrDefault,
    prediction_id: Annotated[
        int | None, Query(alias="predictionId", description="one prediction only")
    ] = None,
    org_units: Annotated[
        list[str] | None, Query(alias="orgUnits", description="repeated; adm0 = their sum")
    ] = None,
) -> Response:
    """Entries of every prediction (each with its ``predictionId``), optionally of one
    prediction and some org units."""
    return json_body(predictions.all_entries(session, prediction_id, quantiles, org_units))


@router.post("/v1/analytics/make-prediction")
def make_prediction_by_model_name(
    request: LegacyPredictionRequest, session: DB, state: State
) -> JobReference:
    """The older submit: names the configured model (``modelId``); the service bundles it with
    the request's org units and data sources, then queues the prediction as
    ``make-prediction-with-data-source`` does."""
    return job_reference(state, predictions.queue_prediction_by_model_name(session, request))
