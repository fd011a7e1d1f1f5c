"""Jobs: the work the service runs in the background (evaluations, predictions, dataset
builds), their statuses, logs and results, and waiting for one to stop."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

import httpx
from pydantic import Field, field_validator

from chaplab import vocabulary
from chaplab.client._capabilities import Route
from chaplab.client._errors import (
    ArgumentTypeError,
    ChapDecodeError,
    ChapHTTPError,
    ConflictError,
    JobFailedError,
    JobTimeoutError,
    NotFoundError,
    error_from_response,
)
from chaplab.client._plumbing import (
    Listing,
    Resource,
    checked,
    decode,
    decode_failure,
    require_name,
    require_timeout,
    validate,
)
from chaplab.client._polling import PollSchedule, StatusChanges
from chaplab.client._steps import Now, Operation, Sleep
from chaplab.client._wire import NullableDict, SnakeModel, UtcDatetime, WireModel

MAX_SERVER_WAIT = 10  # seconds asked for with ``Prefer: wait=N`` per status request
LISTING_WAIT = 10.0  # seconds a job list may lag behind the job's status route
CANCEL_CONFIRMATION_WAIT = 5.0  # seconds a cancel waits for the job's status to say it stopped
RECHECK_INTERVAL = 0.25  # seconds between two reads while waiting for either

# -- wire models -----------------------------------------------------------------------------


class Job(SnakeModel):
    """A job as described by ``GET /v1/jobs`` (snake_case on the wire).

    ``status`` is upper-cased. ``result`` is the text the server gives (for evaluation and
    prediction jobs the created row's id); ``result_id`` is that id as an int, when it is one.
    """

    id: str
    type: str | None = None
    name: str | None = None
    status: str = vocabulary.PENDING
    start_time: UtcDatetime | None = None
    end_time: UtcDatetime | None = None
    result: str | None = None
    error: str | None = None

    @field_validator("id", "result", mode="before")
    @classmethod
    def _as_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value

    @field_validator("status", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        return vocabulary.normalize_status(value) if isinstance(value, str) else value

    @property
    def result_id(self) -> int | None:
        """The result as an integer id, or ``None`` when there is none or it is not an integer."""
        if self.result is None:
            return None
        try:
            return int(self.result.strip())
        except ValueError:
            return None

    @property
    def is_terminal(self) -> bool:
        """True once the job has stopped (successfully or not)."""
        return vocabulary.is_terminal_status(self.status)

    @property
    def succeeded(self) -> bool:
        """True when the job ended with ``SUCCESS``."""
        return self.status == vocabulary.SUCCESS


class JobRef(WireModel):
    """The reference returned when work is submitted: the job's id."""

    id: str

    @field_validator("id", mode="before")
    @classmethod
    def _as_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int) else value

    def pending_job(self, job_type: str, name: str | None) -> Job:
        """The job just submitted, as a ``Job`` with status ``PENDING``."""
        return Job(id=self.id, type=job_type, name=name, status=vocabulary.PENDING)


class JobResult(WireModel):
    """The row a successful job created: ``result_type`` is ``backtest``, ``prediction`` or
    ``dataset``; ``row`` is its wire form."""

    job_id: str
    result_type: str
    id: int
    row: NullableDict[Any] = Field(default_factory=dict)


class JobCancellation(WireModel):
    """What a cancel request achieved: ``status`` is the job's status as its status route
    (``GET /v1/jobs/{id}``) tells it after the request, ``message`` the server's answer.

    ``cancelled`` only when that status is ``REVOKED``; ``may_still_run`` while it is not final
    (chap-core 2.5.1 answers "cancelled" but its worker finishes a job it has started). A job
    that ended otherwise (``SUCCESS``, ``FAILURE``) was not stopped by the request.
    """

    job_id: str
    status: str
    message: str | None = None

    @property
    def cancelled(self) -> bool:
        """True when the server reports the job revoked."""
        return self.status == vocabulary.REVOKED

    @property
    def may_still_run(self) -> bool:
        """True while the job has not stopped: the request may not stop it."""
        return not vocabulary.is_terminal_status(self.status)

    def __repr__(self) -> str:
        if self.cancelled:
            outcome = "cancelled"
        elif self.may_still_run:
            outcome = "cancel requested, but the job may still run"
        else:
            outcome = "not cancelled: the job had already ended"
        return f"JobCancellation(job {self.job_id!r}: {outcome}; status {self.status})"

    __str__ = __repr__


# -- operations ------------------------------------------------------------------------------

LIST = Route("list_jobs", "GET", "/v1/jobs", "list_jobs()")
JOB_REQUEST = Route(
    "job_request",
    "GET",
    "/v1/jobs/{job_id}/request",
    "get_job(job_id) for the job's name, type and result (this server keeps no request)",
)


