"""The payload each job type is queued with, built in one place per type.

The job types are :class:`chaplab.vocabulary.JobType`. Every creator of a job (the domain's
queueing functions, the demo seed) queues it through the builder of its type here, so the keys
the worker reads (:data:`chaplab.service.worker.WORK`, one kind of work per type) are written
once; :data:`chaplab.service.domain.jobs.RESULT_TABLES` says where each type's result is stored.

A job whose configured model runs on a model service is queued in the model-service lane
(:data:`LANE` of its payload is :data:`MODEL_SERVICE_LANE`): it mostly waits on HTTP, so the job
runner starts it outside the CPU workers, which the other jobs keep (see
:mod:`chaplab.service.job_runner`).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from chaplab.service.registered_templates import newest_service_version
from chaplab.service.tables import (
    BacktestSpecificationRow,
    ConfiguredModelRow,
    ConfiguredModelWithDataSourceRow,
    JobRow,
    create_job,
)
from chaplab.vocabulary import JobType

LANE = "lane"
"""The payload key of the lane a job runs in; a job without it runs on the CPU workers."""
MODEL_SERVICE_LANE = "model_service"
"""The lane of jobs whose model runs on a model service."""


def lane_of_model(session: Session, configured_model_id: int) -> dict[str, str]:
    """The payload entry of the lane a job of the configured model runs in: the model-service
    lane when its template is a model service's, else none (the CPU workers)."""
    template_id = session.get_one(ConfiguredModelRow, configured_model_id).model_template_id
    return {LANE: MODEL_SERVICE_LANE} if newest_service_version(session, template_id) else {}


def queue_backtest_job(
    session: Session,
    name: str,
    configured_model_id: int,
    specification: BacktestSpecificationRow,
) -> JobRow:
    """Add a job that evaluates a configured model on the dataset and with the parameters of
    ``specification`` (a backtest); the worker files the evaluation under it."""
    return create_job(
        session,
        JobType.CREATE_BACKTEST,
        name,
        {
            "name": name,
            "configured_model_id": configured_model_id,
            "dataset_id": specification.dataset_id,
            "n_periods": specification.n_periods,
            "n_splits": specification.n_splits,
            "stride": specification.stride,
            "future_weather_provider": specification.future_weather_provider,
            "specification_id": specification.id,
            **lane_of_model(session, configured_model_id),
        },
    )


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
    return create_job(
        session,
        JobType.MAKE_PREDICTION,
        name,
        {
            "name": name,
            "configured_model_with_data_source_id": configured_model_with_data_source_id,
            "n_periods": n_periods,
            "dataset": dataset,
            "prediction_setup_id": prediction_setup_id,
            "meta_data": meta_data or {},
            **lane_of_model(session, bundle.configured_model_id),
        },
    )


def queue_dataset_job(
    session: Session, name: str, dataset_type: str, dataset: dict[str, Any]
) -> JobRow:
    """Add a job that stores a validated dataset (its payload form) of ``dataset_type``."""
    return create_job(
        session,
        JobType.CREATE_DATASET,
        name,
        {"name": name, "type": dataset_type, "dataset": dataset},
    )
