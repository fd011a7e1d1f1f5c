"""Service info and health."""

from __future__ import annotations

from typing import Any

from chaplab.client import (
    SystemInfo,
)

from .fake_service import FakeService


def test_system_info_and_health(client: Any, fake: FakeService) -> None:
    info = client.system_info()
    assert isinstance(info, SystemInfo)
    assert info.chap_core_version == "1.2.3"
    assert info.server_time_zone_id == "Etc/UTC"
    assert info.model_extra == {"extra": 1}
    assert client.health().status == "success"
    assert fake.paths() == ["GET /system/info", "GET /health"]
