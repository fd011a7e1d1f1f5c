"""Wire models of jobs: the reference a job-starting request answers, the job's description
and log lines (snake_case), and the row a successful job created."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from chaplab.service.wire.common import SnakeModel, WireModel
from chaplab.service.wire.datasets import DatasetRead
from chaplab.service.wire.evaluations import BacktestRead
from chaplab.service.wire.predictions import PredictionRead


class JobReference(WireModel):
    id: str


class JobDescription(SnakeModel):
    id: str
    type: str
    name: str
    status: str
    created: datetime
    start_time: datetime | None
    end_time: datetime | None
    result: str | None
    error: str | None
    prediction_setup_id: int | None = None


class JobDatabaseResult(WireModel):
    """The row a successful job created."""

    job_id: str
    result_type: Literal["backtest", "prediction", "dataset"]
    id: int
    row: BacktestRead | PredictionRead | DatasetRead
