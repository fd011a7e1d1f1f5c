"""Wire model of ``/system/info`` (snake_case), a superset of chap-core 2.5.1's."""

from __future__ import annotations

from pydantic import Field

from chaplab.service.wire.common import SnakeModel


class SystemInfo(SnakeModel):
    chap_core_version: str = Field(
        description="the chap-core REST API version the service speaks (clients compare it "
        "with the version they need); the service's own version is chaplab_version"
    )
    chaplab_version: str = Field(description="the installed chaplab package's version")
    python_version: str
    server_date: str = Field(description="the server's current time, ISO 8601 with its offset")
    server_time_zone_id: str
    revision: str = Field(
        description="the source revision the running service was built from ($GIT_REVISION), "
        "empty if unknown"
    )
    auth_required: bool = Field(
        description="whether every route but the documentation, health and this one needs an "
        "API key (X-API-Key)"
    )
    database_backend: str
    workers: int
