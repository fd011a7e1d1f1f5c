"""Wire model of ``/system/info`` (snake_case)."""

from __future__ import annotations

from chaplab.service.wire.common import SnakeModel


class SystemInfo(SnakeModel):
    chap_core_version: str
    chaplab_version: str
    python_version: str
    server_date: str
    server_time_zone_id: str
    database_backend: str
    workers: int
