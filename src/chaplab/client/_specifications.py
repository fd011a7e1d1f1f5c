"""Backtest specifications and batch evaluations (chap-core 2.5.1's leaderboard): several
configured models run under one specification, and each specification's evaluations compared
with its reference models (the baselines)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pydantic import Field

from chaplab.client._capabilities import RouteCache
from chaplab.client._datasets import Dataset
from chaplab.client._errors import (
    ArgumentError,
    ArgumentTypeError,
    JobTimeoutError,
    ServerError,
    lost_dataset,
)
from chaplab.client._evaluations import Evaluation
from chaplab.client._jobs import Jobs
from chaplab.client._model_catalog import ModelSpec
from chaplab.client._plumbing import (
    DATASETS,
    RequestBuilder,
    Resource,
    plan_body,
    plan_filters,
    require_bool,
    require_id,
    require_name,
    require_timeout,
)
from chaplab.client._steps import Now, Operation, RetryPolicy, Sleep
from chaplab.client._wire import NullableDict, NullableList, StoredRecord, WireModel

# -- wire models -----------------------------------------------------------------------------


class BatchJob(WireModel):
    """The job evaluating one configured model of a batch."""

    configured_model_id: int
    job_id: str


class BacktestBatch(WireModel):
    """A queued batch: the specification its evaluations file under and one job per model, in
    the order the models were given."""

    specification_id: int
    jobs: NullableList[BatchJob] = Field(default_factory=list)


class MetricInfo(WireModel):
    """A metric of ``aggregate_metrics`` and how its comparison value reads (``comparison_op``:
    ``skill_ratio``, ``difference`` or ``target_distance``; positive is better)."""

    id: str
    display_name: str | None = None
    description: str | None = None
    unit: str | None = None
    target: float | None = None
    target_behavior: str | None = None
    optimization_direction: str | None = None
    comparison_op: str | None = None
    comparison_description: str | None = None


class ReferenceComparison(WireModel):
    """An evaluation's metrics compared with one reference model's: metric id -> value,
    positive when the evaluation is better, ``None`` when undefined."""

    configured_model_id: int
    values: NullableDict[float | None] = Field(default_factory=dict)


class ReferenceModel(WireModel):
    """A reference model's run on a specification (``status``: ``pending``, ``done``,
    ``not_applicable`` or ``failed``; ``message`` says why)."""

    configured_model: ModelSpec
    status: str
    message: str | None = None
    backtest_id: int | None = None
    aggregate_metrics: NullableDict[float] = Field(default_factory=dict)


class LeaderboardEvaluation(Evaluation):
    """An evaluation of a specification with its comparisons against the references."""

    specification_id: int | None = None
    n_retrain: int | None = None
    future_weather_provider: str | None = None
    comparisons: NullableList[ReferenceComparison] = Field(default_factory=list)


class SpecificationFields(WireModel):
    """What identifies a specification: a dataset and the parameters that make evaluations on
    it comparable."""

    id: int
    dataset: Dataset | None = None
    n_periods: int | None = None
    n_splits: int | None = None
    stride: int | None = None
    n_retrain: int | None = None
    future_weather_provider: str | None = None
    target_column: str | None = None


class BacktestSpecification(SpecificationFields):
    """A specification as listed, with how many evaluations (baselines not counted) ran
    under it."""

    org_unit_count: int | None = None
    backtest_count: int | None = None


class BacktestSpecificationDetail(SpecificationFields):
    """A specification's leaderboard: its evaluations (newest first) with their comparisons,
    the baselines' runs, the comparison models' (when asked for) and the metrics."""

    org_units: NullableList[str] = Field(default_factory=list)
    backtests: NullableList[LeaderboardEvaluation] = Field(default_factory=list)
    baselines: NullableList[ReferenceModel] = Field(default_factory=list)
    comparison_models: list[ReferenceModel] | None = None
    metrics: NullableList[MetricInfo] = Field(default_factory=list)

    def references(self) -> list[ReferenceModel]:
        """The baselines, then the comparison models."""
        return [*self.baselines, *(self.comparison_models or [])]

    def baseline_runs(self, chosen: Iterable[str] = ()) -> dict[str, int]:
        """The evaluation of each baseline that is done, by configured model name, for a
        leaderboard of the chosen models and the baselines: each baseline template's own model
        (named as its template, ``seasonal_median``) and, of the configurations of a baseline
        template the server runs as baselines too (``seasonal_median:<name>``, chap-core
        2.5.1), only those in ``chosen``."""
        wanted = set(chosen)
        return {
            ref.configured_model.name: ref.backtest_id
            for ref in self.baselines
            if ref.status == "done"
            and ref.backtest_id is not None
            and (":" not in ref.configured_model.name or ref.configured_model.name in wanted)
        }


# -- operations ------------------------------------------------------------------------------

BASELINES_POLL_SECONDS = 1.0


class Specifications(Resource):
    """``/v1/analytics/create-backtests`` and ``/v1/crud/backtest-specifications``."""

    def __init__(self, builder: RequestBuilder, retry: RetryPolicy, routes: RouteCache) -> None:
        super().__init__(builder, retry, routes)
        self._jobs = Jobs(builder, retry, routes)

    def create_backtests(
        self,
        name: str,
        models: Sequence[int | str | Any],
        dataset_id: int | str,
        n_periods: int | None = None,
        n_splits: int | None = None,
        stride: int | None = None,
        n_retrain: int | None = None,
    ) -> Operation[BacktestBatch]:
        """Start one evaluation per configured model on a dataset, all under one specification.

        ``models`` are configured-model ids, names or objects with a ``.name`` (``ModelSpec``);
        ``dataset_id`` is the dataset's id or its name. Each evaluation is named
        ``<name>/<model name>``. The server also runs its baselines on the specification; see
        ``get_backtest_specification`` and ``run_backtests``.
        """
        body: dict[str, Any] = {
            "name": require_name("name", name),
            "modelIds": _model_ids(models),
            **plan_body(n_periods=n_periods, n_splits=n_splits, stride=stride, n_retrain=n_retrain),
        }
        body["datasetId"] = yield from self._id_of("dataset_id", dataset_id, DATASETS)
        return (
            yield from self._call(
                BacktestBatch, "POST", "/v1/analytics/create-backtests", json=body
            )
        )

    def list_backtest_specifications(
        self,
        dataset_id: int | str | None = None,
        n_periods: int | None = None,
        n_splits: int | None = None,
        stride: int | None = None,
        n_retrain: int | None = None,
        target_column: str | None = None,
    ) -> Operation[list[BacktestSpecification]]:
        """The specifications evaluations ran under, those matching every filter given
        (``dataset_id``: a dataset's id or name).

        chap-core 2.5.1 on SQLite keeps the specifications of a deleted dataset, and its list
        of every specification then fails (500): the client lists them dataset by dataset
        instead, leaving out those of deleted datasets, which nothing can read or remove."""
        params: dict[str, Any] = plan_filters(
            n_periods=n_periods, n_splits=n_splits, stride=stride, n_retrain=n_retrain
        )
        if target_column is not None:
            params["targetColumn"] = require_name("target_column", target_column)
        if dataset_id is not None:
            params["datasetId"] = yield from self._id_of("dataset_id", dataset_id, DATASETS)
        shape, path = list[BacktestSpecification], "/v1/crud/backtest-specifications"
        try:
            return (yield from self._get(shape, path, params=params))
        except ServerError as error:
            if dataset_id is not None or not lost_dataset(error):
                raise
        found: list[BacktestSpecification] = []
        for dataset in (yield from self._get(list[StoredRecord], DATASETS.path)):
            of_dataset = {**params, "datasetId": dataset.id}
            found += yield from self._get(shape, path, params=of_dataset)
        return sorted(found, key=lambda specification: specification.id)

    def get_backtest_specification(
        self, specification_id: int, include_comparison_models: bool = False
    ) -> Operation[BacktestSpecificationDetail]:
        """A specification's leaderboard: every evaluation under it with its comparisons
        against each reference model that is done, and the baselines' runs."""
        specification_id = require_id("specification_id", specification_id)
        require_bool("include_comparison_models", include_comparison_models)
        return (
            yield from self._get(
                BacktestSpecificationDetail,
                f"/v1/crud/backtest-specifications/{specification_id}",
                params={"includeComparisonModels": str(include_comparison_models).lower()},
            )
        )

    def run_backtests(
        self,
        name: str,
        models: Sequence[int | str | Any],
        dataset_id: int | str,
        n_periods: int | None = None,
        n_splits: int | None = None,
        stride: int | None = None,
        n_retrain: int | None = None,
        timeout: float | None = None,
        on_status: Callable[[str], object] | None = None,
    ) -> Operation[BacktestSpecificationDetail]:
        """Run a batch (``create_backtests``; ``dataset_id`` is the dataset's id or its name),
        wait for every model's job and for the baselines,
        and return the specification's leaderboard.

        Raises ``JobFailedError`` when a model's job fails and ``JobTimeoutError`` after
        ``timeout`` seconds (the jobs keep running); ``on_status`` hears of each new status of
        each job, as in ``wait_for_job``.
        """
        timeout = require_timeout(timeout)
        start: float = yield Now()
        batch = yield from self.create_backtests(
            name, models, dataset_id, n_periods, n_splits, stride, n_retrain
        )
        for job in batch.jobs:
            now: float = yield Now()
            left = None if timeout is None else max(timeout - (now - start), 1e-3)
            yield from self._jobs.wait_for_job(job.job_id, timeout=left, on_status=on_status)
        now = yield Now()
        left = None if timeout is None else max(timeout - (now - start), 1e-3)
        return (yield from self.wait_for_baselines(batch.specification_id, timeout=left))

    def wait_for_baselines(
        self,
        specification_id: int,
        timeout: float | None = None,
        on_pending: Callable[[list[str]], object] | None = None,
    ) -> Operation[BacktestSpecificationDetail]:
        """Wait until none of a specification's baselines is pending (chap-core 2.5.1 queues
        them when the specification is first read) and return its leaderboard, whose
        ``baseline_runs()`` are then every baseline that is done.

        ``on_pending`` hears the names of the pending baselines at each look (a plain
        function, as ``wait_for_job``'s ``on_status``); ``JobTimeoutError`` after ``timeout``
        seconds, naming a baseline still pending."""
        specification_id = require_id("specification_id", specification_id)
        timeout = require_timeout(timeout)
        start: float = yield Now()
        while True:
            detail = yield from self.get_backtest_specification(specification_id)
            pending = [ref for ref in detail.baselines if ref.status == "pending"]
            if not pending:
                return detail
            if on_pending is not None:
                on_pending([ref.configured_model.name for ref in pending])
            now: float = yield Now()
            if timeout is not None and now - start >= timeout:
                raise JobTimeoutError(
                    f"baseline {pending[0].configured_model.name}", "PENDING", timeout
                )
            yield Sleep(BASELINES_POLL_SECONDS)


def _model_ids(models: Sequence[int | str | Any]) -> list[int | str]:
    """Configured-model ids and names of ``models`` (ids, names or objects with ``.name``)."""
    if isinstance(models, (str, bytes)) or not isinstance(models, Sequence) or not models:
        raise ArgumentError(
            f"models must be a non-empty list of configured-model ids or names, got {models!r}"
        )
    ids: list[int | str] = []
    for model in models:
        if isinstance(model, int) and not isinstance(model, bool):
            ids.append(require_id("models", model))
        elif isinstance(model, str):
            ids.append(require_name("models", model))
        elif isinstance(getattr(model, "name", None), str):
            ids.append(model.name)
        else:
            raise ArgumentTypeError(
                f"models: each must be a configured-model id, name or object with .name, "
                f"got {model!r}"
            )
    return ids
