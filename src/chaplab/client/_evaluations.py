"""Evaluations (backtests): run a configured model over past splits of a dataset, read the
forecasts, the observed cases and what two evaluations share."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import Field, field_validator

from chaplab import vocabulary
from chaplab.client._capabilities import Route, RouteCache
from chaplab.client._datasets import Dataset, OrgUnitNames
from chaplab.client._errors import (
    ArgumentError,
    NotFoundError,
    OrphanedRecordError,
    ServerError,
    lost_dataset,
)
from chaplab.client._jobs import Job, JobRef, job_path, newest_storing
from chaplab.client._model_catalog import ModelSpec
from chaplab.client._orphans import EVALUATIONS, orphaned_list, orphaned_record, unreadable
from chaplab.client._plumbing import (
    DATASETS,
    Listing,
    RequestBuilder,
    convert,
    decode,
    decode_failure,
    frame_observations,
    geojson_body,
    model_name,
    page_arguments,
    plan_body,
    quantile_params,
    require_id,
    require_name,
    validate,
)
from chaplab.client._quantile_records import QuantileEntry, QuantileRecordResource, RecordOnce
from chaplab.client._steps import Operation, RetryPolicy
from chaplab.client._wire import NullableDict, NullableList, StoredRecord, WireModel
from chaplab.vocabulary import DEFAULT_QUANTILES, JobType

if TYPE_CHECKING:
    import pandas as pd

CHAP_CORE_TITLE = "CHAP Core"
"""How chap-core's ``/openapi.json`` names it (``info.title``): its list of evaluations leaves
out the reference runs (2.5.1)."""
EVALUATION_JOB_TYPES = (
    JobType.CREATE_BACKTEST,
    JobType.CREATE_BACKTEST_FROM_DATA,
    JobType.RUN_BASELINE,
)
"""Job types whose result is a stored evaluation's id: an evaluation of a stored dataset or of
data sent with it, and a baseline's run on a backtest specification (chap-core 2.5.1's
names)."""

# -- wire models -----------------------------------------------------------------------------


def _chronological_key(period: str) -> tuple[int, int, int, str]:
    """Sort key of a split period: chronological; a server string that is no period does not
    fail the evaluation that holds it, it sorts after the periods, by its text."""
    try:
        kind, ordinal = vocabulary.period_sort_key(period)
    except ValueError:
        return (1, 0, 0, period)
    return (0, kind, ordinal, period)


class Evaluation(StoredRecord):
    """A stored evaluation (a backtest); ``split_periods`` are sorted chronologically."""

    dataset_id: int | None = None
    model_id: str | None = None
    specification_id: int | None = None
    """The backtest specification it is filed under: evaluations under one are comparable."""
    org_units: NullableList[str] = Field(default_factory=list)
    split_periods: NullableList[str] = Field(default_factory=list)
    max_horizon_distance: int | None = None
    n_periods: int | None = None
    n_splits: int | None = None
    stride: int | None = None
    aggregate_metrics: NullableDict[float] = Field(default_factory=dict)
    configured_model: ModelSpec | None = None
    dataset: Dataset | None = None
    reference: bool = False
    """A reference run the server leaves out of its own list (chap-core 2.5.1 files the
    evaluations of its baseline models, such as ``seasonal_median``, as references)."""

    @field_validator("split_periods", mode="after")
    @classmethod
    def _chronological(cls, value: list[str]) -> list[str]:
        return sorted(value, key=_chronological_key)

    @field_validator("aggregate_metrics", mode="before")
    @classmethod
    def _missing_metric_is_nan(cls, value: Any) -> Any:
        if isinstance(value, dict):
            return {key: math.nan if metric is None else metric for key, metric in value.items()}
        return value


class EvaluationEntry(QuantileEntry):
    """One forecast quantile of an evaluation, for an org unit, a period and a split period."""

    split_period: str | None = None


class EvaluationDetail(Evaluation):
    """An evaluation with its configuration and predicted entries (``/full``)."""

    configuration: NullableDict[Any] = Field(default_factory=dict)
    quantiles: NullableList[float] = Field(default_factory=list)
    forecasts: NullableList[EvaluationEntry] = Field(default_factory=list)


class DeletedIds(WireModel):
    """The answer to a bulk delete: the ids it deleted (``deletedIds``), or only how many
    (chap-core 2.5.1's ``{"message": "Deleted N backtests"}``)."""

    deleted_ids: NullableList[int] = Field(default_factory=list)
    message: str | None = None

    def count(self) -> int | None:
        """How many the message says were deleted, when it says."""
        found = re.search(r"\d+", self.message or "")
        return int(found.group()) if found else None


class EvaluationOverlap(WireModel):
    """What two evaluations share."""

    backtest_ids: NullableList[int] = Field(default_factory=list)
    same_dataset: bool | None = None
    org_units: NullableList[str] = Field(default_factory=list)
    split_periods: NullableList[str] = Field(default_factory=list)
    periods: NullableList[str] = Field(default_factory=list)


class RejectedOrgUnit(WireModel):
    """An org unit of inline data that was left out, and why (chap-core 2.5.1 also names the
    feature and the periods at fault)."""

    org_unit: str
    reason: str
    feature_name: str | None = None
    time_periods: NullableList[str] = Field(default_factory=list)


class DataImportReport(WireModel):
    """What the server answered to inline data: ``imported_count`` org units imported (or, in a
    dry run, that would be), the rejected ones with the reasons; ``id`` is the evaluation job's
    id (``None`` for a dry run). ``imported_org_units``, ``dataset_id`` and ``periods`` are
    filled where the server names them (ours; chap-core 2.5.1 answers only
    ``{id, importedCount, rejected}``); ``dry_run`` is what the server says, else what was
    asked."""

    dry_run: bool = False
    id: str | None = None
    dataset_id: int | None = None
    imported_count: int | None = None
    imported_org_units: NullableList[str] = Field(default_factory=list)
    rejected: NullableList[RejectedOrgUnit] = Field(default_factory=list)
    periods: NullableList[str] = Field(default_factory=list)


# -- operations ------------------------------------------------------------------------------

LIST = Route("list_evaluations", "GET", "/v1/crud/backtests", "list_evaluations()")
EVALUATION_ROW = Route(
    "create_evaluation_row",
    "POST",
    "/v1/crud/backtests",
    "create_evaluation(name, model, dataset_id) or run_evaluation(...), which run the backtest",
)
ALL_METRICS_CSV = Route(
    "metrics_csv",
    "GET",
    "/v1/crud/metric/csv",
    "metrics_csv(evaluation_id) for each evaluation of list_evaluations() (this server has "
    "no CSV of every evaluation: it needs backtestId)",
)

# Two spellings of one route each: the first is sent where the server lists it.
EVALUATION_BY_ID = Route(
    "get_evaluation", "GET", "/v1/crud/backtests/{id}", "/v1/crud/backtests/{id}/info"
)
ACTUAL_CASES = Route(
    "actual_cases", "GET", "/v1/analytics/actual-cases/{id}", "/v1/analytics/actualCases/{id}"
)
OLDER_ACTUAL_CASES = Route(
    "actual_cases", "GET", "/v1/analytics/actualCases/{id}", "/v1/analytics/actual-cases/{id}"
)


class Evaluations(QuantileRecordResource):
    """``/v1/crud/backtests``, the evaluation routes of ``/v1/analytics`` and the evaluation a
    job created."""

    def __init__(
        self, builder: RequestBuilder, retry: RetryPolicy, routes: RouteCache, names: OrgUnitNames
    ) -> None:
        super().__init__(builder, retry, routes, names)
        self._gone_jobs: set[str] = set()
        """Evaluation jobs whose evaluation is gone: not looked for again. The job is
        remembered, not the id: chap-core's SQLite gives a later evaluation the id of a deleted
        last row, and that evaluation's own job must still find it."""

    def create_evaluation(
        self,
        name: str,
        model: str | Any,
        dataset_id: int | str,
        n_periods: int | None = None,
        n_splits: int | None = None,
        stride: int | None = None,
    ) -> Operation[Job]:
        """Start an evaluation (a backtest) of a configured model on a dataset.

        ``model`` is the configured model's NAME (``"naive_model:weekly"``) or an object with a
        ``.name`` (a ``ModelSpec``); ``dataset_id`` is the dataset's id or its name. Returns
        the job (status ``PENDING``); see ``wait_for_job`` and ``run_evaluation``.
        """
        body = _evaluation_body(name, model, n_periods=n_periods, n_splits=n_splits, stride=stride)
        body["datasetId"] = yield from self._id_of("dataset_id", dataset_id, DATASETS)
        send = self._call(JobRef, "POST", "/v1/analytics/create-backtest", json=body)
        ref = yield from self._suggesting_model(send, body["modelId"])
        return ref.pending_job(JobType.CREATE_BACKTEST, body["name"])

    def run_evaluation(
        self,
        name: str,
        model: str | Any,
        dataset_id: int | str,
        n_periods: int | None = None,
        n_splits: int | None = None,
        stride: int | None = None,
        timeout: float | None = None,
        poll_interval: float | None = None,
        on_status: Callable[[str], object] | None = None,
    ) -> Operation[Evaluation]:
        """Create an evaluation, wait for its job and return the stored evaluation;
        ``dataset_id`` is the dataset's id or its name.

        Raises ``JobFailedError`` when the job fails and ``JobTimeoutError`` after ``timeout``
        seconds (the job keeps running). ``on_status`` hears of each new job status, as in
        ``wait_for_job``.
        """
        # the other arguments are checked before a dataset's name is looked up
        _evaluation_body(name, model, n_periods=n_periods, n_splits=n_splits, stride=stride)
        dataset = yield from self._id_of("dataset_id", dataset_id, DATASETS)
        job = yield from self.create_evaluation(
            name, model, dataset, n_periods=n_periods, n_splits=n_splits, stride=stride
        )
        done = yield from self._jobs.wait_for_job(
            job.id, timeout=timeout, poll_interval=poll_interval, on_status=on_status
        )
        evaluation_id = yield from self._jobs.job_created_id(done)
        return (yield from self.get_evaluation(evaluation_id))

    def create_evaluation_row(
        self, name: str, model: str | Any, dataset_id: int | str, n_periods: int | None = None
    ) -> Operation[Evaluation]:
        """Store an evaluation row without running it (no splits, forecasts or metrics);
        ``model`` is the configured model's NAME or an object with ``.name``, ``dataset_id``
        the dataset's id or name."""
        body = _evaluation_body(name, model, n_periods=n_periods)
        route = EVALUATION_ROW
        yield from self._offered(route)  # before a dataset's name is looked up
        body["datasetId"] = yield from self._id_of("dataset_id", dataset_id, DATASETS)
        send = self._call_route(Evaluation, route, json=body)
        return (yield from self._suggesting_model(send, body["modelId"]))

    def create_evaluation_with_data(
        self,
        name: str,
        model: str | Any,
        frame: pd.DataFrame,
        geojson: Mapping[str, Any] | None = None,
        n_periods: int | None = None,
        n_splits: int | None = None,
        stride: int | None = None,
        dry_run: bool = False,
    ) -> Operation[DataImportReport]:
        """Evaluate a configured model on data sent inline (a wide frame: ``time_period``,
        ``location``, one column per feature). Org units the model cannot use are left out and
        reported; ``dry_run=True`` only validates and reports. The report's ``id`` is the job's."""
        body: dict[str, Any] = {
            "name": require_name("name", name),
            "modelId": model_name(model),
            "providedData": frame_observations(frame),
            "geojson": geojson_body(geojson),
            "dataToBeFetched": [],
            **plan_body(n_periods=n_periods, n_splits=n_splits, stride=stride),
        }
        params = {"dryRun": "true" if dry_run else "false"}
        path = "/v1/analytics/create-backtest-with-data/"
        send = self._call(DataImportReport, "POST", path, json=body, params=params)
        report = yield from self._suggesting_model(send, body["modelId"])
        if "dry_run" not in report.model_fields_set:
            report = report.model_copy(update={"dry_run": bool(dry_run)})
        return report

    def list_evaluations(
        self,
        dataset_id: int | str | None = None,
        specification_id: int | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> Operation[Listing[Evaluation]]:
        """The stored evaluations, reference runs included (``reference=True``, after the
        others); only those run on ``dataset_id`` (a dataset's id or name) and filed under
        ``specification_id`` (the evaluations comparable with each other) when given, as the
        server filters them. All of them, or ``limit`` from ``offset`` (a negative offset
        counts from the end: ``offset=-50`` the newest 50); ``.total`` says how many there
        are. A server that pages its lists sends only the page.
        chap-core (2.5.1) has no pages, and leaves the evaluations of its baseline models out
        of its list; there they are found from the ids its successful evaluation jobs stored
        (the jobs asked for by status and type, not every job), read one by one (a job's
        evaluation deleted since is not looked for again; a later job that stored an
        evaluation under the same id is). Where chap-core cannot list its evaluations because
        one's dataset was deleted, ``OrphanedRecordError`` names the broken ones and how to
        remove them."""
        limit, offset = page_arguments(limit, offset)
        params: list[tuple[str, int]] = []
        if dataset_id is not None:
            dataset_id = yield from self._id_of("dataset_id", dataset_id, DATASETS)
            params.append(("datasetId", dataset_id))
        if specification_id is not None:
            params.append(("specificationId", require_id("specification_id", specification_id)))
        routes = yield from self._server_routes()
        on_chap_core = (routes.version or "").startswith(CHAP_CORE_TITLE)
        page = (None, 0) if on_chap_core else (limit, offset)
        try:
            listed = yield from self._listing(list[Evaluation], LIST, *page, params)
        except ServerError as error:
            if not lost_dataset(error):
                raise
            raise orphaned_list(error, EVALUATIONS, (yield from self._orphans())) from None
        if not on_chap_core:
            return listed  # our service lists every evaluation
        listed_ids = {evaluation.id for evaluation in listed}
        unlisted: dict[int, list[str]] = {}
        for job_type in EVALUATION_JOB_TYPES:
            jobs = yield from self._jobs.list_jobs(status=vocabulary.SUCCESS, type=job_type)
            for job in jobs:  # the filters checked again: a server may ignore them
                if (
                    job.type == job_type
                    and job.status == vocabulary.SUCCESS
                    and job.result_id is not None
                    and job.result_id not in listed_ids
                    and job.id not in self._gone_jobs
                ):
                    unlisted.setdefault(job.result_id, []).append(job.id)
        references = []
        for evaluation_id, job_ids in sorted(unlisted.items()):
            try:
                found = yield from self.get_evaluation(evaluation_id)
            except NotFoundError:
                self._gone_jobs.update(job_ids)  # deleted since its jobs ran
                continue
            except OrphanedRecordError:
                continue  # its dataset deleted elsewhere: chap-core does not list it either
            if (dataset_id is None or found.dataset_id == dataset_id) and (
                specification_id is None or found.specification_id == specification_id
            ):
                references.append(found.model_copy(update={"reference": True}))
        return Listing.cut([*listed, *references], limit, offset)

    def get_evaluation(self, evaluation_id: int) -> Operation[Evaluation]:
        """One evaluation (its metrics, split periods, org units, ...). One whose dataset was
        deleted, which chap-core 2.5.1 cannot read, is an ``OrphanedRecordError`` saying so
        and how to remove it."""
        evaluation_id = require_id("evaluation_id", evaluation_id)
        path = f"/v1/crud/backtests/{evaluation_id}"
        if not (yield from self._lists(EVALUATION_BY_ID)):
            path += "/info"
        try:
            return (yield from self._get(Evaluation, path))
        except ServerError as error:
            if not lost_dataset(error):
                raise
            raise orphaned_record(error, EVALUATIONS, evaluation_id) from None

    def _orphans(self) -> Operation[list[tuple[int, str | None]]]:
        """The evaluations (id, name) whose dataset was deleted, which chap-core 2.5.1 cannot
        read: those its successful evaluation jobs stored that no list of an existing dataset
        holds and that cannot be read."""
        readable: set[int] = set()
        for dataset in (yield from self._get(list[StoredRecord], DATASETS.path)):
            params = {"datasetId": dataset.id}
            listed = yield from self._get(list[StoredRecord], "/v1/crud/backtests", params=params)
            readable.update(evaluation.id for evaluation in listed)
        jobs = yield from self._jobs.list_jobs()
        stored = newest_storing(job for job in jobs if job.type in EVALUATION_JOB_TYPES)
        unlisted = {record: job for record, job in stored.items() if record not in readable}
        return (yield from unreadable(unlisted, self.get_evaluation))

    def get_evaluation_full(
        self, evaluation_id: int, quantiles: Sequence[float] = DEFAULT_QUANTILES
    ) -> Operation[EvaluationDetail]:
        """The evaluation with its configuration, configured model, dataset and entries."""
        evaluation_id = require_id("evaluation_id", evaluation_id)
        path = f"/v1/crud/backtests/{evaluation_id}/full"
        return (yield from self._full(EvaluationDetail, path, quantiles, self.evaluation_entries))

    def job_evaluation_result(
        self, job_id: str, quantiles: Sequence[float] = DEFAULT_QUANTILES
    ) -> Operation[EvaluationDetail]:
        """The full evaluation a successful evaluation job created, with its entries."""
        path = job_path(job_id) + "/evaluation_result"
        return (yield from self._full(EvaluationDetail, path, quantiles, self.evaluation_entries))

    def update_evaluation(self, evaluation_id: int, name: str) -> Operation[Evaluation]:
        """Rename a stored evaluation (its one editable field)."""
        evaluation_id = require_id("evaluation_id", evaluation_id)
        body = {"name": require_name("name", name)}
        path = f"/v1/crud/backtests/{evaluation_id}"
        return (yield from self._call(Evaluation, "PATCH", path, json=body))

    def delete_evaluation(self, evaluation_id: int) -> Operation[None]:
        """Delete a stored evaluation."""
        evaluation_id = require_id("evaluation_id", evaluation_id)
        yield from self._request("DELETE", f"/v1/crud/backtests/{evaluation_id}")

    def delete_evaluations(self, evaluation_ids: Iterable[int]) -> Operation[list[int]]:
        """Delete several evaluations and return the deleted ids.

        On the embedded service nothing is deleted when any id is unknown (``NotFoundError``).
        chap-core 2.5.1 deletes the ids it knows, skips unknown ones silently and says only how
        many it deleted: when that is fewer than asked, the known ones are gone and
        ``NotFoundError`` says how many of the ids were unknown.
        """
        ids = list(dict.fromkeys(require_id("evaluation_ids[]", v) for v in evaluation_ids))
        if not ids:
            raise ArgumentError("evaluation_ids must name at least one evaluation")
        params = {"ids": ",".join(str(value) for value in ids)}
        path = "/v1/crud/backtests"
        response = yield from self._request("DELETE", path, params=params)
        payload = decode(response)
        deleted = validate(DeletedIds, payload, response)
        if "deletedIds" in payload or deleted.message is None:
            return deleted.deleted_ids
        count = deleted.count()
        if count is None:
            raise decode_failure(response, "neither deletedIds nor a count of deleted rows")
        if count < len(ids):
            raise NotFoundError(
                f"deleted {count} of the {len(ids)} evaluations {ids}; the server skips unknown "
                f"ids, so {len(ids) - count} of them did not exist",
                status_code=404,
                method="DELETE",
                url=str(response.request.url),
                body=response.text,
            )
        return ids

    def evaluation_entries(
        self,
        evaluation_id: int,
        quantiles: Sequence[float] = DEFAULT_QUANTILES,
        split_period: str | None = None,
        org_units: Iterable[str] | str | None = None,
    ) -> Operation[list[EvaluationEntry]]:
        """The forecast quantiles of an evaluation, optionally for one split period (named by
        its first forecast period, ``"2024-07"`` or ``"202407"``) and some org units, each given
        as its id or its place name (``"adm0"`` asks our service for the sum over all org
        units). A split or an org unit the evaluation does not have is an ``ArgumentError``
        before anything is sent (chap-core 2.5.1 would answer nothing)."""
        evaluation_id = require_id("evaluation_id", evaluation_id)
        record = RecordOnce(evaluation_id, self.get_evaluation)
        params = yield from self._entry_params(record, quantiles, split_period, org_units)
        path = "/v1/analytics/evaluation-entry"
        return (yield from self._get(list[EvaluationEntry], path, params=params))

    def evaluation_frame(
        self,
        evaluation_id: int,
        quantiles: Sequence[float] = DEFAULT_QUANTILES,
        split_period: str | None = None,
        org_units: Iterable[str] | str | None = None,
    ) -> Operation[pd.DataFrame]:
        """The evaluation entries as a tidy frame (see ``chaplab.frames.entries_to_frame``),
        with an ``org_unit_name`` column when the evaluation's dataset has a GeoJSON;
        ``split_period`` and ``org_units`` as for ``evaluation_entries``."""
        evaluation_id = require_id("evaluation_id", evaluation_id)
        record = RecordOnce(evaluation_id, self.get_evaluation)
        params = yield from self._entry_params(record, quantiles, split_period, org_units)
        path = "/v1/analytics/evaluation-entry"
        return (yield from self._entry_frame("evaluation", record, path, params))

    def actual_cases(
        self, evaluation_id: int, org_units: Iterable[str] | str | None = None
    ) -> Operation[pd.DataFrame]:
        """The observed cases an evaluation was scored against, as a frame
        (``org_unit``, ``period``, ``value``; ``org_unit_name`` after ``org_unit`` when the
        evaluation's dataset has a GeoJSON); ``org_units`` as for ``evaluation_entries``."""
        from chaplab.frames import actuals_to_frame

        evaluation_id = require_id("evaluation_id", evaluation_id)
        path = f"/v1/analytics/actual-cases/{evaluation_id}"
        older_only = not (yield from self._lists(ACTUAL_CASES)) and (
            yield from self._lists(OLDER_ACTUAL_CASES)
        )
        if older_only:
            path = f"/v1/analytics/actualCases/{evaluation_id}"
        record = RecordOnce(evaluation_id, self.get_evaluation)
        params = yield from self._org_unit_params("evaluation", record, org_units)
        names = yield from self._names.of_record((yield from record.read()))
        response = yield from self._request("GET", path, params=params)
        to_frame = self._names.add_to(actuals_to_frame, names)
        return (yield from convert(to_frame, response.content, response))

    def _entry_params(
        self,
        record: RecordOnce,
        quantiles: Sequence[float],
        split_period: str | None,
        org_units: Iterable[str] | str | None,
    ) -> Operation[list[tuple[str, Any]]]:
        """The query of an evaluation's entries: its id, the quantile levels, the split and the
        org units, checked against the evaluation (``_split_params``, ``_org_unit_params``)."""
        params: list[tuple[str, Any]] = [("backtestId", record.record_id)]
        params += quantile_params(quantiles)
        params += yield from self._split_params(record, split_period)
        params += yield from self._org_unit_params("evaluation", record, org_units)
        return params

    def _split_params(
        self, record: RecordOnce, split_period: str | None
    ) -> Operation[list[tuple[str, str]]]:
        """``split_period`` as the ``splitPeriod`` query parameter, spelled as the evaluation
        lists it. One the evaluation does not list (such as the last observed period, which
        named a split on our service before it named splits as chap-core does) is an
        ``ArgumentError`` naming its splits."""
        if split_period is None:
            return []
        text = require_name("split_period", split_period)
        found = yield from record.read()
        splits = list(found.split_periods) if found is not None else []
        if not splits:
            return [("splitPeriod", text)]
        try:
            wanted = vocabulary.canonical_period(text)
        except ValueError:
            raise ArgumentError(f"split_period: {text!r} is not a period") from None
        for split in splits:
            if vocabulary.canonical_period(split) == wanted:
                return [("splitPeriod", split)]
        raise ArgumentError(
            f"split_period: {text!r} is not a split of evaluation {record.record_id}; its splits "
            f"are {', '.join(splits)}, each named by its first forecast period"
        )

    def evaluation_overlap(self, first_id: int, second_id: int) -> Operation[EvaluationOverlap]:
        """The org units, split periods and forecast periods two evaluations share."""
        first_id = require_id("first_id", first_id)
        second_id = require_id("second_id", second_id)
        path = f"/v1/analytics/backtest-overlap/{first_id}/{second_id}"
        overlap = yield from self._get(EvaluationOverlap, path)
        if not overlap.backtest_ids:
            overlap = overlap.model_copy(update={"backtest_ids": [first_id, second_id]})
        return overlap

    def compatible_evaluations(self, evaluation_id: int) -> Operation[list[Evaluation]]:
        """Other evaluations on the same dataset whose split periods and org units overlap."""
        evaluation_id = require_id("evaluation_id", evaluation_id)
        path = f"/v1/analytics/compatible-backtests/{evaluation_id}"
        return (yield from self._get(list[Evaluation], path))

    def metrics_csv(self, evaluation_id: int | None = None) -> Operation[str]:
        """Metrics of every evaluation (or one) as CSV text: one row per evaluation and metric.
        chap-core 2.5.1 writes one evaluation's metrics per org unit, period and horizon, and
        has no CSV of every evaluation (``UnsupportedRouteError`` without an id)."""
        if evaluation_id is None:
            routes = yield from self._server_routes()
            if routes.requires_query(ALL_METRICS_CSV, "backtestId"):
                raise routes.unsupported(ALL_METRICS_CSV)
            params = {}
        else:
            params = {"backtestId": require_id("evaluation_id", evaluation_id)}
        response = yield from self._request("GET", "/v1/crud/metric/csv", params=params)
        return response.text


def _evaluation_body(name: str, model: str | Any, **counts: int | None) -> dict[str, Any]:
    """An evaluation's body, checked, but for its ``datasetId`` (a dataset's name is looked
    up once the other arguments are found right)."""
    return {
        "name": require_name("name", name),
        "modelId": model_name(model),
        **plan_body(**counts),
    }
