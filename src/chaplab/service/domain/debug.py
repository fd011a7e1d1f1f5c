"""Debug entries: store a note and read it back, to check that writes reach the database."""

from __future__ import annotations

from sqlalchemy.orm import Session

from chaplab.service.domain.lookup import get_or_404
from chaplab.service.tables import DebugEntryRow
from chaplab.service.wire.common import from_row
from chaplab.service.wire.debug import DebugEntryCreate, DebugEntryRead


def debug_read(row: DebugEntryRow) -> DebugEntryRead:
    return from_row(DebugEntryRead, row)


def create_debug_entry(session: Session, request: DebugEntryCreate) -> DebugEntryRead:
    row = DebugEntryRow(message=request.message, details=request.details)
    session.add(row)
    session.commit()
    return debug_read(row)


def get_debug_entry(session: Session, entry_id: int) -> DebugEntryRead:
    return debug_read(get_or_404(session, DebugEntryRow, entry_id, "debug entry"))
