"""What every resource module builds on: the request builder, the ``Resource`` base class that
sends requests and reads answers, and the checks of arguments shared by several endpoints.

Every name here is meant to be imported by the resource modules (``_datasets``, ``_jobs``, ...).
"""

from __future__ import annotations

import difflib
import json
import sys
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar, Unpack

import httpx
import orjson
from pydantic import TypeAdapter, ValidationError

from chaplab._secrets import key_prefix
from chaplab.client._capabilities import (
    Route,
    RouteCache,
    ServerRoutes,
    read_openapi,
    route_missing,
    version_from_system_info,
)
from chaplab.client._errors import (
    SECRET_HEADERS,
    ArgumentError,
    ArgumentTypeError,
    ChapDecodeError,
    ChapError,
    ChapHTTPError,
    NameResolutionError,
    error_from_response,
    not_a_service,
    public_url,
    scrub,
    with_hint,
)
from chaplab.client._steps import Compute, Operation, RetryPolicy, send_with_retry
from chaplab.client._wire import StoredRecord
from chaplab.vocabulary import PLAN_SETTINGS, BacktestPlan

if TYPE_CHECKING:
    import pandas as pd

    from chaplab.jsonrows import Rows

T = TypeVar("T")
Params = Mapping[str, Any] | Sequence[tuple[str, Any]]
Files = Mapping[str, tuple[str, bytes, str]]
"""Multipart files: form field -> (file name, content, content type)."""


class RequestOptions(TypedDict, total=False):
    """What a request may carry besides its method and path."""

    params: Params | None
    json: Any
    files: Files | None
    data: Mapping[str, str] | None
    headers: Mapping[str, str] | None
    extra_read_timeout: float


# -- building requests -----------------------------------------------------------------------


def mask_key(api_key: str | None) -> str | None:
    """The shown part of a key (see ``key_prefix``) and ``...``, for reprs and messages."""
    return None if api_key is None else key_prefix(api_key) + "..."


def check_api_key(api_key: object) -> None:
    """Refuse a key that cannot go in a header as it is. A key read from a file often ends in a
    newline, and the HTTP library would quote the whole value in its error; so the key is
    checked here, and the message names the problem, never the key."""
    if api_key is None:
        return
    if not isinstance(api_key, str) or not api_key.strip():
        raise ArgumentError("api_key must be a non-empty string or None")
    if api_key != api_key.strip():
        raise ArgumentError(
            "api_key has surrounding whitespace (a trailing newline from a file?); strip it"
        )
    if not all(" " <= char <= "~" for char in api_key):
        raise ArgumentError(
            "api_key holds a control or non-ASCII character, which an HTTP header cannot carry"
        )


def normalize_prefix(prefix: str) -> str:
    """``"chap/"`` -> ``"/chap"``; ``""`` and ``"/"`` -> ``""``."""
    stripped = prefix.strip().strip("/")
    return f"/{stripped}" if stripped else ""


def encode_body(value: Any) -> bytes:
    """A request body as JSON bytes. numpy numbers and arrays (option values and coordinates
    taken from a frame) are written as plain numbers and lists; NaN is written as null, which
    JSON can carry, where ``json.dumps`` would write a ``NaN`` no JSON parser accepts."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SERIALIZE_NUMPY)
    except orjson.JSONEncodeError as error:
        raise TypeError(f"the request body cannot be written as JSON: {error}") from None


class ChunkedJson(httpx.SyncByteStream, httpx.AsyncByteStream):
    """A JSON body sent as the pieces it was written in, never joined into one copy: a
    country's observations are 56 MB, which a join would hold twice."""

    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = chunks
        self.length = sum(map(len, chunks))

    @classmethod
    def of(cls, value: Any) -> ChunkedJson | None:
        """An object with a member of :class:`chaplab.jsonrows.Rows` (a frame's observations),
        written with that member last; None for any other body."""
        jsonrows = sys.modules.get("chaplab.jsonrows")  # no rows exist before it is imported
        if jsonrows is None or not isinstance(value, dict):
            return None
        found = [(key, item) for key, item in value.items() if isinstance(item, jsonrows.Rows)]
        if not found:
            return None
        if len(found) > 1:
            raise TypeError("a request body holds at most one member of rows")
        key, rows = found[0]
        rest = encode_body({name: item for name, item in value.items() if name != key})
        head = rest[:-1] + (b"," if len(rest) > 2 else b"") + orjson.dumps(key) + b":"
        return cls([head, *rows.chunks(), b"}"])

    def __iter__(self) -> Iterator[bytes]:
        yield from self.chunks

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self.chunks:
            yield chunk


