"""Forecast entries, actual cases and forward predictions.

Entries are written straight to JSON bytes from the stored sorted samples (see
``chaplab.service.gridjson``), so a million entries never become a million Python objects, and
are sent block by block while the next block is written.
"""

from __future__ import annotations

from typing import Annotated

import numpy as np
from fastapi import APIRouter, Query, Response
from fastapi.responses import StreamingResponse
from sqlalchemy.orm import defer

from chaplab.service.db import ConfiguredModelWithDataSourceRow, EvaluationRow, PredictionRow
from chaplab.service.entries import (
    StoredSplits,
    evaluation_entries_stream,
    prediction_entries_stream,
)
from chaplab.service.errors import FieldProblem, NotFound
from chaplab.service.gridjson import JsonStream
from chaplab.service.jobs import create_job
from chaplab.service.routes._deps import (
    DB,
    MAX_ROW_ID,
    OptionalQuantileLevels,
    QuantileLevels,
    State,
    get_or_404,
)
from chaplab.service.storage import dataset_content, panel_of, samples_from_bytes
from chaplab.service.validation import check_model_fits, check_prediction_history
from chaplab.service.views import spec_of
from chaplab.service.wire import (
    ActualCase,
    ActualCases,
    EvaluationEntry,
    JobReference,
    PredictionEntry,
    PredictionRequest,
)

router = APIRouter(tags=["analytics"])
DEFAULT_QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)
OrgUnits = Annotated[
    list[str] | None, Query(alias="orgUnits", description="org units, repeated; adm0 = their sum")
]


def _streamed(stream: JsonStream) -> StreamingResponse:
    """A JSON body sent chunk by chunk as it is written (with its length when known first)."""
    length = {} if stream.length is None else {"Content-Length": str(stream.length)}
    return StreamingResponse(stream.chunks, media_type="application/json", headers=length)


@router.get("/v1/analytics/evaluation-entry", response_model=list[EvaluationEntry])
def evaluation_entries(
    session: DB,
    backtest_id: Annotated[int, Query(alias="backtestId")],
    quantiles: QuantileLevels,
    split_period: Annotated[str | None, Query(alias="splitPeriod")] = None,
    org_units: OrgUnits = None,
) -> Response:
    """Quantiles of every (split, org unit, period) of an evaluation.

    The samples are not loaded with the row: on SQLite they are read split by split while the
    entries are sent (see ``StoredSplits``)."""
    if not -MAX_ROW_ID <= backtest_id <= MAX_ROW_ID:
        raise NotFound("backtest", backtest_id, "backtestId")
    row = session.get(EvaluationRow, backtest_id, options=[defer(EvaluationRow.samples)])
    if row is None:
        raise NotFound("backtest", backtest_id, "backtestId")
    shape = (row.n_splits, len(row.org_units), row.n_periods, row.n_samples)
    engine = session.get_bind()
    samples = (
        StoredSplits(engine, EvaluationRow.__tablename__, row.id, shape)
        if StoredSplits.usable(engine)
        else samples_from_bytes(row.samples, shape)
    )
    return _streamed(
        evaluation_entries_stream(
            samples,
            row.org_units,
            row.split_periods,
            row.periods,
            quantiles,
            split_period,
            org_units,
        )
    )


def _actual_cases(backtest_id: int, session: DB, org_units: OrgUnits = None) -> ActualCases:
    evaluation = get_or_404(session, EvaluationRow, backtest_id, "backtest", "backtestId")
    panel = panel_of(evaluation.dataset)
    target = spec_of(evaluation.configured_model.template).target
    values = panel.features.get(target, np.full((panel.n_org_units, panel.n_periods), np.nan))
    wanted = list(org_units or panel.org_units)
    unknown = [unit for unit in wanted if unit not in panel.org_units]
    if unknown:
        raise FieldProblem(
            "orgUnits", f"{unknown[0]!r} is not an org unit of the evaluation's dataset"
        )
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


router.get("/v1/analytics/actualCases/{backtest_id}", summary="Actual cases")(_actual_cases)
router.get("/v1/analytics/actual-cases/{backtest_id}", summary="Actual cases (alias)")(
    _actual_cases
)


@router.post("/v1/analytics/make-prediction-with-data-source")
def make_prediction(request: PredictionRequest, session: DB, state: State) -> JobReference:
    """Queue a forecast of ``nPeriods`` periods after the provided data."""
    bundle = get_or_404(
        session,
        ConfiguredModelWithDataSourceRow,
        request.configured_model_with_data_source_id,
        "configured model with data source",
        "configuredModelWithDataSourceId",
    )
    if request.data_to_be_fetched:
        raise FieldProblem(
            "dataToBeFetched",
            "this service fetches no data from outside; send every value in providedData",
        )
    content = dataset_content(
        request.provided_data, request.geojson, request.data_sources, "providedData"
    )
    model = bundle.configured_model
    template = spec_of(model.template)
    check_model_fits(template, model.user_option_values, content.panel, "providedData")
    check_prediction_history(template, model.user_option_values, content.panel, request.n_periods)
    job = create_job(
        session,
        "make_prediction",
        request.name,
        {
            "name": request.name,
            "configured_model_with_data_source_id": bundle.id,
            "n_periods": request.n_periods,
            "dataset": content.to_payload(),
        },
    )
    session.commit()
    state.runner.wake()
    return JobReference(id=job.id)


@router.get("/v1/analytics/prediction-entry/{prediction_id}", response_model=list[PredictionEntry])
def prediction_entries(
    prediction_id: int,
    session: DB,
    quantiles: OptionalQuantileLevels = None,
    org_units: OrgUnits = None,
) -> Response:
    """Quantiles of every (org unit, period) of a prediction."""
    row = get_or_404(session, PredictionRow, prediction_id, "prediction", "predictionId")
    samples = samples_from_bytes(row.samples, (len(row.org_units), row.n_periods, row.n_samples))
    return _streamed(
        prediction_entries_stream(
            samples, row.org_units, row.periods, quantiles or list(DEFAULT_QUANTILES), org_units
        )
    )
