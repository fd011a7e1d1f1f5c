"""The base classes of the client's wire models (pydantic v2), used by every resource module.

Attributes are snake_case; stored resources are camelCase on the wire (alias generator, and
either spelling is accepted on input). Job descriptions, system info and the model-runner
registry are snake_case on the wire. Every model keeps fields it does not know
(``model_extra``) and never fails on them, and reads an explicit ``null`` in a list or dict
field as empty (``NullableList``, ``NullableDict``).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Annotated, Any, NamedTuple, TypeVar

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict
from pydantic.alias_generators import to_camel

Item = TypeVar("Item")


def _empty_if_none(empty: Callable[[], Any]) -> BeforeValidator:
    """Read ``None`` as ``empty()``: servers send ``null`` for an empty collection, and one such
    field must not fail a whole list call."""
    return BeforeValidator(lambda value: empty() if value is None else value)


NullableList = Annotated[list[Item], _empty_if_none(list)]
"""A list field that reads ``null`` as ``[]``."""
NullableDict = Annotated[dict[str, Item], _empty_if_none(dict)]
"""A dict field (string keys) that reads ``null`` as ``{}``."""


def _in_utc(value: datetime) -> datetime:
    """``value`` as an aware time in UTC; a time without an offset is read as UTC."""
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


UtcDatetime = Annotated[datetime, AfterValidator(_in_utc)]
"""A time the server stored, aware and in UTC: chap-core 2.5.1 sends UTC without an offset,
our service with one, so times from the two servers compare and sort together."""


class WireModel(BaseModel):
    """A stored resource: camelCase on the wire, snake_case in Python, extra fields kept."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")

    def to_wire(self) -> dict[str, Any]:
        """The JSON-ready dict in wire spelling (camelCase), leaving out unset optional fields."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


class CreatedId(WireModel):
    """The answer of a route that stores a row and names only its id (``{"id": 3}``)."""

    id: int


class StoredRecord(WireModel):
    """What every stored dataset, evaluation, prediction and configured model with data source
    says of itself first: its id, its name and when it was stored."""

    id: int
    name: str | None = None
    created: UtcDatetime | None = None

    @property
    def record_key(self) -> RecordKey:
        """``(id, created)``: what names this record and no other, also on a server that gives
        a deleted record's id to the next one stored (chap-core 2.5.1's SQLite does), so that
        what a caller keeps about a record is never taken for a later one's."""
        return RecordKey(self.id, self.created)


class RecordKey(NamedTuple):
    """A stored record's id and creation time (``StoredRecord.record_key``)."""

    id: int
    created: datetime | None


class SnakeModel(BaseModel):
    """A snake_case payload (jobs, system info, health, model runners), extra fields kept."""

    model_config = ConfigDict(extra="allow")