class RequestBuilder:
    """Builds every request: base URL + proxy prefix + path, the key header, the time limit,
    and the body (JSON, or a multipart form of files and fields)."""

    def __init__(
        self,
        base_url: str,
        *,
        proxy_prefix: str = "",
        api_key: str | None = None,
        api_key_header: str = "X-API-Key",
        timeout: float | httpx.Timeout | None = 30.0,
    ) -> None:
        url = httpx.URL(base_url)
        if url.scheme not in ("http", "https") or not url.host:
            shown = public_url(url)
            raise ArgumentError(f"base_url must be an http(s) URL with a host, got {shown!r}")
        check_api_key(api_key)
        if not api_key_header:
            raise ArgumentError("api_key_header must be a header name, got an empty value")
        self.base_url = str(url).rstrip("/")
        self.proxy_prefix = normalize_prefix(proxy_prefix)
        self.api_key_header = api_key_header
        self._headers = {"Accept": "application/json"}
        self._extensions: dict[str, Any] = {}
        if api_key is not None:
            self._headers[api_key_header] = api_key
            self._extensions[SECRET_HEADERS] = (api_key_header,)
        self.key_prefix = mask_key(api_key)
        self.timeout = timeout if isinstance(timeout, httpx.Timeout) else httpx.Timeout(timeout)

    def url(self, path: str) -> str:
        """The full URL of an API path (``/v1/...``), with the proxy prefix."""
        return f"{self.base_url}{self.proxy_prefix}{path}"

    def build(self, method: str, path: str, **options: Unpack[RequestOptions]) -> httpx.Request:
        """A ready-to-send request. ``json`` is sent as a JSON body; ``files`` and ``data`` as a
        multipart form (httpx writes its content type and boundary). ``extra_read_timeout``
        lengthens the read limit (long polls)."""
        json, files, data = options.get("json"), options.get("files"), options.get("data")
        extra_read_timeout = options.get("extra_read_timeout", 0.0)
        if json is not None and (files or data):
            raise ValueError("a request has a JSON body or a multipart form, not both")
        timeout = self.timeout
        if extra_read_timeout and timeout.read is not None:
            timeout = httpx.Timeout(
                connect=timeout.connect,
                read=timeout.read + extra_read_timeout,
                write=timeout.write,
                pool=timeout.pool,
            )
        chunked = ChunkedJson.of(json)
        body_headers = {} if json is None else {"Content-Type": "application/json"}
        headers = {**self._headers, **body_headers, **(options.get("headers") or {})}
        extensions = {**self._extensions, "timeout": timeout.as_dict()}
        if chunked is not None:  # a stream of our own: the headers httpx adds for content
            url = httpx.URL(self.url(path), params=_query(options.get("params")))
            headers.update(
                {"Host": url.netloc.decode("ascii"), "Content-Length": str(chunked.length)}
            )
            return httpx.Request(
                method, url, headers=headers, stream=chunked, extensions=extensions
            )
        return httpx.Request(
            method,
            self.url(path),
            params=_query(options.get("params")),
            content=None if json is None else encode_body(json),
            files=dict(files) if files else None,
            data=dict(data) if data else None,
            headers=headers,
            extensions=extensions,
        )


def _query(params: Params | None) -> list[tuple[str, Any]] | None:
    if params is None:
        return None
    return list(params.items()) if isinstance(params, Mapping) else list(params)


class Listing(list[T]):
    """Records as a list operation answers them: the page asked for (every record when no
    page was asked), and ``total``, how many records the whole list holds."""

    def __init__(self, items: Iterable[T], total: int) -> None:
        super().__init__(items)
        self.total = total

    def __repr__(self) -> str:
        return f"Listing({list.__repr__(self)}, total={self.total})"

    @classmethod
    def cut(cls, whole: Sequence[T], limit: int | None, offset: int) -> Listing[T]:
        """The page of a whole list (a negative ``offset`` counts from its end)."""
        start = offset if offset >= 0 else max(0, len(whole) + offset)
        return cls(whole[start : None if limit is None else start + limit], len(whole))


