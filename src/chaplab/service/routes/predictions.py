"""Predictions as stored rows: list, read, create the row only, delete; every prediction entry
(filterable); and the older submit that names the configured model instead of a bundle."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response
from sqlalchemy import select

from chaplab.service.db import (
    ConfiguredModelWithDataSourceRow,
    DatasetRow,
    PredictionRow,
)
from chaplab.service.entries import TOTAL_ORG_UNIT, checked_quantiles, prediction_entries_json
from chaplab.service.errors import FieldProblem
from chaplab.service.result_views import (
    DEFAULT_QUANTILES,
    ROW_ONLY_SAMPLES,
    prediction_read,
    prediction_samples,
)
from chaplab.service.routes._deps import DB, OptionalQuantileLevels, State, get_or_404
from chaplab.service.routes.analytics import make_prediction
from chaplab.service.routes.backtests import configured_model_by_name
from chaplab.service.storage import panel_from_observations
from chaplab.service.wire import JobReference, PredictionRequest
from chaplab.service.wire_results import (
    LegacyPredictionRequest,
    PredictionEntryWithId,
    PredictionRead,
    PredictionRowCreate,
)

router = APIRouter(tags=["predictions"])


@router.get("/v1/crud/predictions")
def list_predictions(session: DB) -> list[PredictionRead]:
    rows = session.scalars(select(PredictionRow).order_by(PredictionRow.id))
    return [prediction_read(session, row) for row in rows]


@router.get("/v1/crud/predictions/{prediction_id}")
def get_prediction(prediction_id: int, session: DB) -> PredictionRead:
    return prediction_read(session, get_or_404(session, PredictionRow, prediction_id, "prediction"))


@router.post("/v1/crud/predictions")
def create_prediction_row(request: PredictionRowCreate, session: DB) -> PredictionRead:
    """Store a prediction row without running a model: no periods, no forecasts."""
    dataset = get_or_404(session, DatasetRow, request.dataset_id, "dataset", "datasetId")
    bundle = get_or_404(
        session,
        ConfiguredModelWithDataSourceRow,
        request.configured_model_with_data_source_id,
        "configured model with data source",
        "configuredModelWithDataSourceId",
    )
    row = PredictionRow(
        name=request.name,
        dataset_id=dataset.id,
        configured_model_with_data_source_id=bundle.id,
        org_units=list(dataset.org_units),
        periods=[],
        n_periods=0,
        n_samples=ROW_ONLY_SAMPLES,
        samples=b"",
    )
    session.add(row)
    session.commit()
    return prediction_read(session, row)


@router.delete("/v1/crud/predictions/{prediction_id}", status_code=204, response_class=Response)
def delete_prediction(prediction_id: int, session: DB) -> Response:
    """Delete a prediction (the dataset it was made from stays)."""
    session.delete(get_or_404(session, PredictionRow, prediction_id, "prediction"))
    session.commit()
    return Response(status_code=204)


@router.get("/v1/analytics/prediction-entry", response_model=list[PredictionEntryWithId])
def all_prediction_entries(
    session: DB,
    prediction_id: Annotated[
        int | None, Query(alias="predictionId", description="one prediction only")
    ] = None,
    quantiles: OptionalQuantileLevels = None,
    org_units: Annotated[
        list[str] | None, Query(alias="orgUnits", description="repeated; adm0 = their sum")
    ] = None,
) -> Response:
    """Entries of every prediction (each with its ``predictionId``), optionally of one
    prediction and some org units."""
    levels = list(quantiles or DEFAULT_QUANTILES)
    checked_quantiles(levels)
    query = select(PredictionRow).order_by(PredictionRow.id)
    if prediction_id is not None:
        get_or_404(session, PredictionRow, prediction_id, "prediction", "predictionId")
        query = query.where(PredictionRow.id == prediction_id)
    rows = list(session.scalars(query))
    if org_units:
        known = {unit for row in rows for unit in row.org_units} | {TOTAL_ORG_UNIT}
        unknown = [unit for unit in org_units if unit not in known]
        if unknown:
            raise FieldProblem("orgUnits", f"{unknown[0]!r} is not an org unit of any prediction")
    parts = []
    for row in rows:
        wanted = (
            [unit for unit in org_units if unit in row.org_units or unit == TOTAL_ORG_UNIT]
            if org_units
            else None
        )
        if wanted == []:
            continue
        body = prediction_entries_json(
            prediction_samples(row), row.org_units, row.periods, levels, wanted, row.id
        )
        if body != b"[]":
            parts.append(body[1:-1])
    return Response(b"[" + b",".join(parts) + b"]", media_type="application/json")


@router.post("/v1/analytics/make-prediction")
def make_prediction_by_model_name(
    request: LegacyPredictionRequest, session: DB, state: State
) -> JobReference:
    """The older submit: names the configured model (``modelId``); the service bundles it with
    the request's org units and data sources, then queues the prediction as
    ``make-prediction-with-data-source`` does."""
    model = configured_model_by_name(session, request.model_id)
    panel = panel_from_observations(request.provided_data, "providedData")
    bundle = ConfiguredModelWithDataSourceRow(
        name=f"{model.name} @ {request.name}",
        configured_model_id=model.id,
        period_type=panel.period_type,
        start_period=panel.periods[0],
        org_units=panel.org_units,
        data_sources=[source.model_dump(by_alias=True) for source in request.data_sources],
    )
    session.add(bundle)
    session.flush()
    submitted = PredictionRequest(
        name=request.name,
        geojson=request.geojson,
        provided_data=request.provided_data,
        data_sources=request.data_sources,
        data_to_be_fetched=request.data_to_be_fetched,
        configured_model_with_data_source_id=bundle.id,
        n_periods=request.n_periods,
    )
    return make_prediction(submitted, session, state)
