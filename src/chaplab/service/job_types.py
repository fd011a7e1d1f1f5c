"""The payload of each job type, a pydantic model written by the job's creator and read by the
worker, and the one function per kind of job that queues it.

The job types are :class:`chaplab.vocabulary.JobType`, chap-core 2.5.1's names. Every creator
of a job (the domain's queueing functions, the demo seed) queues it through the function of its
kind here, which writes its :data:`PAYLOADS` model; the worker reads the job's payload back as
that model (:func:`payload_of`) and does the work of its type
(:data:`chaplab.service.worker.WORK`); :data:`chaplab.service.domain.jobs.RESULT_TABLES` says
where each type's result is stored. A stored payload of an older schema version is rewritten
in this form when the database is migrated (``chaplab.service.db``).

A job whose configured model runs on a model service is queued in the model-service lane
(its payload's :data:`LANE` is :data:`MODEL_SERVICE_LANE`): it mostly waits on HTTP, so the job
runner starts it outside the CPU workers, which the other jobs keep (see
:mod:`chaplab.service.job_runner`).
"""

from __future__ import annotations

import uuid
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict
from sqlalchemy.orm import Session

from chaplab.service.registered_templates import newest_service_version
from chaplab.service.tables import (
    REQUEST_BODY,
    BacktestSpecificationRow,
    ConfiguredModelRow,
    ConfiguredModelWithDataSourceRow,
    JobRequestRow,
    JobRow,
)
from chaplab.vocabulary import PENDING, BacktestPlan, JobType

LANE = "lane"
"""The payload field of the lane a job runs in; a job without it runs on the CPU workers."""
Lane = Literal["model_service"]
MODEL_SERVICE_LANE: Lane = "model_service"
"""The lane of jobs whose model runs on a model service."""


class JobPayload(BaseModel):
    """What every job's payload holds: the name of the row it creates, and its lane."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    lane: Lane | None = None


class EvaluationPayload(JobPayload):
    """An evaluation of a configured model on a stored dataset by ``plan``, filed under the
    backtest specification it was queued under (None only for a job of a chaplab older than
    specifications)."""

    configured_model_id: int
    dataset_id: int
    specification_id: int | None
    plan: BacktestPlan
    future_weather_provider: str


class PredictionPayload(JobPayload):
    """A forecast of ``n_periods`` after ``dataset`` (a dataset's payload form,
    ``DatasetContent.to_payload``) with a configured model and its data sources; the prediction
    keeps ``meta_data`` (chap-core 2.5.1's ``metaData``)."""

    configured_model_with_data_source_id: int
    n_periods: int
    dataset: dict[str, Any]
    meta_data: dict[str, Any] = {}


class DatasetPayload(JobPayload):
    """A validated dataset (its payload form) to store as ``type``."""

    type: str
    dataset: dict[str, Any]


PAYLOADS: dict[JobType, type[JobPayload]] = {
    JobType.CREATE_BACKTEST: EvaluationPayload,
    JobType.CREATE_BACKTEST_FROM_DATA: EvaluationPayload,
    JobType.RUN_BASELINE: EvaluationPayload,
    JobType.CREATE_PREDICTION: PredictionPayload,
    JobType.CREATE_DATASET: DatasetPayload,
}
"""Job type -> the model of its payload."""


def payload_of(job: JobRow) -> JobPayload:
    """The job's payload as the model of its type."""
    return PAYLOADS[JobType(job.type)].model_validate(job.payload)


def create_job(
    session: Session,
    job_type: JobType,
    payload: JobPayload,
    prediction_setup_id: int | None = None,
) -> JobRow:
    """Add a PENDING job of ``job_type`` with ``payload`` (of its :data:`PAYLOADS` model) to
    ``session``, committed by the caller's transaction; the job runner starts it once it is
    committed. A session serving a request with a JSON object body keeps that body with the job
    (``GET /v1/jobs/{id}/request``)."""
    if not isinstance(payload, PAYLOADS[job_type]):
        expected, given = PAYLOADS[job_type].__name__, type(payload).__name__
        raise TypeError(f"the payload of a {job_type} job is {expected}, not {given}")
    job = JobRow(
        id=str(uuid.uuid4()),
        type=job_type,
        name=payload.name,
        status=PENDING,
        payload=payload.model_dump(mode="json", exclude_none=True),
        prediction_setup_id=prediction_setup_id,
    )
    body = session.info.get(REQUEST_BODY)
    if isinstance(body, dict):
        job.request = JobRequestRow(body=body)
    session.add(job)
    return job


def _lane_of_model(session: Session, configured_model_id: int) -> Lane | None:
    """The lane a job of the configured model runs in: the model-service lane when its template
    is a model service's, else none (the CPU workers)."""
    template_id = session.get_one(ConfiguredModelRow, configured_model_id).model_template_id
    return MODEL_SERVICE_LANE if newest_service_version(session, template_id) else None


def queue_backtest_job(
    session: Session,
    job_type: Literal[
        JobType.CREATE_BACKTEST, JobType.CREATE_BACKTEST_FROM_DATA, JobType.RUN_BASELINE
    ],
    name: str,
    configured_model_id: int,
    specification: BacktestSpecificationRow,
) -> JobRow:
    """Add a job that evaluates a configured model on the dataset and by the plan of
    ``specification`` (a backtest); the worker files the evaluation under it."""
    payload = EvaluationPayload(
        name=name,
        configured_model_id=configured_model_id,
        dataset_id=specification.dataset_id,
        specification_id=specification.id,
        plan=specification.plan,
        future_weather_provider=specification.future_weather_provider,
        lane=_lane_of_model(session, configured_model_id),
    )
    return create_job(session, job_type, payload)


def queue_prediction_job(
    session: Session,
    name: str,
    configured_model_with_data_source_id: int,
    n_periods: int,
    dataset: dict[str, Any],
    prediction_setup_id: int | None = None,
    meta_data: dict[str, Any] | None = None,
) -> JobRow:
    """Add a job that forecasts ``n_periods`` after ``dataset`` (a dataset's payload form,
    ``DatasetContent.to_payload``), as a run of the prediction setup when one is given; the
    prediction keeps ``meta_data``."""
    bundle = session.get_one(ConfiguredModelWithDataSourceRow, configured_model_with_data_source_id)
    payload = PredictionPayload(
        name=name,
        configured_model_with_data_source_id=configured_model_with_data_source_id,
        n_periods=n_periods,
        dataset=dataset,
        meta_data=meta_data or {},
        lane=_lane_of_model(session, bundle.configured_model_id),
    )
    return create_job(session, JobType.CREATE_PREDICTION, payload, prediction_setup_id)


def queue_dataset_job(
    session: Session,
    name: str,
    dataset_type: str,
    dataset: dict[str, Any],
) -> JobRow:
    """Add a job that stores a validated dataset (its payload form) of ``dataset_type``."""
    return create_job(
        session,
        JobType.CREATE_DATASET,
        DatasetPayload(name=name, type=dataset_type, dataset=dataset),
    )