TOTAL_COUNT = "X-Total-Count"
"""The answer header in which a server that pages its lists gives the whole list's count."""


# -- sending and reading ---------------------------------------------------------------------


class Resource:
    """The base of each resource's operations: sends requests built by the shared builder with
    the shared retry policy, and reads the answers.

    Each public method a subclass defines is an operation: a generator of steps (see
    ``_steps``) that ``ChapClient`` and ``AsyncChapClient`` expose under the same name.
    """

    def __init__(self, builder: RequestBuilder, retry: RetryPolicy, routes: RouteCache) -> None:
        self._builder = builder
        self._retry = retry
        self._routes = routes

    def _send(
        self, method: str, path: str, **options: Unpack[RequestOptions]
    ) -> Operation[httpx.Response]:
        """Send with retries; the last response, whatever its status."""
        request = self._builder.build(method, path, **options)
        return (yield from send_with_retry(request, self._retry))

    def _request(
        self, method: str, path: str, **options: Unpack[RequestOptions]
    ) -> Operation[httpx.Response]:
        """Send; an error status raises the matching ``ChapHTTPError``."""
        response = yield from self._send(method, path, **options)
        return checked(response)

    def _call(
        self, shape: type[T], method: str, path: str, **options: Unpack[RequestOptions]
    ) -> Operation[T]:
        """Send and parse the JSON answer as ``shape`` (a model or a type such as
        ``list[Dataset]``)."""
        response = yield from self._request(method, path, **options)
        return parse(shape, response)

    def _get(self, shape: type[T], path: str, **options: Unpack[RequestOptions]) -> Operation[T]:
        """``GET`` and parse the answer as ``shape``."""
        return (yield from self._call(shape, "GET", path, **options))

    def _listing(
        self,
        shape: type[list[T]],
        route: Route,
        limit: int | None,
        offset: int,
        params: Sequence[tuple[str, Any]] = (),
    ) -> Operation[Listing[T]]:
        """A page of ``route``'s list (``shape``, such as ``list[Dataset]``): ``limit`` records
        from ``offset`` (a negative offset counts from the end, as in a Python slice), asked of
        a server that pages the list (its ``/openapi.json`` gives the route ``limit`` and
        ``offset``), else cut from the whole list; every record without a page."""
        limit, offset = page_arguments(limit, offset)
        paged = limit is not None or offset != 0
        if not paged or not (yield from self._server_routes()).pages(route):
            whole = yield from self._call(shape, "GET", route.path, params=list(params))
            return Listing.cut(whole, limit, offset)
        if offset < 0:
            first = yield from self._request_route(route, params=[*params, ("limit", 1)])
            offset = max(0, _total(first) + offset)
        window = [("offset", offset)] + ([] if limit is None else [("limit", limit)])
        response = yield from self._request_route(route, params=[*params, *window])
        return Listing(parse(shape, response), _total(response))

    def _server_routes(self) -> Operation[ServerRoutes]:
        """What the server offers, from its ``/openapi.json`` (read once per client). Where
        that is hidden, its version comes from ``/system/info`` and routes are asked directly."""
        cached = self._routes.current
        if cached is not None:
            return cached
        response = yield from self._send("GET", "/openapi.json")
        routes = read_openapi(response)
        if routes is None:
            if response.status_code >= 500:
                return ServerRoutes()  # a passing failure: ask again next time
            info = yield from self._send("GET", "/system/info")
            routes = ServerRoutes(version=version_from_system_info(info))
        self._routes.current = routes
        return routes

    def _lists(self, route: Route) -> Operation[bool]:
        """Whether the server's ``/openapi.json`` lists ``route`` (False where it cannot be
        read): an operation with two spellings of one route sends the newer where it is
        listed and the older, which every server has, otherwise."""
        routes = yield from self._server_routes()
        return routes.known and routes.offers(route)

    def _offered(self, route: Route) -> Operation[ServerRoutes]:
        """The server's routes; ``UnsupportedRouteError`` when they lack ``route``."""
        routes = yield from self._server_routes()
        if not routes.offers(route):
            raise routes.unsupported(route)
        return routes

    def _request_route(
        self, route: Route, *path_values: str | int, **options: Unpack[RequestOptions]
    ) -> Operation[httpx.Response]:
        """Send ``route`` (its path parameters filled with ``path_values``, in order) where the
        server offers it; ``UnsupportedRouteError`` where it does not."""
        routes = yield from self._offered(route)
        response = yield from self._send(route.method, route.path_for(*path_values), **options)
        if not routes.known and route_missing(response):
            raise routes.unsupported(route)
        return checked(response)

    def _call_route(
        self,
        shape: type[T],
        route: Route,
        *path_values: str | int,
        **options: Unpack[RequestOptions],
    ) -> Operation[T]:
        """``_request_route`` and parse the answer as ``shape``."""
        response = yield from self._request_route(route, *path_values, **options)
        return parse(shape, response)

    def _suggesting_model(self, operation: Operation[T], model: str) -> Operation[T]:
        """Run ``operation``, which sends the configured model's name ``model``. When the
        server refuses the request's content (400, 404, 422) and no configured model has that
        name, the error ends in "did you mean" and the closest names the server lists
        (``naive_model`` for ``naive_modle``). Other errors pass unchanged."""
        try:
            return (yield from operation)
        except ChapHTTPError as error:
            if error.status_code not in _REFUSED_CONTENT:
                raise
            try:
                listed = yield from self._get(list[NamedRecord], CONFIGURED_MODELS.path)
            except ChapError:
                raise error from None
            hint = did_you_mean(model, [record.name for record in listed if record.name])
            raise (error if hint is None else with_hint(error, hint)) from error.__cause__

    def _id_of(self, argument: str, value: int | str, kind: NamedKind) -> Operation[int]:
        """The id ``value`` stands for: an int is an id (checked; nothing is sent); a str is
        the name of one record of ``kind``, found in one request to its list, asked again at
        each call (records come and go). A name no record has, or several share, is a
        ``NameResolutionError`` naming ``argument`` (see ``id_named``)."""
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise ArgumentTypeError(
                f"{argument} must be an int (an id) or a str (a {kind.noun}'s name), "
                f"got {type(value).__name__} {value!r}"
            )
        if isinstance(value, int):
            return require_id(argument, value)
        name = require_name(argument, value)
        records = yield from self._get(list[NamedRecord], kind.path)
        return id_named(argument, name, records, kind)


