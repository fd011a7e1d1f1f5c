"""Rows by primary key, or :class:`NotFound` (answered 404) naming what was looked for."""

from __future__ import annotations

from typing import TypeVar

from sqlalchemy.orm import Session

from chaplab.service.errors import NotFound
from chaplab.service.tables import Base

Row = TypeVar("Row", bound=Base)
MAX_ROW_ID = 2**31 - 1
"""The largest id an INTEGER key holds on every backend (PostgreSQL's ``integer`` is 32-bit);
a larger one names no row, and PostgreSQL would refuse to compare it with a key."""


def get_or_404(
    session: Session, row_type: type[Row], identifier: object, what: str, field: str | None = None
) -> Row:
    """The row with this primary key, or NotFound (answered 404) naming ``what``. An integer
    beyond :data:`MAX_ROW_ID` names no row (and never reaches the driver)."""
    if isinstance(identifier, int) and not -MAX_ROW_ID <= identifier <= MAX_ROW_ID:
        raise NotFound(what, identifier, field)
    row = session.get(row_type, identifier)
    if row is None:
        raise NotFound(what, identifier, field)
    return row
