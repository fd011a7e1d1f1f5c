"""The client's error hierarchy, rooted at :class:`ChapError`.

HTTP errors are built from a response by :func:`error_from_response`, which understands both
RFC 9457 problem details (``application/problem+json``) and the ``{"detail": ...}`` bodies that
other servers send. Messages name the method, the path and what went wrong, never credentials:
:func:`scrub` takes the request's credentials out of any text a message quotes.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

import httpx

from chaplab.client._job_failures import failure_reason

# the root and the argument errors live in chaplab.errors, which every layer may raise from
from chaplab.errors import FULL_TRACEBACKS_VARIABLE as FULL_TRACEBACKS_VARIABLE
from chaplab.errors import ArgumentError as ArgumentError
from chaplab.errors import ArgumentTypeError as ArgumentTypeError
from chaplab.errors import ChapError as ChapError
from chaplab.errors import full_tracebacks_wanted as full_tracebacks_wanted
from chaplab.vocabulary import REVOKED

if TYPE_CHECKING:
    from chaplab.client._jobs import Job

_MAX_BODY_IN_MESSAGE = 300
SECRET_HEADERS = "chaplab.secret_headers"
"""Request extension naming the headers that carry a secret, besides the usual credentials."""
_CREDENTIAL_HEADERS = ("authorization", "proxy-authorization", "cookie")
_REDACTED = "[redacted]"


class ChapConnectionError(ChapError):
    """The service could not be reached, or the connection broke before an answer arrived."""


class ChapTimeoutError(ChapConnectionError):
    """A request (or a wait) took longer than its time limit."""


class ChapDecodeError(ChapError):
    """The service answered with a body that is not the JSON the client expected.

    Raised for truncated or invalid JSON and for JSON of the wrong shape, so that a caller never
    receives partial data.
    """

    def __init__(self, message: str, *, method: str, url: str, body: str) -> None:
        super().__init__(message)
        self.method = method
        self.url = url
        self.body = body


class ChapHTTPError(ChapError):
    """The service answered with an error status (4xx or 5xx).

    Attributes: ``status_code``; ``message`` (the readable text: the problem's ``detail`` or the
    body's ``detail``); ``body`` (the raw body text); ``problem`` (the parsed JSON body, a dict,
    or ``None``); ``method`` and ``url`` of the request.
    """

    def __init__(
        self,
        message: str,
        *,
        status_code: int,
        method: str,
        url: str,
        body: str = "",
        problem: dict[str, Any] | None = None,
    ) -> None:
        self.status_code = status_code
        self.message = message
        self.body = body
        self.problem = problem
        self.method = method
        self.url = url
        path = httpx.URL(url).path if url else ""
        super().__init__(f"{method} {path} failed with HTTP {status_code}: {message}")


def with_hint(error: ChapHTTPError, hint: str) -> ChapHTTPError:
    """``error`` with ``hint`` (e.g. ``did you mean 'naive_model'?``) ending its message."""
    error.message = f"{error.message}; {hint}"
    error.args = (f"{error.args[0]}; {hint}",)
    return error


class AuthenticationError(ChapHTTPError):
    """401: the API key (or gateway credentials) is missing or not accepted."""


class PermissionDeniedError(AuthenticationError):
    """403: the credentials are valid but not allowed to do this.

    A subclass of :class:`AuthenticationError`, so ``except AuthenticationError`` catches both.
    """


class NotFoundError(ChapHTTPError):
    """404: the resource (dataset, model, evaluation, job, route) does not exist."""


class ConflictError(ChapHTTPError):
    """409: the request conflicts with the stored state."""


def conflict_before_sending(message: str, *, method: str, url: str) -> ConflictError:
    """The ``ConflictError`` of a request the client refuses before sending it, having found
    the conflict itself (a rule chap-core 2.5.1 does not keep): the 409 the request deserves,
    whose message is ``message`` alone, as nothing was sent."""
    error = ConflictError(message, status_code=409, method=method, url=url)
    error.args = (message,)
    return error


class UnprocessableEntityError(ChapHTTPError):
    """422: the request was understood but its content is invalid.

    ``errors`` holds the field problems, each a dict (usually with ``loc``, ``msg``, ``type``).
    """

    def __init__(self, message: str, *, errors: list[dict[str, Any]] | None = None, **kw: Any):
        super().__init__(message, **kw)
        self.errors: list[dict[str, Any]] = errors or []


class ServerError(ChapHTTPError):
    """5xx: the service failed while handling the request."""


class OrphanedRecordError(ServerError):
    """A server error that chap-core 2.5.1 answers for a record whose dataset was deleted
    (it deletes a dataset that evaluations or predictions use, and then cannot read them):
    the message says which records are broken and how to remove them, in one sentence.

    Attributes: ``kind`` (``"evaluation"`` or ``"prediction"``), ``ids`` (the broken records
    found; empty when the client could not tell which), and those of ``ServerError``.
    """

    def __init__(self, sentence: str, *, kind: str, ids: list[int], cause: ChapHTTPError):
        super().__init__(
            sentence,
            status_code=cause.status_code,
            method=cause.method,
            url=cause.url,
            body=cause.body,
            problem=cause.problem,
        )
        self.args = (sentence,)
        self.kind = kind
        self.ids = ids


_LOST_DATASET = re.compile(
    r"\bdataset\b[\s\S]{0,300}?(?:'input': None|input_value=None)"
    r"|'NoneType' object has no attribute 'observations'"
)
"""How chap-core 2.5.1's 500 reads when a record's dataset is gone: its answer's ``dataset``
fails validation as ``None``, or a chart finds no observations."""


def lost_dataset(error: ChapHTTPError) -> bool:
    """Whether ``error`` is a server's failure on a record whose dataset was deleted."""
    said = (error.problem or {}).get("error")
    text = said if isinstance(said, str) else error.body
    return error.status_code >= 500 and _LOST_DATASET.search(text) is not None