_REFUSED_CONTENT = frozenset({400, 404, 422})
"""Statuses by which a server may refuse a name it does not know."""


def did_you_mean(given: str, known: Sequence[str]) -> str | None:
    """``"did you mean 'a' or 'b'?"`` for the known names close to ``given``; ``None`` when
    ``given`` is known or nothing comes close."""
    if given in known:
        return None
    close = difflib.get_close_matches(given, known, n=3, cutoff=0.6)
    if not close:
        return None
    return f"did you mean {' or '.join(repr(name) for name in close)}?"


# -- names where ids are asked --------------------------------------------------------------


@dataclass(frozen=True)
class NamedKind:
    """A kind of stored record a caller may name where its id is asked: what a record is
    called in a message (``noun``, ``plural``) and the route that lists them all."""

    noun: str
    plural: str
    path: str


DATASETS = NamedKind("dataset", "datasets", "/v1/crud/datasets")
TEMPLATES = NamedKind("model template", "templates", "/v1/crud/model-templates")
CONFIGURED_MODELS = NamedKind("configured model", "configured models", "/v1/crud/configured-models")
"""Sent by name on the wire (``modelId``): the server resolves it, and a name it refuses gets
the closest names (``Resource._suggesting_model``)."""
_NAMES_SHOWN = 20
"""At most this many names are listed when none is close to the one given."""


class NamedRecord(StoredRecord):
    """What a list says of a record to find it by name: its id, name, creation time and
    whether it is archived (retired, still listed by some servers)."""

    archived: bool | None = None


