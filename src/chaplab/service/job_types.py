"""The payload each job type is queued with, built in one place per type.

The job types are :class:`chaplab.vocabulary.JobType`. Every creator of a job (the domain's
queueing functions, the demo seed) queues it through the builder of its type here, so the keys
the worker reads (:data:`chaplab.service.worker.WORK`, one kind of work per type) are written
once; :data:`chaplab.service.domain.jobs.RESULT_TABLES` says where each type's result is stored.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from chaplab.service.tables import BacktestSpecificationRow, JobRow, create_job
from chaplab.vocabulary import JobType


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
        },
    )


def queue_prediction_job(
    session: Session,
    name: str,
    configured_model_with_data_source_id: int,
    n_periods: int,
    dataset: dict[str, Any],
    prediction_setup_id: int | None = None,
) -> JobRow:
    """Add a job that forecasts ``n_periods`` after ``dataset`` (a dataset's payload form,
    ``DatasetContent.to_payload``), as a run of the prediction setup when one is given."""
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
