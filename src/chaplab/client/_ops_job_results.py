"""What a finished job created, as sans-IO operations (see ``_operations``)."""

from __future__ import annotations

from collections.abc import Sequence

from chaplab.client._operations import (
    Operations,
    _job_path,
    _quantiles,
    operation,
)
from chaplab.client._result_models import EvaluationDetail, JobResult, PredictionDetail
from chaplab.client._steps import Operation
from chaplab.vocabulary import DEFAULT_QUANTILES


class JobResultOperations(Operations):
    @operation
    def job_database_result(self, job_id: str) -> Operation[JobResult]:
        """The row a successful job created; ``ConflictError`` (with the reason) when the job has
        not succeeded."""
        return (yield from self._get(JobResult, _job_path(job_id) + "/database_result"))

    @operation
    def job_evaluation_result(
        self, job_id: str, quantiles: Sequence[float] = DEFAULT_QUANTILES
    ) -> Operation[EvaluationDetail]:
        """The full evaluation a successful evaluation job created, with its entries."""
        params = [("quantiles", q) for q in _quantiles(quantiles)]
        return (
            yield from self._get(
                EvaluationDetail, _job_path(job_id) + "/evaluation_result", params=params
            )
        )

    @operation
    def job_prediction_result(
        self, job_id: str, quantiles: Sequence[float] = DEFAULT_QUANTILES
    ) -> Operation[PredictionDetail]:
        """The full prediction a successful prediction job created, with its entries."""
        params = [("quantiles", q) for q in _quantiles(quantiles)]
        return (
            yield from self._get(
                PredictionDetail, _job_path(job_id) + "/prediction_result", params=params
            )
        )