def id_named(argument: str, name: str, records: Sequence[NamedRecord], kind: NamedKind) -> int:
    """The id of the record of ``records`` named ``name`` (a retired record only where no
    other has the name). Several records with the name: a ``NameResolutionError`` listing
    their ids and creation dates; none: one with "did you mean" and the closest names, or
    the names there are when none comes close."""
    matches = [record for record in records if record.name == name]
    matches = [record for record in matches if not record.archived] or matches
    if len(matches) == 1:
        return matches[0].id
    if matches:
        shown = "; ".join(_described(record) for record in sorted(matches, key=lambda r: r.id))
        raise NameResolutionError(
            f"{argument}: {len(matches)} {kind.plural} are named {name!r} ({shown}); "
            "pass the id of the one you mean",
            argument=argument,
            name=name,
            ids=sorted(record.id for record in matches),
        )
    known = list(dict.fromkeys(record.name for record in records if record.name))
    hint = did_you_mean(name, known) or _names_listed(kind, known)
    if name.strip().isdigit():
        hint += f"; an id is an int: {argument}={int(name)}"
    raise NameResolutionError(
        f"{argument}: no {kind.noun} named {name!r}; {hint}", argument=argument, name=name, ids=[]
    )


def _described(record: NamedRecord) -> str:
    if record.created is None:
        return f"id {record.id}"
    return f"id {record.id}, created {record.created:%Y-%m-%d %H:%M}"


def _names_listed(kind: NamedKind, known: list[str]) -> str:
    if not known:
        return f"there are no {kind.plural}"
    shown = ", ".join(known[:_NAMES_SHOWN])
    more = len(known) - _NAMES_SHOWN
    return f"the {kind.plural} are {shown}" + (f" and {more} more" if more > 0 else "")


def checked(response: httpx.Response) -> httpx.Response:
    """The response, or the ``ChapHTTPError`` its error status stands for."""
    if response.is_error:
        raise error_from_response(response)
    return response


def page_arguments(limit: Any, offset: Any) -> tuple[int | None, int]:
    """``limit`` (None or at least 1) and ``offset`` (any int), checked."""
    if limit is not None:
        limit = require_id("limit", limit, minimum=1)
    if isinstance(offset, bool) or not isinstance(offset, int):
        raise ArgumentTypeError(f"offset must be an int, got {type(offset).__name__} {offset!r}")
    return limit, offset


def _total(response: httpx.Response) -> int:
    """The whole list's count a page's answer gives (:data:`TOTAL_COUNT`)."""
    try:
        return int(response.headers[TOTAL_COUNT])
    except (KeyError, ValueError):
        raise decode_failure(response, f"a page without a whole count in {TOTAL_COUNT}") from None


def decode_failure(response: httpx.Response, what: str) -> ChapDecodeError:
    """The error for an answer the client cannot read, naming the request and ``what``."""
    request = response.request
    page = not_a_service(response)
    said = f": {page}" if page else f" answered {what}"
    return ChapDecodeError(
        scrub(f"{request.method} {request.url.path}{said}", request),
        method=request.method,
        url=public_url(request.url),
        body=response.text[:2000],
    )


def decode(response: httpx.Response) -> Any:
    """The answer's JSON; ``ChapDecodeError`` when it is not JSON."""
    try:
        return json.loads(response.content)
    except ValueError as exc:
        raise decode_failure(response, f"a body that is not valid JSON ({exc})") from exc


_ADAPTERS: dict[object, TypeAdapter[Any]] = {}


def _adapter(shape: type[T]) -> TypeAdapter[T]:
    """The validator of ``shape``, built once (building one costs far more than using it)."""
    adapter = _ADAPTERS.get(shape)
    if adapter is None:
        adapter = _ADAPTERS[shape] = TypeAdapter(shape)
    return adapter


def parse(shape: type[T], response: httpx.Response) -> T:
    """The answer's JSON validated as ``shape``; ``ChapDecodeError`` for another shape."""
    return validate(shape, decode(response), response)


def validate(shape: type[T], payload: Any, response: httpx.Response) -> T:
    """``payload`` (read from ``response``, perhaps adjusted) validated as ``shape``;
    ``ChapDecodeError`` naming the request for another shape."""
    try:
        return _adapter(shape).validate_python(payload)
    except ValidationError as exc:
        raise decode_failure(response, f"JSON of an unexpected shape: {exc}") from exc


def convert(converter: Callable[[Any], T], payload: Any, response: httpx.Response) -> Operation[T]:
    """``converter(payload)`` as a ``Compute`` step (off the event loop for the async client);
    a ``ValueError`` becomes a ``ChapDecodeError`` naming the request."""
    try:
        converted: T = yield Compute(converter, (payload,))
    except ValueError as exc:
        raise decode_failure(response, f"data that cannot be turned into a frame: {exc}") from exc
    return converted


