"""What every route needs: the service's state, a database session, and lookups that 404."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Annotated, TypeVar

from fastapi import Depends, Query, Request
from sqlalchemy.orm import Session, sessionmaker

from chaplab.service.db import Base
from chaplab.service.errors import NotFound
from chaplab.service.jobs import JobRunner


@dataclass
class ServiceState:
    """Held on ``app.state.service`` for the routes."""

    database_url: str
    factory: sessionmaker[Session]
    runner: JobRunner
    workers: int


def service_state(request: Request) -> ServiceState:
    return request.app.state.service


def database_session(request: Request) -> Iterator[Session]:
    """A session for one request; routes that write commit before they answer."""
    with service_state(request).factory() as session:
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
        description=f"{QUANTILES_HELP}; default 0.1, 0.25, 0.5, 0.75, 0.9",
    ),
]

Row = TypeVar("Row", bound=Base)
MAX_ROW_ID = 2**63 - 1
"""The largest integer SQLite (and a BIGINT) stores."""


def get_or_404(
    session: Session, row_type: type[Row], identifier: object, what: str, field: str | None = None
) -> Row:
    """The row with this primary key, or NotFound (answered 404) naming ``what``. An integer
    beyond the database's 64-bit range names no row (and never reaches the driver)."""
    if isinstance(identifier, int) and not -MAX_ROW_ID <= identifier <= MAX_ROW_ID:
        raise NotFound(what, identifier, field)
    row = session.get(row_type, identifier)
    if row is None:
        raise NotFound(what, identifier, field)
    return row
