"""Every endpoint of the modeling service, written once as a sans-IO operation.

Each public method of :class:`Operations` is a generator that yields steps (see ``_steps``)
and returns the parsed result; ``ChapClient`` and ``AsyncChapClient`` drive the same
generators, so the two APIs cannot drift apart. Methods marked with :func:`operation` become
public client methods of the same name, signature and docstring.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache, partial
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import quote

import httpx
from pydantic import TypeAdapter, ValidationError

from chaplab.client._errors import (
    ChapDecodeError,
    ChapHTTPError,
    JobFailedError,
    JobTimeoutError,
    NotFoundError,
    error_from_response,
    public_url,
    scrub,
)
from chaplab.client._models import (
    ConfiguredModelWithDataSource,
    Dataset,
    Evaluation,
    EvaluationEntry,
    Health,
    Job,
    JobRef,
    ModelSpec,
    ModelTemplate,
    PredictionEntry,
    PredictionRequest,
    SystemInfo,
)
from chaplab.client._polling import PollSchedule, StatusChanges
from chaplab.client._steps import (
    Compute,
    Now,
    Operation,
    RequestBuilder,
    RetryPolicy,
    Sleep,
    send_with_retry,
)
from chaplab.vocabulary import DEFAULT_QUANTILES, SUCCESS, is_terminal_status, normalize_status

if TYPE_CHECKING:
    import pandas as pd

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])

MAX_SERVER_WAIT = 10  # seconds asked for with ``Prefer: wait=N`` per status request
_OPERATION_MARK = "__chap_operation__"


def operation(function: F) -> F:
    """Mark a method of :class:`Operations` as a public client method."""
    setattr(function, _OPERATION_MARK, True)
    return function


def public_operations() -> dict[str, Callable[..., Operation[Any]]]:
    """The public operations by name, in definition order."""
    return {
        name: member
        for name, member in vars(Operations).items()
        if getattr(member, _OPERATION_MARK, False)
    }


class Operations:
    """The endpoints of the modeling service as generators of steps."""

    def __init__(self, builder: RequestBuilder, retry: RetryPolicy) -> None:
        self._builder = builder
        self._retry = retry

    # -- system ---------------------------------------------------------------------------

    @operation
    def system_info(self) -> Operation[SystemInfo]:
        """Service version, server time zone and more (``GET /system/info``)."""
        return (yield from self._get(SystemInfo, "/system/info"))

    @operation
    def health(self) -> Operation[Health]:
        """The liveness probe (``GET /health``)."""
        return (yield from self._get(Health, "/health"))

    # -- datasets -------------------------------------------------------------------------

    @operation
    def list_datasets(self) -> Operation[list[Dataset]]:
        """All stored datasets."""
        return (yield from self._get(list[Dataset], "/v1/crud/datasets"))

    @operation
    def get_dataset(self, dataset_id: int) -> Operation[Dataset]:
        """One dataset, with its ``observations``."""
        dataset_id = _require_id("dataset_id", dataset_id)
        return (yield from self._get(Dataset, f"/v1/crud/datasets/{dataset_id}"))

    @operation
    def create_dataset(
        self,
        name: str,
        frame: pd.DataFrame,
        geojson: Mapping[str, Any] | None = None,
        type: str = "evaluation",
    ) -> Operation[Dataset]:
        """Store a dataset from a wide frame of observations.

        ``frame`` has columns ``time_period``, ``location`` and one column per feature
        (see ``chaplab.frames.frame_to_observations``); ``type`` is ``"evaluation"`` or
        ``"prediction"``. Returns the stored dataset.
        """
        from chaplab.frames import frame_to_observations

        name = _require_name("name", name)
        if type not in ("evaluation", "prediction"):
            raise ValueError(f"type must be 'evaluation' or 'prediction', got {type!r}")
        body = {
            "name": name,
            "type": type,
            "geojson": dict(geojson) if geojson is not None else None,
            "providedData": frame_to_observations(frame),
            "dataSources": [],
        }
        return (yield from self._call(Dataset, "POST", "/v1/crud/datasets", json=body))

    # -- models ---------------------------------------------------------------------------

    @operation
    def list_model_templates(self) -> Operation[list[ModelTemplate]]:
        """All model templates; their ids are the valid ``model_template_id`` values."""
        return (yield from self._get(list[ModelTemplate], "/v1/crud/model-templates"))

    @operation
    def list_models(self) -> Operation[list[ModelSpec]]:
        """The merged model list (``/v1/crud/models``).

        Newer servers dropped that route; on a 404 the configured-model list is returned.
        """
        response = yield from self._send("GET", "/v1/crud/models")
        if response.status_code == 404:
            return (yield from self.list_configured_models())
        return _parse(list[ModelSpec], _checked(response))

    @operation
    def list_configured_models(self) -> Operation[list[ModelSpec]]:
        """All configured models."""
        return (yield from self._get(list[ModelSpec], "/v1/crud/configured-models"))

    @operation
    def create_configured_model(
        self,
        name: str,
        model_template_id: int,
        user_option_values: Mapping[str, Any] | None = None,
    ) -> Operation[ModelSpec]:
        """Configure a model template with option values and store it.

        The stored record's name is ``{template_name}:{name}`` (``default`` maps to the bare
        template name), so it differs from ``name``: use the returned record's ``name`` when
        creating evaluations. Creating an existing name returns the existing record.
        """
        name = _require_name("name", name)
        model_template_id = _require_id("model_template_id", model_template_id)
        body = {
            "name": name,
            "modelTemplateId": model_template_id,
            "userOptionValues": dict(user_option_values or {}),
            "additionalContinuousCovariates": [],
        }
        return (yield from self._call(ModelSpec, "POST", "/v1/crud/configured-models", json=body))

    @operation
    def list_configured_models_with_data_source(
        self,
    ) -> Operation[list[ConfiguredModelWithDataSource]]:
        """All configured models bundled with data sources (used for predictions)."""
        path = "/v1/crud/configured-models-with-data-source"
        return (yield from self._get(list[ConfiguredModelWithDataSource], path))

    @operation
    def get_configured_model_with_data_source(
        self, configured_model_with_data_source_id: int
    ) -> Operation[ConfiguredModelWithDataSource]:
        """One configured model with data source."""
        record_id = _require_id(
            "configured_model_with_data_source_id", configured_model_with_data_source_id
        )
        path = f"/v1/crud/configured-models-with-data-source/{record_id}"
        return (yield from self._get(ConfiguredModelWithDataSource, path))

    @operation
    def create_configured_model_with_data_source_from_evaluation(
        self, evaluation_id: int
    ) -> Operation[ConfiguredModelWithDataSource]:
        """Derive a configured model with data source from an evaluation's model and dataset."""
        evaluation_id = _require_id("evaluation_id", evaluation_id)
        path = f"/v1/crud/configured-models-with-data-source/from-backtest/{evaluation_id}"
        return (yield from self._call(ConfiguredModelWithDataSource, "POST", path))

    # -- evaluations ----------------------------------------------------------------------

    @operation
    def create_evaluation(
        self,
        name: str,
        model: str | Any,
        dataset_id: int,
        n_periods: int | None = None,
        n_splits: int | None = None,
        stride: int | None = None,
    ) -> Operation[Job]:
        """Start an evaluation (a backtest) of a configured model on a dataset.

        ``model`` is the configured model's NAME (``"naive_model:weekly"``) or an object with a
        ``.name`` (a ``ModelSpec``). Returns the job (status ``PENDING``); see ``wait_for_job``
        and ``run_evaluation``.
        """
        body: dict[str, Any] = {
            "name": _require_name("name", name),
            "modelId": _model_name(model),
            "datasetId": _require_id("dataset_id", dataset_id),
        }
        for field, wire, value in (
            ("n_periods", "nPeriods", n_periods),
            ("n_splits", "nSplits", n_splits),
            ("stride", "stride", stride),
        ):
            if value is not None:
                body[wire] = _require_id(field, value, minimum=1)
        ref = yield from self._call(JobRef, "POST", "/v1/analytics/create-backtest", json=body)
        return Job(id=ref.id, type="create_backtest", name=body["name"], status="PENDING")

    @operation
    def run_evaluation(
        self,
        name: str,
        model: str | Any,
        dataset_id: int,
        n_periods: int | None = None,
        n_splits: int | None = None,
        stride: int | None = None,
        timeout: float | None = None,
        poll_interval: float | None = None,
        on_status: Callable[[str], object] | None = None,
    ) -> Operation[Evaluation]:
        """Create an evaluation, wait for its job and return the stored evaluation.

        Raises ``JobFailedError`` when the job fails and ``JobTimeoutError`` after ``timeout``
        seconds (the job keeps running). ``on_status`` hears of each new job status, as in
        ``wait_for_job``.
        """
        job = yield from self.create_evaluation(
            name, model, dataset_id, n_periods=n_periods, n_splits=n_splits, stride=stride
        )
        done = yield from self.wait_for_job(
            job.id, timeout=timeout, poll_interval=poll_interval, on_status=on_status
        )
        if done.result_id is None:
            raise ChapDecodeError(
                f"evaluation job {job.id!r} succeeded but its result {done.result!r} is not an "
                "evaluation id",
                method="GET",
                url=self._builder.url("/v1/jobs"),
                body=done.model_dump_json(),
            )
        return (yield from self.get_evaluation(done.result_id))

    @operation
    def list_evaluations(self) -> Operation[list[Evaluation]]:
        """All stored evaluations."""
        return (yield from self._get(list[Evaluation], "/v1/crud/backtests"))

    @operation
    def get_evaluation(self, evaluation_id: int) -> Operation[Evaluation]:
        """One evaluation (its metrics, split periods, org units, ...)."""
        evaluation_id = _require_id("evaluation_id", evaluation_id)
        return (yield from self._get(Evaluation, f"/v1/crud/backtests/{evaluation_id}/info"))

    @operation
    def delete_evaluation(self, evaluation_id: int) -> Operation[None]:
        """Delete a stored evaluation."""
        evaluation_id = _require_id("evaluation_id", evaluation_id)
        yield from self._request("DELETE", f"/v1/crud/backtests/{evaluation_id}")

    @operation
    def evaluation_entries(
        self,
        evaluation_id: int,
        quantiles: Sequence[float] = DEFAULT_QUANTILES,
        split_period: str | None = None,
        org_units: Iterable[str] | str | None = None,
    ) -> Operation[list[EvaluationEntry]]:
        """The forecast quantiles of an evaluation, optionally for one split period and some
        org units (``"adm0"`` asks for the sum over all org units)."""
        params = _entry_params(evaluation_id, quantiles, split_period, org_units)
        path = "/v1/analytics/evaluation-entry"
        return (yield from self._get(list[EvaluationEntry], path, params=params))

    @operation
    def evaluation_frame(
        self,
        evaluation_id: int,
        quantiles: Sequence[float] = DEFAULT_QUANTILES,
        split_period: str | None = None,
        org_units: Iterable[str] | str | None = None,
    ) -> Operation[pd.DataFrame]:
        """The evaluation entries as a tidy frame (see ``chaplab.frames.entries_to_frame``)."""
        from chaplab.frames import entries_to_frame

        params = _entry_params(evaluation_id, quantiles, split_period, org_units)
        response = yield from self._request("GET", "/v1/analytics/evaluation-entry", params=params)
        to_frame = partial(entries_to_frame, with_split_period=True)  # an empty answer too
        return (yield from _convert(to_frame, response.content, response))

    @operation
    def actual_cases(
        self, evaluation_id: int, org_units: Iterable[str] | str | None = None
    ) -> Operation[pd.DataFrame]:
        """The observed cases an evaluation was scored against, as a frame
        (``org_unit``, ``period``, ``value``)."""
        from chaplab.frames import actuals_to_frame

        evaluation_id = _require_id("evaluation_id", evaluation_id)
        params = [("orgUnits", unit) for unit in _org_units(org_units)]
        path = f"/v1/analytics/actualCases/{evaluation_id}"
        response = yield from self._request("GET", path, params=params)
        return (yield from _convert(actuals_to_frame, response.content, response))

    # -- predictions ----------------------------------------------------------------------

    @operation
    def make_prediction(self, request: PredictionRequest | Mapping[str, Any]) -> Operation[Job]:
        """Start a prediction; ``request`` is a ``PredictionRequest`` or a dict (either
        spelling). Returns the job (status ``PENDING``); its result is the prediction id."""
        model = (
            request
            if isinstance(request, PredictionRequest)
            else PredictionRequest.model_validate(request)
        )
        path = "/v1/analytics/make-prediction-with-data-source"
        ref = yield from self._call(JobRef, "POST", path, json=model.to_wire())
        return Job(id=ref.id, type="create_prediction", name=model.name, status="PENDING")

    @operation
    def prediction_entries(
        self, prediction_id: int, quantiles: Sequence[float] = DEFAULT_QUANTILES
    ) -> Operation[list[PredictionEntry]]:
        """The forecast quantiles of a prediction."""
        prediction_id = _require_id("prediction_id", prediction_id)
        params = [("quantiles", q) for q in _quantiles(quantiles)]
        path = f"/v1/analytics/prediction-entry/{prediction_id}"
        return (yield from self._get(list[PredictionEntry], path, params=params))

    @operation
    def prediction_frame(
        self, prediction_id: int, quantiles: Sequence[float] = DEFAULT_QUANTILES
    ) -> Operation[pd.DataFrame]:
        """The prediction entries as a tidy frame (see ``chaplab.frames.entries_to_frame``)."""
        from chaplab.frames import entries_to_frame

        prediction_id = _require_id("prediction_id", prediction_id)
        params = [("quantiles", q) for q in _quantiles(quantiles)]
        path = f"/v1/analytics/prediction-entry/{prediction_id}"
        response = yield from self._request("GET", path, params=params)
        to_frame = partial(entries_to_frame, with_split_period=False)
        return (yield from _convert(to_frame, response.content, response))

    # -- jobs -----------------------------------------------------------------------------

    @operation
    def job_status(self, job_id: str) -> Operation[str]:
        """The job's status string, upper-cased (``GET /v1/jobs/{id}`` answers only that)."""
        response = yield from self._request("GET", _job_path(job_id))
        return _status_from(response)

    @operation
    def list_jobs(self) -> Operation[list[Job]]:
        """All jobs on record."""
        return (yield from self._get(list[Job], "/v1/jobs"))

    @operation
    def get_job(self, job_id: str) -> Operation[Job]:
        """The job with its status, result and error, found in ``GET /v1/jobs``.

        Raises ``NotFoundError`` when the id is not on record.
        """
        job_id = _require_job_id(job_id)
        return (yield from self._listed_job(job_id))

    @operation
    def job_logs(self, job_id: str) -> Operation[str]:
        """The job's output streams as text (``GET /v1/jobs/{id}/logs``)."""
        response = yield from self._request("GET", _job_path(job_id) + "/logs")
        if "json" in response.headers.get("content-type", ""):
            payload = _decode(response)
            return payload if isinstance(payload, str) else json.dumps(payload, indent=2)
        return response.text

    @operation
    def cancel_job(self, job_id: str) -> Operation[None]:
        """Ask the service to cancel a running job (``POST /v1/jobs/{id}/cancel``)."""
        yield from self._request("POST", _job_path(job_id) + "/cancel")

    @operation
    def delete_job(self, job_id: str) -> Operation[None]:
        """Delete a finished job's entry (``DELETE /v1/jobs/{id}``)."""
        yield from self._request("DELETE", _job_path(job_id))

    @operation
    def wait_for_job(
        self,
        job_id: str,
        timeout: float | None = None,
        poll_interval: float | None = None,
        on_status: Callable[[str], object] | None = None,
    ) -> Operation[Job]:
        """Wait until the job stops; return it on ``SUCCESS``.

        First confirms the id is on record (``NotFoundError`` otherwise: some servers answer an
        unknown id with ``PENDING`` forever), then polls the status, asking the server to hold
        the answer (``Prefer: wait=N``) and otherwise following an adaptive schedule (or every
        ``poll_interval`` seconds). Raises ``JobFailedError`` (status, error, logs) for any other
        terminal status and ``JobTimeoutError`` after ``timeout`` seconds; the job keeps running.

        ``on_status(status)`` is called with the upper-cased status each time it changes (the
        first status seen included, the final one before returning or raising). It runs on the
        caller's thread, or on the event loop for ``AsyncChapClient``, between two requests, so
        it must be quick; an exception it raises ends the wait and propagates.
        """
        job_id = _require_job_id(job_id)
        if timeout is not None and not timeout > 0:
            raise ValueError(f"timeout must be > 0 seconds or None, got {timeout!r}")
        schedule = PollSchedule(fixed=poll_interval)
        changes = StatusChanges(on_status)
        listed: Job | None = yield from self._listed_job(job_id)
        status = listed.status
        changes.seen(status)
        if not is_terminal_status(status):
            status = yield from self._poll_until_terminal(
                job_id, status, timeout, schedule, changes
            )
            listed = None
        if status == SUCCESS:
            job = listed or (yield from self._listed_job(job_id))
            return job if job.is_terminal else job.model_copy(update={"status": status})
        if listed is None:
            listed = yield from self._listed_job_or_none(job_id)
        logs = yield from self._logs_or_none(job_id)
        error = listed.error if listed is not None else None
        raise JobFailedError(job_id, status, job=listed, error=error, logs=logs)

    # -- building blocks ------------------------------------------------------------------

    def _poll_until_terminal(
        self,
        job_id: str,
        status: str,
        timeout: float | None,
        schedule: PollSchedule,
        changes: StatusChanges,
    ) -> Operation[str]:
        start: float = yield Now()
        deadline = None if timeout is None else start + timeout
        while True:
            before: float = yield Now()
            remaining = None if deadline is None else deadline - before
            wait = MAX_SERVER_WAIT if remaining is None else int(min(MAX_SERVER_WAIT, remaining))
            headers = {"Prefer": f"wait={wait}"} if wait >= 1 else None
            response = yield from self._request(
                "GET", _job_path(job_id), headers=headers, extra_read_timeout=float(wait)
            )
            previous, status = status, _status_from(response)
            changes.seen(status)
            if is_terminal_status(status):
                return status
            after: float = yield Now()
            if deadline is not None and after >= deadline:
                raise JobTimeoutError(job_id, status, float(timeout or 0))
            held = wait >= 1 and "wait" in response.headers.get("Preference-Applied", "")
            if held and (status != previous or after - before >= wait / 2):
                continue
            interval = schedule.next_interval(after - start)
            if deadline is not None:
                interval = min(interval, deadline - after)
            yield Sleep(interval)

    def _listed_job_or_none(self, job_id: str) -> Operation[Job | None]:
        jobs = yield from self.list_jobs()
        return next((job for job in jobs if job.id == job_id), None)

    def _listed_job(self, job_id: str) -> Operation[Job]:
        job = yield from self._listed_job_or_none(job_id)
        if job is None:
            raise NotFoundError(
                f"job {job_id!r} is not on record (GET /v1/jobs does not list it)",
                status_code=404,
                method="GET",
                url=self._builder.url(_job_path(job_id)),
            )
        return job

    def _logs_or_none(self, job_id: str) -> Operation[str | None]:
        try:
            return (yield from self.job_logs(job_id))
        except (ChapHTTPError, ChapDecodeError):
            return None

    def _send(
        self,
        method: str,
        path: str,
        *,
        params: Any = None,
        json: Any = None,
        headers: Mapping[str, str] | None = None,
        extra_read_timeout: float = 0.0,
    ) -> Operation[httpx.Response]:
        request = self._builder.build(
            method, path, params=params, json=json, headers=headers,
            extra_read_timeout=extra_read_timeout,
        )
        return (yield from send_with_retry(request, self._retry))

    def _request(self, method: str, path: str, **kwargs: Any) -> Operation[httpx.Response]:
        response = yield from self._send(method, path, **kwargs)
        return _checked(response)

    def _call(self, shape: Any, method: str, path: str, **kwargs: Any) -> Operation[Any]:
        response = yield from self._request(method, path, **kwargs)
        return _parse(shape, response)

    def _get(self, shape: Any, path: str, **kwargs: Any) -> Operation[Any]:
        return (yield from self._call(shape, "GET", path, **kwargs))


