"""Job types as chap-core 2.5.1 names them, each with one payload model, one kind of work and one
result table; a job's payload is written as its model by the creator and read back as it by the
worker: an evaluation's settings travel as one plan, from the request to the worker."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from chaplab.client import ChapClient
from chaplab.service.db import make_engine
from chaplab.service.domain.jobs import RESULT_TABLES
from chaplab.service.job_types import PAYLOADS, DatasetPayload, EvaluationPayload, create_job
from chaplab.service.tables import JobRow
from chaplab.service.worker import WORK
from chaplab.vocabulary import BacktestPlan, JobType

from .helpers import small_frame

pytestmark = pytest.mark.integration


def test_every_job_type_has_a_payload_a_work_and_a_result_table() -> None:
    assert set(PAYLOADS) == set(WORK) == set(RESULT_TABLES) == set(JobType)
    assert {job_type.value for job_type in JobType} == {
        "create_backtest",
        "create_backtest_from_data",
        "run_baseline",
        "create_prediction",
        "create_dataset",
    }  # the Modeling App's JOB_TYPES, and chap-core's run of a baseline


@pytest.fixture
def session(service_database: str) -> Iterator[Session]:
    engine = make_engine(service_database)
    with Session(engine) as opened:
        yield opened
    engine.dispose()


def test_an_evaluation_job_carries_the_requests_plan_to_the_worker(
    client: ChapClient, session: Session, unique: str
) -> None:
    dataset = client.create_dataset(f"planned {unique}", small_frame(n_years=2))
    body = {
        "name": f"planned {unique}",
        "modelId": "naive_model",
        "datasetId": dataset.id,
        "nPeriods": 2,
        "nSplits": 4,
        "stride": 2,
        "nRetrain": 2,
    }
    answer = httpx.post(f"{client.base_url}/v1/analytics/create-backtest", json=body)
    assert answer.status_code == 200, answer.text
    done = client.wait_for_job(answer.json()["id"], timeout=120)
    job = session.get_one(JobRow, done.id)
    assert JobType(job.type) == JobType.CREATE_BACKTEST
    payload = EvaluationPayload.model_validate(job.payload)
    assert payload.plan == BacktestPlan(n_periods=2, n_splits=4, stride=2, n_retrain=2)
    evaluation = client.get_evaluation(done.result_id or 0)
    assert (evaluation.n_periods, evaluation.n_splits, evaluation.stride) == (2, 4, 2)
    assert evaluation.specification_id == payload.specification_id


def test_a_job_is_queued_only_with_the_payload_of_its_type(session: Session) -> None:
    payload = DatasetPayload(name="data", type="evaluation", dataset={})
    wrong = "the payload of a create_backtest job is EvaluationPayload, not DatasetPayload"
    with pytest.raises(TypeError, match=wrong):
        create_job(session, JobType.CREATE_BACKTEST, payload)
    assert session.scalars(select(JobRow).where(JobRow.name == "data")).all() == []