class Jobs(Resource):
    """``/v1/jobs``: list, inspect, cancel, delete and wait for jobs."""

    def job_status(self, job_id: str) -> Operation[str]:
        """The job's status string, upper-cased (``GET /v1/jobs/{id}`` answers only that)."""
        response = yield from self._request("GET", job_path(job_id))
        return _status_from(response)

    def list_jobs(
        self,
        status: str | None = None,
        type: str | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> Operation[Listing[Job]]:
        """The jobs on record, newest first: all of them, or those of one ``status`` (such as
        ``"SUCCESS"``) and ``type`` (such as ``"create_backtest"``), as the server filters
        them; ``limit`` from ``offset`` (a negative offset counts from the end). ``.total``
        says how many match. A server that pages its lists sends only the page."""
        params = [("status", require_name("status", status).upper())] if status else []
        if type is not None:
            params.append(("type", require_name("type", type)))
        return (yield from self._listing(list[Job], LIST, limit, offset, params))

    def get_job(self, job_id: str) -> Operation[Job]:
        """The job with its status, result and error, found in ``GET /v1/jobs``.

        Raises ``NotFoundError`` when the id is not on record.
        """
        job_id = require_job_id(job_id)
        return (yield from self._listed_job(job_id))

    def job_logs(self, job_id: str) -> Operation[str]:
        """The job's output streams as text (``GET /v1/jobs/{id}/logs``)."""
        response = yield from self._request("GET", job_path(job_id) + "/logs")
        if "json" in response.headers.get("content-type", ""):
            payload = decode(response)
            return payload if isinstance(payload, str) else json.dumps(payload, indent=2)
        return response.text

    def job_request(self, job_id: str) -> Operation[dict[str, Any]]:
        """The request body the job was submitted with, as sent (``GET
        /v1/jobs/{id}/request``), e.g. to rerun it or to see a failed job's parameters."""
        job_id = require_job_id(job_id)
        return (yield from self._call_route(dict[str, Any], JOB_REQUEST, job_id))

    def cancel_job(self, job_id: str) -> Operation[JobCancellation]:
        """Ask the service to cancel a job (``POST /v1/jobs/{id}/cancel``) and report what the
        job's status then is: ``cancelled`` only when the server says ``REVOKED``, otherwise
        ``may_still_run`` (also in its repr). chap-core 2.5.1 answers "cancelled" to every
        request, revokes a queued job a moment later and lets a started one finish: its status
        is read for up to a few seconds until it stops. A job that has already stopped is a
        ``ConflictError`` on every server (chap-core 2.5.1 answers 400 there)."""
        response = yield from self._send("POST", job_path(job_id) + "/cancel")
        if response.status_code == 400:
            error = error_from_response(response)
            raise ConflictError(
                error.message,
                status_code=error.status_code,
                method=error.method,
                url=error.url,
                body=error.body,
                problem=error.problem,
            )
        answer = decode(checked(response))
        answer = answer if isinstance(answer, dict) else {}
        message = answer.get("message")
        status = answer.get("status")
        if isinstance(status, str):
            status = vocabulary.normalize_status(status)
        else:
            status = yield from self._status_once_stopped(job_id, CANCEL_CONFIRMATION_WAIT)
        return JobCancellation(
            job_id=job_id, status=status, message=message if isinstance(message, str) else None
        )

    def _status_once_stopped(self, job_id: str, patience: float) -> Operation[str]:
        """The job's status from its status route, read again every ``RECHECK_INTERVAL`` s
        until it is final or ``patience`` seconds have passed."""
        start: float = yield Now()
        while True:
            status = yield from self.job_status(job_id)
            now: float = yield Now()
            if vocabulary.is_terminal_status(status) or now - start >= patience:
                return status
            yield Sleep(RECHECK_INTERVAL)

    def delete_job(self, job_id: str) -> Operation[None]:
        """Delete a finished job's entry (``DELETE /v1/jobs/{id}``)."""
        yield from self._request("DELETE", job_path(job_id))

    def job_database_result(self, job_id: str) -> Operation[JobResult]:
        """The row a successful job created; ``ConflictError`` (with the reason) when the job has
        not succeeded. Where the server answers only ``{"id": N}`` (chap-core 2.5.1) the
        ``result_type`` comes from the job's type and ``row`` is empty."""
        response = yield from self._request("GET", job_path(job_id) + "/database_result")
        payload = decode(response)
        if isinstance(payload, dict) and "resultType" not in payload:
            job = yield from self._listed_job_or_none(job_id)
            kind = result_type(job.type if job is not None else None)
            payload = {"jobId": job_id, "resultType": kind, **payload}
        return validate(JobResult, payload, response)

    def job_created_id(self, job: Job | str) -> Operation[int]:
        """The id of the row (evaluation, prediction, dataset) a successful job created, from
        the job or its id: the job's result where that is the id, else its database result
        (``job_database_result``; chap-core 2.5.1's results are not always the id).
        ``ConflictError`` with the reason when the job has not succeeded."""
        if isinstance(job, str):
            job = yield from self.get_job(job)
        elif not isinstance(job, Job):
            raise ArgumentTypeError(
                f"job must be a Job or a job id string, got {type(job).__name__} {job!r}"
            )
        if job.result_id is not None:
            return job.result_id
        created = yield from self.job_database_result(job.id)
        return created.id

    def wait_for_job(
        self,
        job_id: str,
        timeout: float | None = None,
        poll_interval: float | None = None,
        on_status: Callable[[str], object] | None = None,
    ) -> Operation[Job]:
        """Wait until the job stops; return it on ``SUCCESS``.

        Polls the status, asking the server to hold the answer (``Prefer: wait=N``) and
        otherwise following an adaptive schedule (or every ``poll_interval`` seconds), then
        reads the finished job from the job list. An id the status route answers 404 for is
        ``NotFoundError`` at once; a job still ``PENDING`` is looked for in the job list once
        (some servers call any id ``PENDING``, forever). Raises ``JobFailedError`` (status,
        error, logs) for any other terminal status and ``JobTimeoutError`` after ``timeout``
        seconds; the job keeps running. No wait, for the job list either, lasts past
        ``timeout``.

        ``on_status(status)`` is called with the upper-cased status each time it changes (the
        first status seen included, the final one before returning or raising). It runs on the
        caller's thread, or on the event loop for ``AsyncChapClient``, between two requests, so
        it must be quick; an exception it raises ends the wait and propagates.
        """
        job_id = require_job_id(job_id)
        timeout = require_timeout(timeout)
        schedule = PollSchedule(fixed=poll_interval)
        changes = StatusChanges(on_status)
        start: float = yield Now()
        deadline = None if timeout is None else start + timeout
        status = yield from self._poll_until_terminal(job_id, start, timeout, schedule, changes)
        if status == vocabulary.SUCCESS:
            return (yield from self._listed_success(job_id, deadline))
        listed = yield from self._listed_job_or_none(job_id)
        logs = yield from self._logs_or_none(job_id)
        error = listed.error if listed is not None else None
        raise JobFailedError(job_id, status, job=listed, error=error, logs=logs)

    def _poll_until_terminal(
        self,
        job_id: str,
        start: float,
        timeout: float | None,
        schedule: PollSchedule,
        changes: StatusChanges,
    ) -> Operation[str]:
        """Read the job's status until it is terminal, or ``JobTimeoutError`` ``timeout``
        seconds after ``start`` (a time of ``Now()``). The first time it reads ``PENDING`` the
        job list is asked once whether the job is on record, since some servers answer any id
        that way."""
        status: str | None = None
        confirmed = False
        deadline = None if timeout is None else start + timeout
        while True:
            before: float = yield Now()
            remaining = None if deadline is None else deadline - before
            wait = MAX_SERVER_WAIT if remaining is None else int(min(MAX_SERVER_WAIT, remaining))
            headers = {"Prefer": f"wait={wait}"} if wait >= 1 else None
            try:
                response = yield from self._request(
                    "GET", job_path(job_id), headers=headers, extra_read_timeout=float(wait)
                )
            except NotFoundError:
                raise self._not_on_record(job_id, f"GET {job_path(job_id)} answers 404") from None
            previous, status = status, _status_from(response)
            changes.seen(status)
            if vocabulary.is_terminal_status(status):
                return status
            if status == vocabulary.PENDING and not confirmed:
                yield from self._listed_job_once_queued(job_id, deadline)
                confirmed = True
            after: float = yield Now()
            if timeout is not None and deadline is not None and after >= deadline:
                raise JobTimeoutError(job_id, status, timeout)
            held = wait >= 1 and "wait" in response.headers.get("Preference-Applied", "")
            if held and (status != previous or after - before >= wait / 2):
                continue
            interval = schedule.next_interval(after - start)
            if deadline is not None:
                interval = min(interval, deadline - after)
            yield Sleep(interval)

    def _listed_success(self, job_id: str, deadline: float | None) -> Operation[Job]:
        """The succeeded job as ``GET /v1/jobs`` lists it, with its result. chap-core 2.5.1
        writes its job list a moment after its status route says ``SUCCESS``: the list is read
        again for up to ``LISTING_WAIT`` seconds (never past ``deadline``), then
        ``ChapDecodeError`` says it never caught up."""
        start: float = yield Now()
        give_up = _earlier(start + LISTING_WAIT, deadline)
        while True:
            listed = yield from self._listed_job(job_id)
            if listed.succeeded:
                return listed
            now: float = yield Now()
            if now >= give_up:
                url = self._builder.url("/v1/jobs")
                raise ChapDecodeError(
                    f"job {job_id!r} succeeded (GET {job_path(job_id)} says SUCCESS) but "
                    f"GET /v1/jobs still lists it {listed.status} after {now - start:g} s, "
                    "without its result: read get_job(job_id) again later",
                    method="GET",
                    url=url,
                    body=listed.model_dump_json(),
                )
            yield Sleep(min(RECHECK_INTERVAL, give_up - now))

    def _listed_job_or_none(self, job_id: str) -> Operation[Job | None]:
        """The job as ``GET /v1/jobs?ids=<id>`` lists it (chap-core 2.5.1 and this service
        list that job alone; a server that ignores ``ids`` lists every job), or None."""
        jobs = yield from self._get(list[Job], "/v1/jobs", params=[("ids", job_id)])
        return next((job for job in jobs if job.id == job_id), None)

    def _listed_job(self, job_id: str) -> Operation[Job]:
        job = yield from self._listed_job_or_none(job_id)
        if job is None:
            raise self._not_on_record(job_id)
        return job

    def _listed_job_once_queued(self, job_id: str, deadline: float | None) -> Operation[Job]:
        """The job as ``GET /v1/jobs`` lists it, for a job that may have been queued a moment
        ago: chap-core 2.5.1 lists a job a little after answering the request that queued it.
        A job missing from the list is asked of its status route, which answers 404 for a job
        the server never had; a job the route knows is looked for in the list again for up to
        ``LISTING_WAIT`` s, never past ``deadline`` (an older chap-core's route calls any id
        PENDING); ``NotFoundError`` when it is not listed by then."""
        job = yield from self._listed_job_or_none(job_id)
        if job is not None:
            return job
        try:
            yield from self.job_status(job_id)
        except NotFoundError:
            raise self._not_on_record(job_id) from None
        start: float = yield Now()
        give_up = _earlier(start + LISTING_WAIT, deadline)
        while job is None:
            now: float = yield Now()
            if now >= give_up:
                raise self._not_on_record(
                    job_id,
                    f"GET /v1/jobs does not list it after {now - start:g} s, while its status "
                    "route says PENDING, as some servers answer for any id",
                )
            yield Sleep(min(RECHECK_INTERVAL, give_up - now))
            job = yield from self._listed_job_or_none(job_id)
        return job

    def _not_on_record(
        self, job_id: str, why: str = "GET /v1/jobs does not list it"
    ) -> NotFoundError:
        return NotFoundError(
            f"job {job_id!r} is not on record ({why})",
            status_code=404,
            method="GET",
            url=self._builder.url(job_path(job_id)),
        )

    def _logs_or_none(self, job_id: str) -> Operation[str | None]:
        try:
            return (yield from self.job_logs(job_id))
        except (ChapHTTPError, ChapDecodeError):
            return None


def newest_storing(jobs: Iterable[Job]) -> dict[int, Job]:
    """Of ``jobs``, the newest successful one that stored each row id (its ``result_id``): a
    server that gives a deleted row's id again (chap-core 2.5.1) has several jobs per id."""
    newest: dict[int, Job] = {}
    for job in jobs:
        if not job.succeeded or job.result_id is None:
            continue
        known = newest.get(job.result_id)
        if known is None or _started(job) > _started(known):
            newest[job.result_id] = job
    return newest


def _started(job: Job) -> datetime:
    return job.start_time or datetime.min.replace(tzinfo=UTC)


def _earlier(first: float, deadline: float | None) -> float:
    """``first``, or ``deadline`` when that comes sooner."""
    return first if deadline is None else min(first, deadline)


def require_job_id(job_id: Any) -> str:
    """A job id argument (a non-empty string), checked."""
    if not isinstance(job_id, str) or not job_id.strip():
        raise ArgumentTypeError(f"job_id must be the job's id string, got {job_id!r}")
    return job_id


def job_path(job_id: str) -> str:
    """``/v1/jobs/{id}`` with the id checked and quoted."""
    return f"/v1/jobs/{quote(require_job_id(job_id), safe='')}"


def result_type(job_type: str | None) -> str:
    """What kind of row a job of ``job_type`` creates, on either server's words: ``backtest``,
    ``prediction``, ``dataset``, or the job type itself when it names none of them."""
    text = (job_type or "").lower()
    for kind in ("backtest", "prediction", "dataset"):
        if kind in text:
            return kind
    return job_type or "unknown"


def _status_from(response: httpx.Response) -> str:
    payload = decode(response)
    if isinstance(payload, dict):
        payload = payload.get("status")
    if not isinstance(payload, str):
        raise decode_failure(response, f"a job status that is not a string: {payload!r}")
    return vocabulary.normalize_status(payload)