# -- response handling --------------------------------------------------------------------


def _checked(response: httpx.Response) -> httpx.Response:
    if response.is_error:
        raise error_from_response(response)
    return response


def _decode_failure(response: httpx.Response, what: str) -> ChapDecodeError:
    request = response.request
    return ChapDecodeError(
        scrub(f"{request.method} {request.url.path} answered {what}", request),
        method=request.method,
        url=public_url(request.url),
        body=response.text[:2000],
    )


def _decode(response: httpx.Response) -> Any:
    try:
        return json.loads(response.content)
    except ValueError as exc:
        raise _decode_failure(response, f"a body that is not valid JSON ({exc})") from exc


@cache
def _adapter(shape: Any) -> TypeAdapter[Any]:
    return TypeAdapter(shape)


def _parse(shape: Any, response: httpx.Response) -> Any:
    payload = _decode(response)
    try:
        return _adapter(shape).validate_python(payload)
    except ValidationError as exc:
        raise _decode_failure(response, f"JSON of an unexpected shape: {exc}") from exc


def _convert(
    converter: Callable[[Any], T], payload: Any, response: httpx.Response
) -> Operation[T]:
    """``converter(payload)`` as a ``Compute`` step (off the event loop for the async client);
    a ``ValueError`` becomes a ``ChapDecodeError`` naming the request."""
    try:
        return (yield Compute(converter, (payload,)))
    except ValueError as exc:
        raise _decode_failure(response, f"data that cannot be turned into a frame: {exc}") from exc


