"""Debug entries: store a note and read it back, to check that writes reach the database."""

from __future__ import annotations

from fastapi import APIRouter

from chaplab.service.records import DebugEntryRow
from chaplab.service.routes._deps import DB, get_or_404
from chaplab.service.wire_registry import DebugEntryCreate, DebugEntryRead

router = APIRouter(tags=["debug"])


def debug_read(row: DebugEntryRow) -> DebugEntryRead:
    return DebugEntryRead(id=row.id, message=row.message, details=row.details, created=row.created)


@router.post("/v1/crud/debug")
def create_debug_entry(request: DebugEntryCreate, session: DB) -> DebugEntryRead:
    row = DebugEntryRow(message=request.message, details=request.details)
    session.add(row)
    session.commit()
    return debug_read(row)


@router.get("/v1/crud/debug/{entry_id}")
def get_debug_entry(entry_id: int, session: DB) -> DebugEntryRead:
    return debug_read(get_or_404(session, DebugEntryRow, entry_id, "debug entry"))
