"""What the routes receive: the service's state, a database session per request, and the
query parameters several resources share (quantile levels, org units)."""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Iterator, Sequence
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Query, Request, Response
from fastapi.responses import StreamingResponse
from fastapi.routing import APIRoute
from pydantic import Field
from sqlalchemy.orm import Session, sessionmaker

from chaplab.service.domain.lookup import MAX_ROW_ID
from chaplab.service.domain.paging import MAX_LIMIT, Listed, Page
from chaplab.service.gridjson import JsonStream
from chaplab.service.job_runner import JobRunner
from chaplab.service.tables import REQUEST_BODY, JobRow
from chaplab.service.wire.jobs import JobReference
from chaplab.service.wire.observations import body_with_columns
from chaplab.vocabulary import DEFAULT_QUANTILES


@dataclass
class ServiceState:
    """Held on ``app.state.service`` for the routes."""

    database_url: str
    factory: sessionmaker[Session]
    runner: JobRunner
    workers: int
    auth_required: bool = False


def service_state(request: Request) -> ServiceState:
    state: ServiceState = request.app.state.service
    return state


async def json_object_body(request: Request) -> dict[str, Any] | None:
    """The request's body when it is a JSON object (already parsed by the route's body field,
    so read from Starlette's cache), else None."""
    if request.method not in BODY_METHODS or not is_json(request.headers.get("content-type")):
        return None
    try:
        body = await request.json()
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


class ObservationsRequest(Request):
    """A request whose JSON object body's observations are read as columns, without a Python
    object per observation, when they are laid out regularly (``body_with_columns``); any
    other body is parsed as every request's is."""

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            parsed = body_with_columns(await self.body())
            if parsed is None:
                return await super().json()
            self._json = parsed
        return self._json


class ObservationsRoute(APIRoute):
    """A route whose body model takes observations (an ``ObservationColumns`` field) and that
    stores them itself, keeping no copy of the request body: its requests are
    :class:`ObservationsRequest`. (A route queueing a job keeps the body with the job, as sent,
    so it reads the body as every route does.)"""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handle = super().get_route_handler()

        async def with_observations_as_columns(request: Request) -> Response:
            return await handle(ObservationsRequest(request.scope, request.receive))

        return with_observations_as_columns


TOTAL_COUNT = "X-Total-Count"
"""The response header of a list holding how many items the whole list has."""
LIST_ANSWER: dict[int | str, dict[str, Any]] = {
    200: {
        "headers": {
            TOTAL_COUNT: {
                "description": "how many items the whole list holds",
                "schema": {"type": "integer"},
            }
        }
    }
}
"""The OpenAPI ``responses`` of a list route: its total in :data:`TOTAL_COUNT`."""


QueryInteger = Annotated[int, Field(ge=-MAX_ROW_ID, le=MAX_ROW_ID)]
"""An integer query parameter that filters a list or pages it (an id, a count or an offset):
within what an INTEGER column holds on every database (PostgreSQL's is 32-bit), so a value
no row holds matches nothing. A wider one is refused (422 naming the parameter), where the
database would fail on it (500). An id that looks one row up needs no bound: beyond the ids
a table holds it names no row (404, see :func:`get_or_404`)."""


def page_of(
    limit: Annotated[
        int | None,
        Query(
            ge=1,
            le=MAX_LIMIT,
            description="at most this many items (a page; without limit and offset, the "
            "whole list)",
        ),
    ] = None,
    offset: Annotated[QueryInteger, Query(ge=0, description="skip this many items first")] = 0,
) -> Page:
    """The page a list request asks for (opt-in: chap-core 2.5.1 lists have none)."""
    return Page(limit, offset)


Paged = Annotated[Page, Depends(page_of)]


def with_total(response: Response, listed: Listed[Any]) -> list[Any]:
    """The items of a page, the whole list's count put in :data:`TOTAL_COUNT`."""
    response.headers[TOTAL_COUNT] = str(listed.total)
    return listed.items


def is_json(content_type: str | None) -> bool:
    media_type = (content_type or "").split(";", 1)[0].strip().lower()
    return media_type == JSON or media_type.endswith("+json")


def database_session(
    request: Request, body: Annotated[dict[str, Any] | None, Depends(json_object_body)]
) -> Iterator[Session]:
    """A session for one request; routes that write commit before they answer. It holds the
    request's JSON object body, which a job queued in it keeps (see ``create_job``)."""
    with service_state(request).factory() as session:
        if body is not None:
            session.info[REQUEST_BODY] = body
        yield session


State = Annotated[ServiceState, Depends(service_state)]
DB = Annotated[Session, Depends(database_session)]

MAX_QUANTILE_LEVELS = 99
"""The most quantile levels one request may ask for (every percentile)."""
QUANTILES_HELP = (
    f"quantile levels strictly between 0 and 1, repeated (at most {MAX_QUANTILE_LEVELS})"
)
QuantileLevels = Annotated[
    list[float], Query(max_length=MAX_QUANTILE_LEVELS, description=QUANTILES_HELP)
]
OptionalQuantileLevels = Annotated[
    list[float] | None,
    Query(
        max_length=MAX_QUANTILE_LEVELS,
        description=f"{QUANTILES_HELP}; default {', '.join(map(str, DEFAULT_QUANTILES))}",
    ),
]


def quantile_levels_or_default(quantiles: OptionalQuantileLevels = None) -> Sequence[float]:
    """The ``quantiles`` asked for, else :data:`~chaplab.vocabulary.DEFAULT_QUANTILES`."""
    return quantiles or DEFAULT_QUANTILES


QuantileLevelsOrDefault = Annotated[Sequence[float], Depends(quantile_levels_or_default)]
"""Optional ``quantiles``, read as the default levels when none are given."""
OrgUnits = Annotated[
    list[str] | None, Query(alias="orgUnits", description="org units, repeated; adm0 = their sum")
]

JSON = "application/json"
BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


def csv_answer(description: str) -> dict[int | str, dict[str, object]]:
    """The OpenAPI ``responses`` of a route answering CSV text."""
    return {
        200: {"content": {"text/csv": {"schema": {"type": "string"}}}, "description": description}
    }


def job_reference(state: ServiceState, job: JobRow) -> JobReference:
    """Wake the job runner for a committed job and answer the job's reference."""
    state.runner.wake()
    return JobReference(id=job.id)


def json_body(body: bytes) -> Response:
    """A JSON body written as bytes (entries spliced in without a Python object per entry)."""
    return Response(body, media_type=JSON)


def streamed(stream: JsonStream) -> StreamingResponse:
    """A JSON body sent chunk by chunk as it is written (with its length when known first)."""
    length = {} if stream.length is None else {"Content-Length": str(stream.length)}
    return StreamingResponse(stream.chunks, media_type=JSON, headers=length)