def _status_from(response: httpx.Response) -> str:
    payload = _decode(response)
    if isinstance(payload, dict):
        payload = payload.get("status")
    if not isinstance(payload, str):
        raise _decode_failure(response, f"a job status that is not a string: {payload!r}")
    return normalize_status(payload)


# -- argument checks ----------------------------------------------------------------------


def _require_id(field: str, value: Any, minimum: int = 0) -> int:
    """An integer argument (an id, or a count with ``minimum=1``), checked."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{field} must be an int, got {type(value).__name__} {value!r}")
    if value < minimum:
        raise ValueError(f"{field} must be >= {minimum}, got {value}")
    return value


def _require_name(field: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{field} must be a non-empty string, got {value!r}")
    return value


def _require_job_id(job_id: Any) -> str:
    if not isinstance(job_id, str) or not job_id.strip():
        raise TypeError(f"job_id must be the job's id string, got {job_id!r}")
    return job_id


def _job_path(job_id: str) -> str:
    return f"/v1/jobs/{quote(_require_job_id(job_id), safe='')}"


def _model_name(model: Any) -> str:
    if isinstance(model, int):
        raise TypeError(
            f"model must be the configured model's NAME (e.g. 'naive_model:weekly') or an object "
            f"with .name, got the int {model!r}: the service identifies the model by name on the "
            "wire (modelId), and the id from /v1/crud/models is not a valid template id either"
        )
    name = model if isinstance(model, str) else getattr(model, "name", None)
    if not isinstance(name, str) or not name.strip():
        raise TypeError(
            f"model must be a configured model name or an object with a .name, got {model!r}"
        )
    return name


def _quantiles(quantiles: Sequence[float]) -> list[float]:
    values = [quantiles] if isinstance(quantiles, (int, float)) else list(quantiles)
    if not values:
        raise ValueError("quantiles must name at least one quantile")
    for q in values:
        if isinstance(q, bool) or not isinstance(q, (int, float)) or not 0 <= q <= 1:
            raise ValueError(f"quantiles must be numbers between 0 and 1, got {q!r}")
    return [float(q) for q in values]


def _org_units(org_units: Iterable[str] | str | None) -> list[str]:
    if org_units is None:
        return []
    units = [org_units] if isinstance(org_units, str) else list(org_units)
    for unit in units:
        if not isinstance(unit, str) or not unit:
            raise ValueError(f"org_units must be org unit id strings, got {unit!r}")
    return units


def _entry_params(
    evaluation_id: int,
    quantiles: Sequence[float],
    split_period: str | None,
    org_units: Iterable[str] | str | None,
) -> list[tuple[str, Any]]:
    params: list[tuple[str, Any]] = [("backtestId", _require_id("evaluation_id", evaluation_id))]
    params += [("quantiles", q) for q in _quantiles(quantiles)]
    if split_period is not None:
        params.append(("splitPeriod", _require_name("split_period", split_period)))
    params += [("orgUnits", unit) for unit in _org_units(org_units)]
    return params