class JobFailedError(ChapError):
    """A job reached a terminal status other than ``SUCCESS``.

    Its message is the ``reason``, one sentence: the last exception's text, and for a job a
    model service failed, the service and the step (``model service 'scaled-mean' at
    http://...: predict: ValueError: ...``). ``details`` holds all the server said: the
    ``error`` text as it came (with any traceback) and the job's ``logs``
    (``client.job_logs(job_id)`` reads them again). Also carries the ``job`` (as listed by
    ``GET /v1/jobs``, or ``None`` when the list lacks it) and the upper-cased ``status``.
    """

    def __init__(
        self, job_id: str, status: str, *, job: Job | None, error: str | None, logs: str | None
    ) -> None:
        self.job_id = job_id
        self.job = job
        self.status = status
        self.error = error
        self.logs = logs
        ended = "was cancelled" if status == REVOKED else f"ended with status {status}"
        self.reason = failure_reason(error, logs) or f"job {job_id!r} {ended}"
        super().__init__(self.reason)

    @property
    def details(self) -> str:
        """Everything the server said of the failure: the error text (with its traceback)
        and the job's log, each where there is one."""
        said = [text.strip() for text in (self.error, self.logs) if text and text.strip()]
        return "\n\n".join(said) or self.reason

    def _short_traceback(self) -> list[str]:
        return [
            f"{type(self).__name__}: {self}",
            f"(the job's error and log: .details, or client.job_logs({self.job_id!r}))",
        ]


class JobTimeoutError(ChapTimeoutError):
    """``wait_for_job`` gave up after its timeout; the job itself keeps running on the server."""

    def __init__(self, job_id: str, last_status: str, timeout: float) -> None:
        self.job_id = job_id
        self.last_status = last_status
        self.timeout = timeout
        super().__init__(
            f"job {job_id!r} did not finish within {timeout:g} s (last status {last_status}); "
            "the job keeps running on the server, wait again or check it later"
        )


