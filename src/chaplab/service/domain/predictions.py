"""Predictions: queueing a forecast as a job (by bundle, or by configured-model name), a row
without forecasts, reading and deleting, and the entries of one or of every prediction."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session, defer

from chaplab.service.domain.datasets import dataset_read
from chaplab.service.domain.evaluations import with_forecasts
from chaplab.service.domain.lookup import get_or_404
from chaplab.service.domain.models import (
    configured_model_by_name,
    configured_model_db,
    get_bundle,
    new_bundle,
)
from chaplab.service.domain.paging import Listed, Page, listed_rows
from chaplab.service.entries import (
    TOTAL_ORG_UNIT,
    checked_quantiles,
    prediction_entries_json,
    prediction_entries_stream,
)
from chaplab.service.errors import FieldProblem
from chaplab.service.forecasting.panel import Panel
from chaplab.service.gridjson import JsonStream
from chaplab.service.job_types import queue_prediction_job
from chaplab.service.registered_templates import template_spec
from chaplab.service.storage import (
    ROW_ONLY_SAMPLES,
    dataset_content,
    panel_from_observations,
    samples_from_bytes,
)
from chaplab.service.tables import (
    ConfiguredModelRow,
    ConfiguredModelWithDataSourceRow,
    DatasetRow,
    JobRow,
    PredictionRow,
    PredictionSetupForecastRow,
)
from chaplab.service.validation import (
    check_model_fits,
    check_nothing_to_fetch,
    check_prediction_history,
)
from chaplab.service.wire.common import DataSource, from_row
from chaplab.service.wire.prediction_setups import RunPredictionSetupRequest
from chaplab.service.wire.predictions import (
    LegacyPredictionRequest,
    PredictionRead,
    PredictionRequest,
    PredictionRowCreate,
)


def prediction_read(session: Session, row: PredictionRow) -> PredictionRead:
    """A prediction with its configured model's row, its dataset and the prediction setup
    whose run made it."""
    bundle = session.get_one(
        ConfiguredModelWithDataSourceRow, row.configured_model_with_data_source_id
    )
    setup_id = session.scalar(
        select(PredictionSetupForecastRow.prediction_setup_id).where(
            PredictionSetupForecastRow.prediction_id == row.id
        )
    )
    return from_row(
        PredictionRead,
        row,
        model_id=bundle.configured_model.name,
        prediction_setup_id=setup_id,
        configured_model=configured_model_db(bundle.configured_model),
        dataset=dataset_read(session.get_one(DatasetRow, row.dataset_id)),
    )


def get_prediction_row(
    session: Session, prediction_id: int, field: str | None = None
) -> PredictionRow:
    """The prediction ``prediction_id`` (NotFound naming ``field``)."""
    return get_or_404(session, PredictionRow, prediction_id, "prediction", field)


def list_predictions(session: Session, page: Page) -> Listed[PredictionRead]:
    """The predictions of ``page``, by id (their samples are not read)."""
    query = select(PredictionRow).order_by(PredictionRow.id).options(defer(PredictionRow.samples))
    return listed_rows(session, query, page, lambda row: prediction_read(session, row))


def get_prediction(session: Session, prediction_id: int) -> PredictionRead:
    return prediction_read(session, get_prediction_row(session, prediction_id))


def delete_prediction(session: Session, prediction_id: int) -> None:
    """Delete a prediction (the dataset it was made from stays)."""
    session.delete(get_prediction_row(session, prediction_id))
    session.commit()


def create_prediction_row(session: Session, request: PredictionRowCreate) -> PredictionRead:
    """Store a prediction row without running a model: no periods, no forecasts."""
    dataset = get_or_404(session, DatasetRow, request.dataset_id, "dataset", "datasetId")
    bundle = get_bundle(
        session, request.configured_model_with_data_source_id, "configuredModelWithDataSourceId"
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


def queue_prediction(
    session: Session, request: PredictionRequest, prediction_setup_id: int | None = None
) -> JobRow:
    """Check the provided data against the bundle's model, then commit a job forecasting
    ``nPeriods`` periods after it (a run of the prediction setup, when one is given: the
    forecast joins the setup's history)."""
    bundle = get_bundle(
        session, request.configured_model_with_data_source_id, "configuredModelWithDataSourceId"
    )
    check_nothing_to_fetch(request.data_to_be_fetched)
    content = dataset_content(
        request.provided_data, request.geojson, request.data_sources, "providedData"
    )
    model = bundle.configured_model
    template = template_spec(model.template)
    check_model_fits(
        template,
        model.user_option_values,
        content.panel,
        "providedData",
        model.additional_continuous_covariates,
    )
    check_prediction_history(template, model.user_option_values, content.panel, request.n_periods)
    job = queue_prediction_job(
        session,
        request.name,
        bundle.id,
        request.n_periods,
        content.to_payload(),
        prediction_setup_id,
        request.meta_data,
    )
    session.commit()
    return job


def queue_prediction_by_model_name(session: Session, request: LegacyPredictionRequest) -> JobRow:
    """The older submit: bundles the configured model (``modelId``) with the request's org units
    and data sources, then queues the prediction as :func:`queue_prediction` does."""
    model = configured_model_by_name(session, request.model_id)
    panel = panel_from_observations(request.provided_data, "providedData")
    return queue_prediction_with_model(
        session,
        model,
        request,
        panel,
        request.data_sources,
        data_to_be_fetched=request.data_to_be_fetched,
        meta_data=request.meta_data,
    )


def queue_prediction_with_model(
    session: Session,
    model: ConfiguredModelRow,
    observations: LegacyPredictionRequest | RunPredictionSetupRequest,
    panel: Panel,
    data_sources: list[DataSource],
    *,
    data_to_be_fetched: list[dict[str, Any]] | None = None,
    prediction_setup_id: int | None = None,
    meta_data: dict[str, Any] | None = None,
) -> JobRow:
    """Bundle ``model`` with the org units of ``panel`` (the observations sent) and
    ``data_sources``, then queue the forecast as :func:`queue_prediction` does: the one path of
    the submit by model name and of a prediction setup's run."""
    sources = [source.model_dump(by_alias=True) for source in data_sources]
    bundle = new_bundle(model, observations.name, panel, sources)
    session.add(bundle)
    session.flush()
    submitted = PredictionRequest(
        name=observations.name,
        geojson=observations.geojson,
        provided_data=observations.provided_data,
        data_sources=data_sources,
        data_to_be_fetched=data_to_be_fetched or [],
        configured_model_with_data_source_id=bundle.id,
        n_periods=observations.n_periods,
        meta_data=meta_data or {},
    )
    return queue_prediction(session, submitted, prediction_setup_id=prediction_setup_id)


def prediction_samples(row: PredictionRow) -> np.ndarray:
    """Sorted samples, shape (org units, periods, samples)."""
    return samples_from_bytes(row.samples, (len(row.org_units), row.n_periods, row.n_samples))


def entries_stream(
    session: Session,
    prediction_id: int,
    quantiles: Sequence[float],
    org_units: Sequence[str] | None,
) -> JsonStream:
    """Quantiles of every (org unit, period) of a prediction, as a JSON stream."""
    row = get_prediction_row(session, prediction_id, "predictionId")
    return prediction_entries_stream(
        prediction_samples(row), row.org_units, row.periods, quantiles, org_units
    )


def all_entries(
    session: Session,
    prediction_id: int | None,
    quantiles: Sequence[float],
    org_units: Sequence[str] | None,
) -> bytes:
    """Entries of every prediction (each with its ``predictionId``) as JSON bytes, optionally of
    one prediction and some org units."""
    checked_quantiles(quantiles)
    query = select(PredictionRow).order_by(PredictionRow.id)
    if prediction_id is not None:
        get_prediction_row(session, prediction_id, "predictionId")
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
            prediction_samples(row), row.org_units, row.periods, quantiles, wanted, row.id
        )
        if body != b"[]":
            parts.append(body[1:-1])
    return b"[" + b",".join(parts) + b"]"


def prediction_full_json(session: Session, row: PredictionRow, quantiles: Sequence[float]) -> bytes:
    """``PredictionFull`` as JSON bytes."""
    entries = prediction_entries_json(
        prediction_samples(row), row.org_units, row.periods, quantiles
    )
    head = prediction_read(session, row).model_dump(mode="json", by_alias=True)
    head.update(quantiles=list(quantiles))
    return with_forecasts(head, entries)
