"""A page of a list: at most ``limit`` items from ``offset``, in the list's own order, and how
many items the whole list holds.

chap-core 2.5.1 has no paging, so a list asked without a page is answered whole, as there;
with thousands of evaluations and jobs a page is what a person looks at, and reading it costs
the page, not the list (the window is the database's ``LIMIT``/``OFFSET``, the total one
``count``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

T = TypeVar("T")
R = TypeVar("R")

MAX_LIMIT = 10_000
"""The most items one page holds."""


@dataclass(frozen=True)
class Page:
    """At most ``limit`` items (every one when None) from the ``offset``-th on."""

    limit: int | None = None
    offset: int = 0

    @property
    def whole(self) -> bool:
        """Whether this page is the whole list."""
        return self.limit is None and self.offset == 0

    def window(self, statement: Select[Any]) -> Select[Any]:
        """``statement`` limited to this page (its order is the list's)."""
        return statement if self.whole else statement.offset(self.offset).limit(self.limit)

    def of(self, items: Sequence[T]) -> list[T]:
        """This page of a list already in memory."""
        stop = None if self.limit is None else self.offset + self.limit
        return list(items[self.offset : stop])


@dataclass(frozen=True)
class Listed(Generic[T]):
    """A page of a list and the number of items of the whole list."""

    items: list[T]
    total: int

    @classmethod
    def of(cls, items: Sequence[T], page: Page) -> Listed[T]:
        """The page of a list already in memory."""
        return cls(page.of(items), len(items))


def listed_rows(
    session: Session, statement: Select[R], page: Page, read: Callable[[R], T]
) -> Listed[T]:
    """The rows of ``statement`` on ``page``, each made an answer by ``read``, and how many
    rows the whole statement selects (counted by the database when a page is asked)."""
    rows, total = page_rows(session, statement, page)
    return Listed([read(row) for row in rows], total)


def page_rows(session: Session, statement: Select[R], page: Page) -> tuple[list[R], int]:
    """The rows of ``statement`` on ``page`` and how many rows the whole statement selects."""
    rows = list(session.scalars(page.window(statement)))
    return rows, len(rows) if page.whole else count(session, statement)


def count(session: Session, statement: Select[Any]) -> int:
    """How many rows ``statement`` selects."""
    counted = select(func.count()).select_from(statement.order_by(None).subquery())
    return int(session.scalar(counted) or 0)
