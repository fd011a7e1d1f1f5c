"""Wire models of debug entries."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field

from chaplab.service.wire.common import FreeText, WireModel, WireRequest


class DebugEntryCreate(WireRequest):
    message: FreeText = Field(min_length=1, max_length=10_000)
    details: dict[str, Any] = {}


class DebugEntryRead(WireModel):
    id: int
    message: str
    details: dict[str, Any]
    created: datetime
