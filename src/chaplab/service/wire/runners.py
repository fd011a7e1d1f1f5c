"""Wire models of external model runners (``/v2/services``, snake_case like the contract says)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from chaplab.service.text import printable


class RunnerRegistration(BaseModel):
    """``POST /v2/services/$register``: where an external model runner answers, and its info."""

    model_config = ConfigDict(extra="forbid", strict=True)
    url: Annotated[str, AfterValidator(printable)] = Field(
        min_length=1, max_length=2000, description="http(s) URL of the runner"
    )
    info: dict[str, Any] = Field(
        default_factory=dict, description="what the runner says about itself"
    )


class RunnerRead(BaseModel):
    id: int
    url: str
    info: dict[str, Any]
    registered_at: datetime
    last_ping_at: datetime
    ping_count: int
    status: Literal["live", "stale"]
    stale_after_seconds: float
