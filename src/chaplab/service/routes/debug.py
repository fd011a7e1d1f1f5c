"""Debug entries (``/v1/crud/debug``): store a note and read it back."""

from __future__ import annotations

from fastapi import APIRouter

from chaplab.service.domain import debug
from chaplab.service.routes.dependencies import DB
from chaplab.service.wire.debug import DebugEntryCreate, DebugEntryRead

router = APIRouter(prefix="/v1/crud/debug", tags=["debug"])


@router.post("")
def create_debug_entry(request: DebugEntryCreate, session: DB) -> DebugEntryRead:
    """Store a note, to check that writes reach the database."""
    return debug.create_debug_entry(session, request)


@router.get("/{entry_id}")
def get_debug_entry(entry_id: int, session: DB) -> DebugEntryRead:
    return debug.get_debug_entry(session, entry_id)
