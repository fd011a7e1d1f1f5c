"""Service info, health and readiness."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from chaplab.client import ServerError, SystemInfo, UnsupportedRouteError

from .chap_core_mock import ChapCoreMock, without
from .fake_service import FakeService


def test_system_info_and_health(client: Any, fake: FakeService) -> None:
    info = client.system_info()
    assert isinstance(info, SystemInfo)
    assert info.chap_core_version == "1.2.3"
    assert info.service_version == "chap-core 1.2.3"
    assert info.server_time_zone_id == "Etc/UTC"
    assert info.model_extra == {"extra": 1}
    assert client.health().status == "success"
    assert fake.paths() == ["GET /system/info", "GET /health"]


READY = {"status": "success", "checks": {"db": "ok", "redis": "ok", "celery": "ok"}}
UNHEALTHY = {"status": "unhealthy", "checks": {"db": "ok", "redis": "ok", "celery": "no reply"}}


@pytest.mark.parametrize(
    ("method", "path"), [("readiness", "/health/ready"), ("probe", "/health/probe")]
)
def test_readiness_says_which_dependency_fails_without_raising(
    call: Callable[..., Any], method: str, path: str
) -> None:
    mock = ChapCoreMock({f"GET {path}": httpx.Response(200, json=READY)})
    ready = call(mock.handler, method)
    assert ready.ready and ready.checks["celery"] == "ok"
    mock.answers[f"GET {path}"] = httpx.Response(503, json=UNHEALTHY)
    unhealthy = call(mock.handler, method)
    assert not unhealthy.ready and unhealthy.checks["celery"] == "no reply"


def test_a_gateways_503_page_is_a_server_error(call: Callable[..., Any]) -> None:
    mock = ChapCoreMock({"GET /health/ready": httpx.Response(503, text="<html>busy</html>")})
    with pytest.raises(ServerError):
        call(mock.handler, "readiness")


def test_a_server_without_readiness_names_the_liveness_probe(call: Callable[..., Any]) -> None:
    mock = ChapCoreMock({}, openapi=without("GET /health/ready"))
    with pytest.raises(UnsupportedRouteError, match=r"health\(\)"):
        call(mock.handler, "readiness")
