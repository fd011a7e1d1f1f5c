"""First-start content: the templates as rows, and for a new database the demo datasets, a
default configured model per template and one finished evaluation, so a new user sees data,
models and a result at once."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from chaplab.service.db import transaction
from chaplab.service.demo import demo_dataset
from chaplab.service.domain.specifications import resolve_specification
from chaplab.service.forecasting import TEMPLATES
from chaplab.service.job_types import queue_backtest_job
from chaplab.service.storage import DatasetContent, add_dataset_row
from chaplab.service.tables import (
    ConfiguredModelRow,
    DatasetRow,
    ModelTemplateRow,
    utc_now,
)
from chaplab.service.worker import run_job
from chaplab.vocabulary import CLIMATOLOGY_WEATHER, STARTED, BacktestPlan, JobType

DEMO_NAME = "demo"
PREDICTION_PERIODS = 48


DEMO_MODEL = "naive_model"
DEMO_PLAN = BacktestPlan(n_periods=3, n_splits=7)
"""The demo evaluation's model and plan."""


def sync_templates(factory: sessionmaker[Session]) -> None:
    """Give every template of the forecasting package a row (and so a stable id)."""
    with transaction(factory) as session:
        known = set(session.scalars(select(ModelTemplateRow.name)))
        session.add_all(ModelTemplateRow(name=name) for name in TEMPLATES if name not in known)


def seed_demo(database_url: str, factory: sessionmaker[Session]) -> None:
    """Store the demo datasets and default models, then run the demo evaluation in-process,
    filed under its backtest specification."""
    demo = demo_dataset()
    panel = demo.panel
    with transaction(factory) as session:
        evaluation_data = add_dataset_row(
            session,
            DEMO_NAME,
            "evaluation",
            DatasetContent(panel, demo.geojson, []),
            created_manually=True,
        )
        recent = panel.window(panel.n_periods - PREDICTION_PERIODS, panel.n_periods)
        add_dataset_row(
            session,
            f"{DEMO_NAME} (recent)",
            "prediction",
            DatasetContent(recent, demo.geojson, []),
            created_manually=True,
        )
        for template in list(session.scalars(select(ModelTemplateRow))):
            session.add(
                ConfiguredModelRow(
                    name=template.name,
                    template=template,
                    user_option_values={},
                    additional_continuous_covariates=[],
                )
            )
    with factory() as session:
        model = session.scalars(
            select(ConfiguredModelRow).where(ConfiguredModelRow.name == DEMO_MODEL)
        ).one()
        dataset = session.get_one(DatasetRow, evaluation_data.id)
        specification = resolve_specification(session, dataset, DEMO_PLAN, CLIMATOLOGY_WEATHER)
        job = queue_backtest_job(
            session,
            JobType.CREATE_BACKTEST,
            f"{DEMO_NAME} naive evaluation",
            model.id,
            specification,
        )
        job.status, job.start_time = STARTED, utc_now()
        session.commit()
        job_id = job.id
    run_job(database_url, job_id)