# -- argument checks -------------------------------------------------------------------------


def require_id(field: str, value: Any, minimum: int = 0) -> int:
    """An integer argument (an id, or a count with ``minimum=1``), checked."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ArgumentTypeError(f"{field} must be an int, got {type(value).__name__} {value!r}")
    if value < minimum:
        raise ArgumentError(f"{field} must be >= {minimum}, got {value}")
    return value


def require_name(field: str, value: Any) -> str:
    """A non-empty string argument, checked."""
    if not isinstance(value, str) or not value.strip():
        raise ArgumentError(f"{field} must be a non-empty string, got {value!r}")
    return value


def require_bool(field: str, value: Any) -> bool:
    """A True/False argument, checked (``"false"`` or ``0`` would read as something else)."""
    if not isinstance(value, bool):
        raise ArgumentTypeError(f"{field} must be a bool, got {type(value).__name__} {value!r}")
    return value


def require_timeout(value: Any) -> float | None:
    """A ``timeout`` in seconds (> 0) or None (no limit), checked."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ArgumentTypeError(
            f"timeout must be seconds (a number) or None, got {type(value).__name__} {value!r}"
        )
    if not value > 0:
        raise ArgumentError(f"timeout must be > 0 seconds or None, got {value!r}")
    return float(value)


def plan_body(**settings: int | None) -> dict[str, int]:
    """The backtest settings given (``n_periods``, ``n_splits``, ...), by wire name, once they
    make a :class:`~chaplab.vocabulary.BacktestPlan` with the defaults for the rest (the
    server's defaults, which are not sent)."""
    plan = BacktestPlan.given(**settings)
    return {
        setting.wire_name: getattr(plan, setting.name)
        for setting in PLAN_SETTINGS
        if settings.get(setting.name) is not None
    }


def plan_filters(**settings: int | None) -> dict[str, int]:
    """Filters on backtest settings, by wire name: each given one a value its setting allows."""
    return {
        setting.wire_name: setting.check(settings[setting.name])
        for setting in PLAN_SETTINGS
        if settings.get(setting.name) is not None
    }


def model_name(model: Any) -> str:
    """The configured model's name, from a name or an object with ``.name``."""
    if isinstance(model, int):
        raise ArgumentTypeError(
            f"model must be the configured model's NAME (e.g. 'naive_model:weekly') or an object "
            f"with .name, got the int {model!r}: the service identifies the model by name on the "
            "wire (modelId), and the id from /v1/crud/models is not a valid template id either"
        )
    name = model if isinstance(model, str) else getattr(model, "name", None)
    if not isinstance(name, str) or not name.strip():
        raise ArgumentTypeError(
            f"model must be a configured model name or an object with a .name, got {model!r}"
        )
    return name


def quantile_params(quantiles: Sequence[float]) -> list[tuple[str, float]]:
    """``quantiles`` as query parameters, each checked to lie between 0 and 1."""
    values = [quantiles] if isinstance(quantiles, (int, float)) else list(quantiles)
    if not values:
        raise ArgumentError("quantiles must name at least one quantile")
    for q in values:
        if isinstance(q, bool) or not isinstance(q, (int, float)) or not 0 <= q <= 1:
            raise ArgumentError(f"quantiles must be numbers between 0 and 1, got {q!r}")
    return [("quantiles", float(q)) for q in values]


def org_unit_params(org_units: Iterable[str] | str | None) -> list[tuple[str, str]]:
    """Org unit ids as ``orgUnits`` query parameters (one id may be given as a string)."""
    if org_units is None:
        return []
    units = [org_units] if isinstance(org_units, str) else list(org_units)
    for unit in units:
        if not isinstance(unit, str) or not unit:
            raise ArgumentError(f"org_units must be org unit id strings, got {unit!r}")
    return [("orgUnits", unit) for unit in units]


def frame_observations(frame: pd.DataFrame) -> Rows:
    """A wide frame's observations for a request body's member: the rows of
    ``chaplab.frames.frame_to_observations``, checked now, written as JSON column-wise when
    the body is (``chaplab.frames.observation_rows``)."""
    from chaplab.frames import observation_rows

    return observation_rows(frame)


def geojson_body(geojson: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A GeoJSON argument as a JSON body field."""
    return dict(geojson) if geojson is not None else None