class NameResolutionError(ChapError, ValueError):
    """A name given where an id is asked (``dataset_id="my districts"``) that names no record,
    or more than one. Raised before anything is sent with it, and never retried: asking again
    gets the same answer.

    Attributes: ``argument`` (the argument as the caller typed it), ``name`` (the name given),
    ``ids`` (the ids of the records that share the name; empty when none has it).
    """

    def __init__(self, message: str, *, argument: str, name: str, ids: list[int]) -> None:
        super().__init__(message)
        self.argument = argument
        self.name = name
        self.ids = ids


class UnsupportedRouteError(ChapError):
    """The server lacks the route a method needs (another server version, or a server that
    never had it). Raised before sending when the server's ``/openapi.json`` does not list the
    route, or when the route itself answers that it does not exist (``405``, or a bare ``404
    Not Found``).

    Attributes: ``operation`` (the client method), ``method`` and ``path`` of the route,
    ``server_version`` (``None`` when the server does not say), ``alternative`` (what to call
    instead).
    """

    def __init__(
        self,
        *,
        operation: str,
        method: str,
        path: str,
        server_version: str | None,
        alternative: str,
        from_openapi: bool,
    ) -> None:
        self.operation = operation
        self.method = method
        self.path = path
        self.server_version = server_version
        self.alternative = alternative
        server = f"this server ({server_version})" if server_version else "this server"
        how = "its /openapi.json does not list it" if from_openapi else "the route answered so"
        super().__init__(
            f"{operation}() needs {method} {path}, which {server} does not offer ({how}). "
            f"Instead: {alternative}"
        )


_BY_STATUS: dict[int, type[ChapHTTPError]] = {
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    422: UnprocessableEntityError,
}


def public_url(url: httpx.URL) -> str:
    """The URL as text without any user name or password embedded in it."""
    return str(url.copy_with(username=None, password=None)) if url.userinfo else str(url)


def _secrets_of(request: httpx.Request) -> list[str]:
    """The credentials a request carries: its key and credential headers, its URL password."""
    names = (*_CREDENTIAL_HEADERS, *request.extensions.get(SECRET_HEADERS, ()))
    values = [value for name in names for value in request.headers.get_list(name)]
    return [value for value in (*values, request.url.password) if value]


def scrub(text: str, request: httpx.Request) -> str:
    """``text`` with every credential of ``request`` replaced, also in its escaped forms
    (``b'...'`` reprs), so that quoting a transport error or a body cannot leak a key."""
    forms = {
        form
        for secret in _secrets_of(request)
        for form in (secret, repr(secret)[1:-1], repr(secret.encode())[2:-1])
    }
    for form in sorted(forms, key=len, reverse=True):
        text = text.replace(form, _REDACTED)
    return text


_PAGE_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)


def not_a_service(response: httpx.Response) -> str | None:
    """One sentence saying that the server is no modeling service when it answered a request
    with a web page (``text/html``, as JupyterLab's own address does), naming the page by its
    title; None for any other answer, and for a server error (a gateway's error page stands in
    front of a service). The page itself is never quoted."""
    content_type = response.headers.get("content-type", "").lower()
    if "text/html" not in content_type or response.status_code >= 500:
        return None
    body = response.text
    title = _PAGE_TITLE.search(body)
    page = " ".join(title.group(1).split()) if title else ""
    named = f"the web page {page[:80]!r}" if page else "a web page"
    server = response.request.url.copy_with(path="/", query=None, fragment=None)
    return (
        f"{public_url(server).rstrip('/')} is not a CHAP modeling service: it answered with "
        f"{named}, not the service's JSON; check the URL given to the client"
    )


def error_from_response(response: httpx.Response) -> ChapHTTPError:
    """Build the fitting :class:`ChapHTTPError` subclass for an error response; a web page
    is named as such in one sentence (:func:`not_a_service`), never quoted."""
    status = response.status_code
    body = response.text
    parsed = _parse_json(body)
    problem = parsed if isinstance(parsed, dict) else None
    errors = _field_problems(problem)
    readable = not_a_service(response) if problem is None else None
    if readable is None:
        readable = _readable_message(problem, errors, body, response.reason_phrase)
    message = scrub(readable, response.request)
    cls = _BY_STATUS.get(status, ServerError if status >= 500 else ChapHTTPError)
    kwargs: dict[str, Any] = dict(
        status_code=status,
        method=response.request.method,
        url=public_url(response.request.url),
        body=body,
        problem=problem,
    )
    if cls is UnprocessableEntityError:
        return UnprocessableEntityError(message, errors=errors, **kwargs)
    return cls(message, **kwargs)


def _parse_json(body: str) -> Any:
    try:
        return json.loads(body) if body else None
    except ValueError:
        return None


def _field_problems(problem: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Field problems from a problem's ``errors`` or a ``{"detail": [...]}`` body."""
    if problem is None:
        return []
    for key in ("errors", "detail"):
        value = problem.get(key)
        if isinstance(value, list):
            return [item if isinstance(item, dict) else {"msg": str(item)} for item in value]
    return []


ARGUMENT_NAMES: dict[str, str] = {
    "datasetId": "dataset_id",
    "modelId": "model",
    "modelIds": "models",
    "modelTemplateId": "model_template_id",
    "userOptionValues": "user_option_values",
    "configuredModelWithDataSourceId": "configured_model_with_data_source_id",
    "providedData": "frame",
    "nPeriods": "n_periods",
    "nSplits": "n_splits",
    "nRetrain": "n_retrain",
    "backtestId": "evaluation_id",
    "predictionId": "prediction_id",
    "splitPeriod": "split_period",
    "orgUnits": "org_units",
    "targetColumn": "target_column",
    "includeComparisonModels": "include_comparison_models",
    "csvFile": "csv",
    "geojsonFile": "geojson",
}
"""Wire field -> the argument of the client's methods that carries it, so that an error speaks
of what the caller typed (``dataset_id``, not ``datasetId``)."""
_WIRE_NAME = re.compile(r"\b(" + "|".join(sorted(ARGUMENT_NAMES, key=len, reverse=True)) + r")\b")


def speak_arguments(text: str) -> str:
    """``text`` with each wire field name replaced by the argument name a caller typed."""
    return _WIRE_NAME.sub(lambda match: ARGUMENT_NAMES[match.group(1)], text)


def _field_of(item: dict[str, Any]) -> str:
    loc = item.get("loc")
    return ".".join(str(part) for part in loc if part != "body") if isinstance(loc, list) else ""


def _describe_field_problem(item: dict[str, Any]) -> str:
    where = _field_of(item)
    msg = str(item.get("msg") or item.get("message") or item)
    return speak_arguments(f"{where}: {msg}" if where else msg)


def _said_in(item: dict[str, Any], text: str) -> bool:
    """Whether ``text`` (the problem's detail) already names the field of ``item``."""
    where = _field_of(item)
    return bool(where) and f"{where}:" in text


def _readable_message(
    problem: dict[str, Any] | None, errors: list[dict[str, Any]], body: str, reason: str
) -> str:
    if problem is not None:
        detail = problem.get("detail")
        text = str(detail if isinstance(detail, str) and detail else problem.get("title") or "")
        parts = [speak_arguments(text)] if text else []
        unsaid = [item for item in errors if not _said_in(item, text)]
        if unsaid:
            parts.append("; ".join(_describe_field_problem(item) for item in unsaid))
        extra = problem.get("error")
        if isinstance(extra, str) and extra:
            kind = problem.get("type")
            parts.append(f"{kind}: {extra}" if isinstance(kind, str) and kind else extra)
        if parts:
            return " - ".join(parts)
    text = body.strip()
    if not text:
        return reason or "no details given"
    return text if len(text) <= _MAX_BODY_IN_MESSAGE else text[:_MAX_BODY_IN_MESSAGE] + "..."
